// ctest: the drain rule (src/drain.hpp), the same cases as java-common's DrainTest.
#include <atomic>
#include <iostream>

#include "drain.hpp"

namespace tb {
std::atomic<bool> stopping{false};  // drain.cpp's watcher sets it; connection.cpp is not linked
}

namespace {

int failures = 0;

void expect(const char *name, bool got, bool want) {
  if (got != want) {
    std::cerr << "FAIL " << name << ": got " << got << ", want " << want << "\n";
    ++failures;
  }
}

const long kNever = -1000000000L;

}  // namespace

int main() {
  // not watched: no health check in the 5 s before the signal, so no draining at all
  expect("unwatched stops at once", tb::drain_is_done(10000, 10000, 9990, kNever, false), true);
  // watched (checked at 9500), signal at 10000, a request at 10400, announced at 10800
  expect("nobody told yet", tb::drain_is_done(10500, 10000, 10400, 9500, false), false);
  expect("told, but a request 400 ms ago", tb::drain_is_done(10800, 10000, 10400, 10800, true), false);
  expect("told and quiet for 1 s", tb::drain_is_done(11400, 10000, 10400, 10800, true), true);
  // the balancer is gone: checks stopped coming 2.5 s ago
  expect("checks stopped 2.4 s ago", tb::drain_is_done(11900, 10000, kNever, 9500, false), false);
  expect("checks stopped 2.5 s ago", tb::drain_is_done(12000, 10000, kNever, 9500, false), true);
  // never longer than 8 s, however busy
  expect("busy at 7.9 s", tb::drain_is_done(17900, 10000, 17890, 17800, true), false);
  expect("busy at 8 s", tb::drain_is_done(18000, 10000, 17990, 17900, true), true);
  if (failures == 0) std::cout << "drain rule: all cases pass\n";
  return failures == 0 ? 0 : 1;
}
