// Synthetic demand (demand.hpp).
#include "demand.hpp"

#include <time.h>

#include <chrono>
#include <mutex>
#include <thread>

namespace tb {
namespace {

std::mutex demand_lock;  // the one process-wide lock of every LOCKED demand point

int64_t thread_cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

}  // namespace

void burn_cpu_us(int64_t micros) {
  if (micros <= 0) return;
  const int64_t end = thread_cpu_ns() + micros * 1000;
  volatile uint64_t sink = 0;
  while (thread_cpu_ns() < end)
    for (int i = 0; i < 200; ++i) sink = sink * 6364136223846793005ull + 1;
}

void sleep_us(int64_t micros) {
  if (micros > 0) std::this_thread::sleep_for(std::chrono::microseconds(micros));
}

void apply_demand(const Demand &d) {
  if (d.cpu_us <= 0 && d.wait_us <= 0) return;
  if (d.locked) {
    std::lock_guard<std::mutex> hold(demand_lock);
    burn_cpu_us(d.cpu_us);
    sleep_us(d.wait_us);
  } else {
    burn_cpu_us(d.cpu_us);
    sleep_us(d.wait_us);
  }
}

}  // namespace tb
