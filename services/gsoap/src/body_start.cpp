// BodyStart (body_start.hpp).
#include "body_start.hpp"

namespace tb {

bool BodyStart::feed(const char *buf, size_t len) {
  for (size_t i = 0; i < len && state_ == State::waiting; ++i) {
    const unsigned char c = static_cast<unsigned char>(buf[i]);
    if (c <= 32) continue;  // blanks, as gSOAP skips them (soap_coblank)
    // '<', or 0xEF: the first byte of a UTF-8 BOM (what follows it is the UTF-8 check's)
    state_ = c == '<' || c == 0xEF ? State::xml : State::refused;
  }
  return state_ != State::refused;
}

}  // namespace tb
