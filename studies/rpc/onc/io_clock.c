/* read, write and poll, timed when io_time.on (io_clock.h). */
#define _GNU_SOURCE
#include "io_clock.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

#include "clock.h"

io_clock io_time;

typedef ssize_t (*read_fn)(int, void *, size_t);
typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef int (*poll_fn)(struct pollfd *, nfds_t, int);

static read_fn real_read;
static write_fn real_write;
static poll_fn real_poll;

static void resolve(void) {
  real_read = (read_fn)dlsym(RTLD_NEXT, "read");
  real_write = (write_fn)dlsym(RTLD_NEXT, "write");
  real_poll = (poll_fn)dlsym(RTLD_NEXT, "poll");
  if (!real_read || !real_write || !real_poll) abort();
}

ssize_t read(int fd, void *buf, size_t n) {
  if (!real_read) resolve();
  if (!io_time.on) return real_read(fd, buf, n);
  int64_t t = now_ns();
  ssize_t r = real_read(fd, buf, n);
  io_time.ns += now_ns() - t;
  if (r > 0) io_time.bytes_in += r;
  return r;
}

ssize_t write(int fd, const void *buf, size_t n) {
  if (!real_write) resolve();
  if (!io_time.on) return real_write(fd, buf, n);
  int64_t t = now_ns();
  ssize_t r = real_write(fd, buf, n);
  io_time.ns += now_ns() - t;
  if (r > 0) io_time.bytes_out += r;
  return r;
}

int poll(struct pollfd *fds, nfds_t n, int timeout_ms) {
  if (!real_poll) resolve();
  if (!io_time.on) return real_poll(fds, n, timeout_ms);
  int64_t t = now_ns();
  int r = real_poll(fds, n, timeout_ms);
  io_time.ns += now_ns() - t;
  return r;
}

int io_clock_real_poll(struct pollfd *fds, nfds_t n, int timeout_ms) {
  if (!real_poll) resolve();
  return real_poll(fds, n, timeout_ms);
}
