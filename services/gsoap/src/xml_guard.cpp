// XmlGuard (xml_guard.hpp): a state machine over the XML markup. The states a request
// spends nearly all its bytes in -- text, a start tag, a quoted attribute value, an end
// tag -- jump to the next byte that can change the state, looking at 16 bytes at a time
// (SSE2, on every x86-64; 8 bytes elsewhere); the rare ones (after "<!" or "<?", comments,
// CDATA, PIs) go byte by byte. The first byte-at-a-time loop cost 21 instructions a byte,
// 14 % of the service's instructions on sendInts n=1000 (callgrind); 8 bytes a step, about
// 6 a byte; 16 a step, about 4 (docs/serialization.md).
// Where a comment or a processing instruction ends, and what follows '<', it decides as
// gSOAP's lexer (soap_get) does: were it to skip further than gSOAP, a DOCTYPE or deep
// nesting could pass unseen (e.g. after "<!-- -- >", which gSOAP ends at the '>').
#include "xml_guard.hpp"

#include <cstdint>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tb {
namespace {

// Scanning 8 bytes at a time: for a word w, has(w, c) is non-zero exactly when some byte
// of w is c, and its lowest set bit (0x80 of that byte) marks the first such byte on a
// little-endian machine (the classic "has zero byte" test; an exact one, not the
// shortcut with false positives above a match).
constexpr uint64_t kOnes = 0x0101010101010101ull;
constexpr uint64_t kHigh = 0x8080808080808080ull;
inline uint64_t has(uint64_t w, char c) {
  const uint64_t x = w ^ (kOnes * static_cast<unsigned char>(c));
  return ~(((x & ~kHigh) + ~kHigh) | x | ~kHigh);
}
inline uint64_t load(const char *p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}
inline const char *at_mark(const char *p, uint64_t mark) {
  return p + (__builtin_ctzll(mark) >> 3);
}
constexpr bool kLittle = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

#if defined(__SSE2__)
// 16 bytes at a time where SSE2 is there (every x86-64): one compare per wanted byte.
inline __m128i load16(const char *p) { return _mm_loadu_si128(reinterpret_cast<const __m128i *>(p)); }
inline int matches(__m128i block, char c) {
  return _mm_movemask_epi8(_mm_cmpeq_epi8(block, _mm_set1_epi8(c)));
}
#endif

// The first c in [p, end), or end.
inline const char *find(const char *p, const char *end, char c) {
#if defined(__SSE2__)
  for (; end - p >= 16; p += 16)
    if (const int m = matches(load16(p), c)) return p + __builtin_ctz(m);
#endif
  if (kLittle) {
    for (; end - p >= 8; p += 8)
      if (uint64_t m = has(load(p), c)) return at_mark(p, m);
  }
  while (p < end && *p != c) ++p;
  return p;
}

// The first of '>', '"', '\'' in [p, end), or end.
inline const char *tag_stop(const char *p, const char *end) {
#if defined(__SSE2__)
  for (; end - p >= 16; p += 16) {
    const __m128i b = load16(p);
    if (const int m = matches(b, '>') | matches(b, '"') | matches(b, '\'')) return p + __builtin_ctz(m);
  }
#endif
  if (kLittle) {
    for (; end - p >= 8; p += 8) {
      const uint64_t w = load(p);
      if (uint64_t m = has(w, '>') | has(w, '"') | has(w, '\'')) return at_mark(p, m);
    }
  }
  while (p < end && *p != '>' && *p != '"' && *p != '\'') ++p;
  return p;
}

}  // namespace

XmlGuard::Verdict XmlGuard::feed(const char *buf, size_t len) {
  const char *p = buf;
  const char *const end = buf + len;
  while (p < end && verdict_ == Verdict::ok) {
    switch (state_) {
      case State::text: {  // until '<'; most tags are then read here in one go
        p = find(p, end, '<');
        if (p == end) break;
        if (++p == end) {
          state_ = State::lt;
          break;
        }
        if (*p == '/') {  // an end tag: until '>'
          const char *gt = find(p + 1, end, '>');
          if (gt == end) state_ = State::end_tag, p = end;
          else closed_one(), p = gt + 1;
        } else if (*p != '!' && *p != '?' && static_cast<unsigned char>(*p) > 32) {  // a start tag
          if (++depth_ > max_depth_) verdict_ = Verdict::too_deep;
          state_ = State::start_tag;
          prev_ = *p++;
        } else {
          state_ = State::lt;  // "<!", "<?", "< ": the rare states take it from here
        }
        break;
      }
      case State::start_tag: {  // until '>' (a "/>" ends an empty element) or a quote
        const char *q = tag_stop(p, end);
        if (q == end) {
          prev_ = q > p ? q[-1] : prev_;
          p = end;
          break;
        }
        const char before = q > p ? q[-1] : prev_;
        if (*q == '>') {
          state_ = State::text;
          if (before == '/') closed_one();  // <empty/>
        } else {
          quote_ = *q;
          state_ = State::quoted;
        }
        prev_ = *q;
        p = q + 1;
        break;
      }
      case State::quoted: {  // until the closing quote
        p = find(p, end, quote_);
        if (p < end) state_ = State::start_tag, prev_ = quote_, ++p;
        break;
      }
      case State::end_tag: {  // until '>'
        p = find(p, end, '>');
        if (p < end) state_ = State::text, closed_one(), ++p;
        break;
      }
      case State::mime_headers: {  // until a blank line after a non-blank one
        for (; p < end && state_ == State::mime_headers; ++p) {
          if (*p == '\n') {
            if (line_ == 0) state_ = State::text;  // the root part's XML starts
            line_ = line_ < 0 ? -1 : 0;
          } else if (*p != '\r') {
            line_ = line_ < 0 ? 1 : line_ + 1;
          }
        }
        break;
      }
      case State::done:
        return verdict_;
      default:
        step(*p++);
    }
  }
  return verdict_;
}

void XmlGuard::closed_one() {
  if (--depth_ == 0 && mime_) state_ = State::done;
}

// One byte in the rare states; text, start_tag, quoted and end_tag are feed()'s.
void XmlGuard::step(char c) {
  switch (state_) {
    case State::lt:  // just after '<' (and blanks, which gSOAP skips here)
      if (static_cast<unsigned char>(c) <= 32) break;
      if (c == '!') state_ = State::bang;
      else if (c == '?') state_ = State::pi, prev_ = 0;
      else if (c == '/') state_ = State::end_tag;
      else {
        if (++depth_ > max_depth_) verdict_ = Verdict::too_deep;
        state_ = State::start_tag;
        prev_ = c;
      }
      break;
    case State::bang:  // "<!": a comment, a CDATA section, or a declaration (refused)
      if (c == '-') state_ = State::bang_dash;
      else if (c == '[') state_ = State::cdata, run_ = 0;
      else verdict_ = Verdict::doctype;
      break;
    case State::bang_dash:
      if (c == '-') state_ = State::comment, run_ = 0;
      else verdict_ = Verdict::doctype;
      break;
    case State::comment:  // gSOAP: the first "--" ends the text, then up to the '>'
      if (c != '-') run_ = 0;
      else if (++run_ == 2) state_ = State::markup_tail, run_ = 1;
      break;
    case State::cdata:  // "[CDATA[ ... ]]>": only the end matters here
      if (c == ']') ++run_;
      else if (c == '>' && run_ >= 2) state_ = State::text;
      else run_ = 0;
      break;
    case State::pi:  // gSOAP: the text up to the first '?', then up to the '>'
      if (c == '?') state_ = State::markup_tail, run_ = 1;
      break;
    case State::markup_tail:  // the '>' that balances the '<'s since (gSOAP's nesting count)
      if (c == '<') ++run_;
      else if (c == '>' && --run_ == 0) state_ = State::text;
      break;
    case State::text:
    case State::start_tag:
    case State::quoted:
    case State::end_tag:
    case State::mime_headers:
    case State::done:
      break;  // handled in feed()
  }
}

}  // namespace tb
