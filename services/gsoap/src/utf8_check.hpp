// A streaming check that a request body is well-formed UTF-8 (no stray continuation
// bytes, no truncated, overlong or surrogate sequences, nothing above U+10FFFF), before
// gSOAP parses it. gSOAP reads an invalid sequence as Latin-1 and goes on, so a body with
// invalid UTF-8 in a part it skips was answered 200; Axis2 refuses it.
//
// A body whose XML declaration names a Latin-1 encoding (encoding="ISO-8859-*" or
// "latin*", the ones gSOAP switches to) is not checked. O(1) memory; the declaration is
// looked for in the first kPrologBytes bytes, whatever the block boundaries.
#pragma once

#include <cstddef>
#include <string>

namespace tb {

class Utf8Check {
 public:
  static constexpr size_t kPrologBytes = 128;

  void reset();
  // Feeds the next block of the body; false once the body is not UTF-8 (sticky).
  bool feed(const char *buf, size_t len);
  // At the end of the body: checks what was held back looking for the declaration.
  bool finish();
  bool invalid() const { return invalid_; }

 private:
  bool check(const unsigned char *p, size_t len);
  bool decide();
  static bool declares_latin1(const std::string &prolog);
  static bool could_be_declaration(const std::string &head);

  bool decided_ = false;   // the encoding is known (prolog read)
  bool latin1_ = false;
  bool invalid_ = false;
  std::string prolog_;     // the first bytes, held until decided_
  int need_ = 0;           // continuation bytes still expected
  unsigned char lo_ = 0x80, hi_ = 0xBF;  // range of the next continuation byte
};

}  // namespace tb
