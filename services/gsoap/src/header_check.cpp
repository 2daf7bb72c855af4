// check_header (header_check.hpp).
#include "header_check.hpp"

#include <cctype>
#include <strings.h>

namespace tb {
namespace {

bool hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

// Every '%' starts "%XX" with two hex digits.
bool percent_escapes_ok(const char *s) {
  for (; *s; ++s)
    if (*s == '%' && !(hex(s[1]) && hex(s[2]))) return false;
  return true;
}

}  // namespace

HeaderCheck check_header(const char *key, const char *val) {
  if (!strcasecmp(key, "WWW-Authenticate") || !strcasecmp(key, "Proxy-Authenticate"))
    return HeaderCheck::skip;
  if (!strcasecmp(key, "Content-Type") && !percent_escapes_ok(val)) return HeaderCheck::refuse;
  return HeaderCheck::pass;
}

}  // namespace tb
