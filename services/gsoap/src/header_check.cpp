// check_header (header_check.hpp).
#include "header_check.hpp"

#include <cctype>
#include <strings.h>

#include "stdsoap2.h"

namespace tb {
namespace {

bool hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

// Every '%' starts "%XX" with two hex digits.
bool percent_escapes_ok(const char *s) {
  for (; *s; ++s)
    if (*s == '%' && !(hex(s[1]) && hex(s[2]))) return false;
  return true;
}

// gSOAP switches to MIME or DIME for any of these among the value's ;- or ,-separated parts
// (with accept_mtom, multipart/related is not counted: MTOM/XOP).
bool names_attachments(const char *val, bool accept_mtom) {
  for (const char *s = val; *s; ++s) {
    if (accept_mtom && !strncasecmp(s, "multipart/related", 17)) {
      s += 16;
      continue;
    }
    if (!strncasecmp(s, "multipart/", 10) || !strncasecmp(s, "application/dime", 16)) return true;
  }
  return false;
}

}  // namespace

// Keys are matched as gSOAP matches them (soap_tag_cmp: no case, and a '-' in the name
// matches any byte), or "WWW\xC4Authenticate" would reach gSOAP's handler unchecked.
HeaderCheck check_header(const char *key, const char *val, bool accept_mtom) {
  if (!soap_tag_cmp(key, "WWW-Authenticate") || !soap_tag_cmp(key, "Proxy-Authenticate"))
    return HeaderCheck::skip;
  if (soap_tag_cmp(key, "Content-Type") != 0) return HeaderCheck::pass;
  if (!percent_escapes_ok(val)) return HeaderCheck::refuse;
  if (names_attachments(val, accept_mtom)) return HeaderCheck::unsupported_media;
  return HeaderCheck::pass;
}

}  // namespace tb
