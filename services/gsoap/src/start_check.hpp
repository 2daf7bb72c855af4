// The first non-blank byte of a request, and of its body, decide how gSOAP reads it
// (soap_begin_recv): a letter starts an HTTP request; '<' a SOAP message without any
// HTTP headers (SOAP over plain TCP); "--" MIME attachments, whatever the Content-Type.
// This service speaks SOAP over HTTP and its contract has no attachments. Without HTTP
// headers none of the checks that hang on them (413, the XML guard, the attribute limit,
// UTF-8) would run, and gSOAP's MIME parser has an undefined shift (found by fuzzing). So
// a request must start with a letter, and its body, after blanks or a UTF-8 byte order
// mark, with '<' like any XML document; anything else is refused before gSOAP looks at it.
// O(1), whatever the block boundaries.
#pragma once

#include <cstddef>

namespace tb {

class StartCheck {
 public:
  enum class Expect { http_method, xml };
  explicit StartCheck(Expect expect) : expect_(expect) {}
  void reset() { state_ = State::waiting; }
  // Feeds the next block; false once the first non-blank byte is not the expected one (sticky).
  bool feed(const char *buf, size_t len);
  bool refused() const { return state_ == State::refused; }

 private:
  enum class State { waiting, passed, refused };
  Expect expect_;
  State state_ = State::waiting;
};

}  // namespace tb
