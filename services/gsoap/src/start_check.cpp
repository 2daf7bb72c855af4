// StartCheck (start_check.hpp).
#include "start_check.hpp"

namespace tb {

bool StartCheck::feed(const char *buf, size_t len) {
  for (size_t i = 0; i < len && state_ == State::waiting; ++i) {
    const unsigned char c = static_cast<unsigned char>(buf[i]);
    if (c <= 32) continue;  // blanks, as gSOAP skips them (soap_coblank)
    const bool ok = expect_ == Expect::http_method
                        ? (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')
                        // '<', or 0xEF: a UTF-8 BOM's first byte (the rest: gSOAP, UTF-8 check)
                        : c == '<' || c == 0xEF;
    state_ = ok ? State::passed : State::refused;
  }
  return state_ != State::refused;
}

}  // namespace tb
