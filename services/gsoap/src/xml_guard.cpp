// XmlGuard (xml_guard.hpp): a byte-at-a-time state machine over the XML markup. Where a
// comment or a processing instruction ends, and what follows '<', it decides as gSOAP's
// lexer (soap_get) does: were it to skip further than gSOAP, a DOCTYPE or deep nesting
// could pass unseen (e.g. after "<!-- -- >", which gSOAP ends at the '>').
#include "xml_guard.hpp"

namespace tb {

XmlGuard::Verdict XmlGuard::feed(const char *buf, size_t len) {
  for (size_t i = 0; i < len && verdict_ == Verdict::ok; ++i) step(buf[i]);
  return verdict_;
}

void XmlGuard::step(char c) {
  switch (state_) {
    case State::text:
      if (c == '<') state_ = State::lt;
      break;
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
    case State::start_tag:
      if (c == '"' || c == '\'') quote_ = c, state_ = State::quoted;
      else if (c == '>') {
        if (prev_ == '/') --depth_;  // <empty/>
        state_ = State::text;
      }
      prev_ = c;
      break;
    case State::quoted:
      if (c == quote_) state_ = State::start_tag, prev_ = c;
      break;
    case State::end_tag:
      if (c == '>') --depth_, state_ = State::text;
      break;
  }
}

}  // namespace tb
