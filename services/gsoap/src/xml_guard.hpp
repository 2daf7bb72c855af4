// A streaming check of a request body before gSOAP parses it: refuses any DTD ("<!DOCTYPE",
// "<!ENTITY", ... -- every "<!" that is not a comment or CDATA) and element nesting deeper
// than a limit. gSOAP's own maxlevel does not cover elements it skips as unknown, so a
// billion-laughs DOCTYPE or a 10 000-deep <a><a>... inside a request stops here, in O(1)
// memory, whatever the block boundaries.
// A MIME body (multipart/related: SOAP with MTOM/XOP or SwA attachments) is checked in its
// root part only: the part's headers are skipped, its XML is checked until the root
// element closes, and the attachments after it -- binary data, where any byte may be '<'
// -- are not XML and are not looked at (gSOAP reads them as raw bytes).
#pragma once

#include <cstddef>

namespace tb {

class XmlGuard {
 public:
  enum class Verdict { ok, doctype, too_deep };

  explicit XmlGuard(int max_depth = 64) : max_depth_(max_depth) {}
  // The body is MIME (say so before the first feed): check its root part only.
  void expect_mime() { mime_ = true, state_ = State::mime_headers; }
  // Feeds the next block of the body; returns the verdict so far (sticky once not ok).
  Verdict feed(const char *buf, size_t len);
  Verdict verdict() const { return verdict_; }

 private:
  enum class State {
    text, lt, bang, bang_dash, comment, cdata, pi, markup_tail, start_tag, end_tag, quoted,
    mime_headers,  // MIME: up to the blank line that ends the root part's headers
    done           // MIME: the root element has closed; the rest is attachments
  };
  void closed_one();  // an element closed: in MIME mode, the root's close ends the check
  void step(char c);

  int max_depth_;
  int depth_ = 0;
  State state_ = State::text;
  char quote_ = 0;       // the quote of an attribute value
  char prev_ = 0;        // previous byte inside a tag: "/>" ends an empty element
  int run_ = 0;          // "--" of a comment end, "]]" of a CDATA end; '<' nesting of a tail
  bool mime_ = false;
  int line_ = -1;        // mime_headers: characters on the current line (-1: none yet)
  Verdict verdict_ = Verdict::ok;
};

}  // namespace tb
