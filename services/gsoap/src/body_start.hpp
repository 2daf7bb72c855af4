// The first bytes of a request body: gSOAP reads a body whose first non-blank bytes are
// "--" as MIME attachments, whatever the Content-Type says. The contract has no
// attachments (and gSOAP's MIME parser has an undefined shift the fuzz harness found), so
// a body must start, after blanks or a UTF-8 byte order mark, with '<' like any XML
// document; else it is refused before gSOAP looks at it. O(1), whatever the block
// boundaries.
#pragma once

#include <cstddef>

namespace tb {

class BodyStart {
 public:
  void reset() { state_ = State::waiting; }
  // Feeds the next block of the body; false once its start is not XML (sticky).
  bool feed(const char *buf, size_t len);
  bool refused() const { return state_ == State::refused; }

 private:
  enum class State { waiting, xml, refused };
  State state_ = State::waiting;
};

}  // namespace tb
