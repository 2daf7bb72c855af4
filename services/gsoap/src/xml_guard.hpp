// A streaming check of a request body before gSOAP parses it: refuses any DTD ("<!DOCTYPE",
// "<!ENTITY", ... -- every "<!" that is not a comment or CDATA) and element nesting deeper
// than a limit. gSOAP's own maxlevel does not cover elements it skips as unknown, so a
// billion-laughs DOCTYPE or a 10 000-deep <a><a>... inside a request stops here, in O(1)
// memory, whatever the block boundaries.
#pragma once

#include <cstddef>

namespace tb {

class XmlGuard {
 public:
  enum class Verdict { ok, doctype, too_deep };

  explicit XmlGuard(int max_depth = 64) : max_depth_(max_depth) {}
  // Feeds the next block of the body; returns the verdict so far (sticky once not ok).
  Verdict feed(const char *buf, size_t len);
  Verdict verdict() const { return verdict_; }

 private:
  enum class State { text, lt, bang, bang_dash, comment, cdata, pi, markup_tail, start_tag,
                     end_tag, quoted };
  void step(char c);

  int max_depth_;
  int depth_ = 0;
  State state_ = State::text;
  char quote_ = 0;       // the quote of an attribute value
  char prev_ = 0;        // previous byte inside a tag: "/>" ends an empty element
  int run_ = 0;          // "--" of a comment end, "]]" of a CDATA end; '<' nesting of a tail
  Verdict verdict_ = Verdict::ok;
};

}  // namespace tb
