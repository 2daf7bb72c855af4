/* Time and CPU helpers shared by the study's programs (C and C++). */
#ifndef TB_RPC_CLOCK_H
#define TB_RPC_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Monotonic nanoseconds: one clock for every process on the host, so a client's and a
 * server's timestamps can be compared. */
static inline int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* One spin-wait pause: tells the core a spin loop runs (x86 PAUSE, arm YIELD). */
static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

#endif
