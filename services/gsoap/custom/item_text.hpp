// The text of one array item, both ways, for the tuned serializers (items.cpp): numbers
// written with std::to_chars (integers two digits a step from a table; floats and doubles
// in their shortest form that reads back to the same bits, Ryu in libstdc++) and read with
// std::from_chars (correctly rounded). No printf, no strtod, no locale.
//
// Writing: the contract's lexical forms (xsd:int, xsd:unsignedByte, xsd:float,
// xsd:double): "-12", "0.1", "1e+20", "-0", and INF, -INF, NaN for the special values
// (as gSOAP's own soap_float2s writes them).
//
// Reading: only the plain forms below are read here; anything else (white space, a '+'
// before a sign, INF and NaN in any spelling, hexadecimal floats, values out of range)
// returns false and the caller hands the item to gSOAP's own reader, so that every value
// outside these forms gets exactly the generated serializers' answer (value or fault):
//   int            [+|-]digits, within int32
//   unsignedByte   [+]digits, 0..255
//   float, double  [+|-] digits [. digits] [e|E [+|-] digits], as from_chars reads them
// One difference remains, on purpose: gSOAP reads a float as (float)strtod(text), which
// rounds twice; from_chars<float> rounds once, to the nearest float. The two differ only
// for texts within a double's precision of a midpoint between two floats (docs/serialization.md).
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <system_error>

namespace tb::item_text {

// The longest text of one item: "-2147483648", "255", "-1.17549435e-38",
// "-2.2250738585072014e-308" (shortest forms are never longer than these).
template <typename T> constexpr size_t kMaxChars = 24;
template <> constexpr size_t kMaxChars<int32_t> = 11;
template <> constexpr size_t kMaxChars<unsigned char> = 3;
template <> constexpr size_t kMaxChars<float> = 16;

// Writes v at p (room for kMaxChars<T>); returns the end.
inline char *write(char *p, int32_t v) { return std::to_chars(p, p + kMaxChars<int32_t>, v).ptr; }
inline char *write(char *p, unsigned char v) {
  return std::to_chars(p, p + kMaxChars<unsigned char>, static_cast<unsigned>(v)).ptr;
}
template <typename Real>
inline char *write_real(char *p, Real v) {
  if (std::isnan(v)) return static_cast<char *>(std::memcpy(p, "NaN", 3)) + 3;
  if (std::isinf(v)) {
    if (v < 0) *p++ = '-';
    return static_cast<char *>(std::memcpy(p, "INF", 3)) + 3;
  }
  return std::to_chars(p, p + kMaxChars<Real>, v).ptr;  // shortest round trip
}
inline char *write(char *p, float v) { return write_real(p, v); }
inline char *write(char *p, double v) { return write_real(p, v); }

// Reads [b, e) as one value of the plain forms above; false: not one (see the top).
// Up to 10 digits with an optional sign are read here, digit by digit; longer texts
// (leading zeros) by from_chars.
inline bool read(const char *b, const char *e, int32_t &out) {
  const char *p = b;
  const bool neg = p < e && *p == '-';
  if (p < e && (*p == '-' || *p == '+')) ++p;
  if (p == e) return false;
  if (e - p <= 10) {
    uint64_t v = 0;
    for (; p < e; ++p) {
      const unsigned d = static_cast<unsigned char>(*p) - '0';
      if (d > 9) return false;
      v = v * 10 + d;
    }
    if (v > (neg ? 2147483648ull : 2147483647ull)) return false;
    out = static_cast<int32_t>(neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v));
    return true;
  }
  if (*b == '+' && b[1] != '-') ++b;  // from_chars takes no '+'
  const auto r = std::from_chars(b, e, out);
  return r.ec == std::errc() && r.ptr == e;
}
inline bool read(const char *b, const char *e, unsigned char &out) {
  if (b < e && *b == '+' && e - b > 1 && b[1] != '-') ++b;
  unsigned v = 0;
  const auto r = std::from_chars(b, e, v);
  if (r.ec != std::errc() || r.ptr != e || v > 255) return false;
  out = static_cast<unsigned char>(v);
  return true;
}
template <typename Real>
inline bool read_real(const char *b, const char *e, Real &out) {
  // digits, '.', 'e'/'E' and signs only: from_chars would also take "inf", "nan(...)"
  // and "infinity", which gSOAP maps to its own NaN/INF values (left to gSOAP)
  for (const char *p = b; p < e; ++p) {
    const char c = *p;
    if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+'))
      return false;
  }
  if (b < e && *b == '+' && e - b > 1 && b[1] != '-' && b[1] != '+') ++b;
  const auto r = std::from_chars(b, e, out, std::chars_format::general);
  return r.ec == std::errc() && r.ptr == e;
}
inline bool read(const char *b, const char *e, float &out) { return read_real(b, e, out); }
inline bool read(const char *b, const char *e, double &out) { return read_real(b, e, out); }

// The value of an item at p, which ends at the next '<' (before `end`): that '<', or nullptr
// when the text up to it is not one of the plain forms (or the '<' is not within
// kMaxChars<T> + 1 bytes). Integers are read as they are scanned, digit by digit.
template <typename T>
inline const char *read_to_tag(const char *p, const char *end, T &out) {
  const char *lt = p;
  const char *const last = p + std::min<size_t>(static_cast<size_t>(end - p), kMaxChars<T> + 1);
  while (lt < last && *lt != '<') ++lt;
  return lt < last && read(p, lt, out) ? lt : nullptr;
}
namespace detail {
// Eight bytes at p as a little-endian word, and SWAR helpers on it (8 digits at a time).
inline uint64_t load8(const char *p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}
// How many of the 8 bytes of w (first byte lowest) are ASCII digits before the first other.
inline int leading_digits(uint64_t w) {
  const uint64_t other = ((w & 0xF0F0F0F0F0F0F0F0ull) ^ 0x3030303030303030ull) |
                         (((w + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) ^ 0x3030303030303030ull);
  return other ? __builtin_ctzll(other) >> 3 : 8;
}
// The number the first k (1..8) digit bytes of w spell.
inline uint64_t digits_value(uint64_t w, int k) {
  uint64_t v = (w - 0x3030303030303030ull) << (8 * (8 - k));  // leading zero digits
  v = v * 10 + (v >> 8);
  return (((v & 0x000000FF000000FFull) * (100 + (1000000ull << 32))) +
          (((v >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32)))) >> 32;
}
}  // namespace detail

template <>
inline const char *read_to_tag(const char *p, const char *end, int32_t &out) {
  if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && end - p >= 12) {
    const char *q = p;
    const bool neg = *q == '-';
    if (*q == '-' || *q == '+') ++q;
    const uint64_t w = detail::load8(q);
    int k = detail::leading_digits(w);
    if (k > 0) {
      uint64_t v = detail::digits_value(w, k);
      q += k;
      if (k == 8)  // up to two more
        for (int more = 0; more < 2 && unsigned(static_cast<unsigned char>(*q)) - 48u <= 9u; ++more, ++q)
          v = v * 10 + static_cast<unsigned>(static_cast<unsigned char>(*q) - '0');
      if (*q == '<' && (q - p) - (p[0] == '-' || p[0] == '+') <= 10 &&
          v <= (neg ? 2147483648ull : 2147483647ull)) {
        out = static_cast<int32_t>(neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v));
        return q;
      }
    }
  }
  const char *lt = p;  // near the end of the buffer, leading zeros ...: the general way
  const char *const last = p + std::min<size_t>(static_cast<size_t>(end - p), kMaxChars<int32_t> + 1);
  while (lt < last && *lt != '<') ++lt;
  return lt < last && read(p, lt, out) ? lt : nullptr;
}

}  // namespace tb::item_text
