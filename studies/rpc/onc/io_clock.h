/* How long libtirpc spends inside its socket system calls, and how many bytes they move.
 *
 * libtirpc offers no transport callbacks, so the ONC programs define read, write and poll
 * themselves (io_clock.c): the dynamic linker binds libtirpc's calls to the program's own
 * definitions first, and those time the real libc functions (dlsym RTLD_NEXT). Only calls
 * made while the clock is on are counted; glibc's internal I/O is untouched. What is left
 * of a call outside these system calls is the RPC layer: XDR, record marking, stubs,
 * dispatch. Cost: two clock reads per system call (~40 ns). */
#ifndef TB_RPC_IO_CLOCK_H
#define TB_RPC_IO_CLOCK_H

#include <poll.h>
#include <stdint.h>

typedef struct io_clock {
  int on;
  int64_t ns;               /* inside read/write/poll since the last reset */
  int64_t bytes_in, bytes_out;
} io_clock;

extern io_clock io_time;

static inline void io_clock_reset(void) {
  io_time.ns = 0;
  io_time.bytes_in = io_time.bytes_out = 0;
}

/* The real poll, never counted: for the program's own waiting. */
int io_clock_real_poll(struct pollfd *fds, nfds_t n, int timeout_ms);

#endif
