// See drain.hpp.
#include "drain.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

namespace tb {

extern std::atomic<bool> stopping;  // connection.hpp: what the server models wind down on

namespace {

const long kQuietMs = 1000;        // HAProxy checks every 1 s: one check, then quiet
const long kChecksGoneMs = 2500;   // more than two check intervals without a check
const long kWatchedMs = 5000;      // a check this recently: someone balances to us
const long kMaxMs = 8000;          // + the 9.5 s stop deadline < the grace of a container stop
const long kNever = -1000000000L;

std::atomic<bool> signalled{false};
std::atomic<long> began{-1};
std::atomic<long> last_request{kNever};
std::atomic<long> last_health{kNever};
std::atomic<bool> announced{false};

long now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

bool drain_is_done(long now, long began_at, long last_req, long last_chk, bool told) {
  if (began_at - last_chk > kWatchedMs || now - began_at >= kMaxMs) return true;
  return now - last_req >= kQuietMs && (told || now - last_chk >= kChecksGoneMs);
}

void drain_begin_from_signal() { signalled.store(true); }

void drain_request_done() { last_request.store(now_ms()); }

bool drain_health_checked() {
  last_health.store(now_ms());
  if (!signalled.load()) return false;
  announced.store(true);
  return true;
}

void start_drain_watcher() {
  std::thread([] {
    while (!signalled.load()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const long t0 = now_ms();
    began.store(t0);
    while (!drain_is_done(now_ms(), t0, last_request.load(), last_health.load(), announced.load()))
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (now_ms() - t0 > 0)
      std::fprintf(stderr, "tb-gsoap-server: left the balancer's rotation in %ld ms; stopping\n",
                   now_ms() - t0);
    stopping.store(true);
  }).detach();
}

}  // namespace tb
