// Calibrated demand: CPU busy time measured on the calling thread's own CPU clock, sleep,
// and the process-wide lock that a LOCKED demand point holds while taking both.
#pragma once

#include <cstdint>

#include "config.hpp"

namespace tb {

// Busy-loops until this thread has used `micros` µs of CPU time (CLOCK_THREAD_CPUTIME_ID).
void burn_cpu_us(int64_t micros);
// Sleeps `micros` µs (wall time).
void sleep_us(int64_t micros);
// One demand point: take the lock if locked, burn, sleep, release. A zero demand is free.
void apply_demand(const Demand &d);

}  // namespace tb
