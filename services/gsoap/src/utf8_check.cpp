// Utf8Check (utf8_check.hpp): the UTF-8 decoder's state machine of RFC 3629 / Unicode
// table 3-7, bytes only (no code points are built).
#include "utf8_check.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>

namespace tb {

void Utf8Check::reset() {
  decided_ = latin1_ = invalid_ = false;
  prolog_.clear();
  need_ = 0;
  lo_ = 0x80, hi_ = 0xBF;
}

// gSOAP (soap_getpi): <?xml ... encoding="iso-8859-*" or "latin*" ?> switches to Latin-1.
bool Utf8Check::declares_latin1(const std::string &prolog) {
  std::string p = prolog;
  std::transform(p.begin(), p.end(), p.begin(), [](unsigned char c) { return std::tolower(c); });
  const size_t decl = p.find("<?xml");
  if (decl == std::string::npos) return false;
  const size_t end = p.find("?>", decl);
  const size_t enc = p.find("encoding=", decl);
  if (enc == std::string::npos || (end != std::string::npos && enc > end)) return false;
  const size_t name = enc + 10;  // after the quote (the held bytes may end before it)
  if (name >= p.size()) return false;
  return p.compare(name, 9, "iso-8859-") == 0 || p.compare(name, 5, "latin") == 0;
}

bool Utf8Check::feed(const char *buf, size_t len) {
  if (invalid_ || latin1_) return !invalid_;
  if (decided_) return check(reinterpret_cast<const unsigned char *>(buf), len);
  const size_t take = std::min(len, kPrologBytes - prolog_.size());
  prolog_.append(buf, take);
  if (prolog_.size() < kPrologBytes && prolog_.find("?>") == std::string::npos &&
      could_be_declaration(prolog_))
    return true;  // the declaration may still come: hold the bytes
  if (!decide()) return false;
  return latin1_ || check(reinterpret_cast<const unsigned char *>(buf) + take, len - take);
}

bool Utf8Check::finish() { return invalid_ || latin1_ || decided_ ? !invalid_ : decide(); }

bool Utf8Check::decide() {
  decided_ = true;
  latin1_ = declares_latin1(prolog_);
  const bool ok = latin1_ || check(reinterpret_cast<const unsigned char *>(prolog_.data()),
                                   prolog_.size());
  prolog_.clear();
  return ok;
}

// True while the body so far (after a BOM and blanks) is a prefix of "<?xml" or starts with it.
bool Utf8Check::could_be_declaration(const std::string &head) {
  size_t i = head.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
  while (i < head.size() && static_cast<unsigned char>(head[i]) <= 32) ++i;
  const size_t n = std::min<size_t>(head.size() - i, 5);
  return head.compare(i, n, "<?xml", n) == 0;
}

// ASCII (nearly every byte of a SOAP message) is skipped 8 bytes at a time: a SOAP body of
// numbers cost 8 instructions a byte one byte at a time, a quarter of the service's
// instructions on sendInts n=1000 with the tuned serializers (callgrind).
bool Utf8Check::check(const unsigned char *p, size_t len) {
  constexpr uint64_t kHigh = 0x8080808080808080ull;
  for (size_t i = 0; i < len; ++i) {
    if (need_ == 0) {
      for (uint64_t w; len - i >= 8; i += 8) {
        std::memcpy(&w, p + i, 8);
        if (w & kHigh) break;
      }
      if (i == len) break;
    }
    const unsigned char c = p[i];
    if (need_ > 0) {
      if (c < lo_ || c > hi_) return !(invalid_ = true);
      lo_ = 0x80, hi_ = 0xBF;
      --need_;
      continue;
    }
    if (c < 0x80) continue;
    if (c >= 0xC2 && c <= 0xDF) need_ = 1;
    else if (c == 0xE0) need_ = 2, lo_ = 0xA0;           // no overlong 3-byte forms
    else if (c == 0xED) need_ = 2, hi_ = 0x9F;           // no surrogates
    else if (c >= 0xE1 && c <= 0xEF) need_ = 2;
    else if (c == 0xF0) need_ = 3, lo_ = 0x90;           // no overlong 4-byte forms
    else if (c >= 0xF1 && c <= 0xF3) need_ = 3;
    else if (c == 0xF4) need_ = 3, hi_ = 0x8F;           // nothing above U+10FFFF
    else return !(invalid_ = true);                      // 80..C1, F5..FF
  }
  return true;
}

}  // namespace tb
