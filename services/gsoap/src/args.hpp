// Small helpers shared by the server's and the client's command lines: strict number and
// boolean parsing with messages that name the fix, and `--name value` / `--name=value`.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace tb {

// A usage error: the message names the flag (or variable) and what it accepts. Exit 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// `text` as an integer in [lo, hi]; `what` names its source, e.g. "--pool-size".
int64_t parse_int(const std::string &what, const std::string &text, int64_t lo, int64_t hi);
uint64_t parse_uint64(const std::string &what, const std::string &text);
// 1/0, true/false, yes/no, on/off
bool parse_bool(const std::string &what, const std::string &text);

// Walks argv: for "--name=value" or "--name value" returns name and value.
class ArgCursor {
 public:
  ArgCursor(int argc, char **argv) : argc_(argc), argv_(argv) {}
  bool done() const { return i_ >= argc_; }
  // The next flag's name ("--calls"); the value part, if given with '=', is kept.
  std::string next_flag();
  // The value of the flag just read: after '=' or the next argument.
  std::string value(const std::string &flag);
  bool has_inline_value() const { return has_inline_; }

 private:
  int argc_;
  char **argv_;
  int i_ = 1;
  bool has_inline_ = false;
  std::string inline_value_;
};

}  // namespace tb
