// Strict parsing of numbers and flags for both command-line tools (args.hpp).
#include "args.hpp"

#include <cerrno>
#include <cstdlib>

namespace tb {

int64_t parse_int(const std::string &what, const std::string &text, int64_t lo, int64_t hi) {
  errno = 0;
  char *end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || v < lo || v > hi)
    throw UsageError(what + " must be an integer from " + std::to_string(lo) + " to " +
                     std::to_string(hi) + ", got '" + text + "'");
  return v;
}

uint64_t parse_uint64(const std::string &what, const std::string &text) {
  errno = 0;
  char *end = nullptr;
  unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || text[0] == '-' || *end != '\0' || errno == ERANGE)
    throw UsageError(what + " must be an integer from 0 to 18446744073709551615, got '" +
                     text + "'");
  return v;
}

bool parse_bool(const std::string &what, const std::string &text) {
  if (text == "1" || text == "true" || text == "yes" || text == "on") return true;
  if (text == "0" || text == "false" || text == "no" || text == "off" || text.empty()) return false;
  throw UsageError(what + " must be 1 or 0 (true/false), got '" + text + "'");
}

std::string ArgCursor::next_flag() {
  std::string arg = argv_[i_++];
  has_inline_ = false;
  if (arg == "-h") return "--help";
  if (arg.rfind("--", 0) != 0 || arg.size() < 3)
    throw UsageError("unexpected argument '" + arg + "'; flags look like --name VALUE (see --help)");
  size_t eq = arg.find('=');
  if (eq != std::string::npos) {
    has_inline_ = true;
    inline_value_ = arg.substr(eq + 1);
    arg.resize(eq);
  }
  return arg;
}

std::string ArgCursor::value(const std::string &flag) {
  if (has_inline_) {
    has_inline_ = false;
    return inline_value_;
  }
  if (i_ >= argc_) throw UsageError(flag + " needs a value (see --help)");
  return argv_[i_++];
}

}  // namespace tb
