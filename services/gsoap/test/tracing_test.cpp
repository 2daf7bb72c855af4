// ctest: which traceparent header values start a span (src/tracing.hpp): version 00, lower-case
// hex ids that are not all zero, the sampled flag set -- anything else is no trace.
#include <iostream>
#include <string>

#include "tracing.hpp"

namespace {

int failures = 0;

void expect(const char *value, bool sampled, const char *trace = nullptr, const char *parent = nullptr) {
  std::string t, p;
  const bool got = tb::parse_traceparent(value, t, p);
  if (got != sampled || (sampled && (t != trace || p != parent))) {
    std::cerr << "FAIL " << (value ? value : "(null)") << ": got " << got << " " << t << " " << p << "\n";
    ++failures;
  }
}

}  // namespace

int main() {
  expect("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", true, "4bf92f3577b34da6a3ce929d0e0e4736",
         "00f067aa0ba902b7");
  expect("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-03", true, "4bf92f3577b34da6a3ce929d0e0e4736",
         "00f067aa0ba902b7");                                                 // other flags beside sampled
  expect("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", false);   // not sampled
  expect("00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", false);   // upper case
  expect("00-00000000000000000000000000000000-00f067aa0ba902b7-01", false);   // zero trace id
  expect("00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", false);   // zero parent id
  expect("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", false);   // another version
  expect("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-", false);  // too long
  expect("00-4bf92f3577b34da6a3ce929d0e0e473-600f067aa0ba902b7-01", false);   // dashes misplaced
  expect("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902bz-01", false);   // not hex
  expect("", false);
  expect(nullptr, false);
  std::cout << (failures ? "tracing_test: FAILED\n" : "tracing_test: ok\n");
  return failures ? 1 : 0;
}
