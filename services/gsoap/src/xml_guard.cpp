// XmlGuard (xml_guard.hpp): a byte-at-a-time state machine over the XML markup.
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
    case State::lt:  // just after '<'
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
    case State::comment:  // until "-->"
      if (c == '-') ++run_;
      else if (c == '>' && run_ >= 2) state_ = State::text;
      else run_ = 0;
      break;
    case State::cdata:  // "[CDATA[ ... ]]>": only the end matters here
      if (c == ']') ++run_;
      else if (c == '>' && run_ >= 2) state_ = State::text;
      else run_ = 0;
      break;
    case State::pi:  // "<? ... ?>"
      if (c == '>' && prev_ == '?') state_ = State::text;
      prev_ = c;
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
