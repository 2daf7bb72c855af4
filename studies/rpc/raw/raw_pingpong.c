/* rpc-raw-pingpong: the floor under the RPC systems. A message of --size bytes goes to an
 * echo peer and comes back, on the same transports the RPC programs use:
 *   tcp        TCP over 127.0.0.1, TCP_NODELAY
 *   unix       a Unix-domain stream socket
 *   shm-spin   the shared-memory rings (shm/shm_channel.h), both sides spinning
 *   shm-futex  the same rings, both sides sleeping in futex waits
 * The peer is a forked child pinned to --server-cpu; this process is pinned to --client-cpu.
 * Each timed round trip is checked (the echo equals what was sent; each call's bytes
 * differ) and written to --raw-out as total_ns with client_ns = 0 (no RPC layer here).
 * Prints one JSON line; the half round trip is the classic "raw latency". */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../common/clock.h"
#include "../common/harness.h"
#include "../common/sockets.h"
#include "../shm/shm_channel.h"

static const char *const TRANSPORTS[] = {"tcp", "unix", "shm-spin", "shm-futex", NULL};
enum { IO_TIMEOUT_MS = 10000 };

typedef struct link {
  int fd;       /* tcp, unix */
  shm_chan shm; /* shm-* */
  int is_shm;
} link_t;

static int link_send(link_t *l, const unsigned char *buf, size_t n) {
  if (l->is_shm) return shm_send(&l->shm, buf, n, IO_TIMEOUT_MS);
  return write_full(l->fd, buf, n);
}

/* Exactly n bytes: 0, or -1 on EOF, error or timeout. */
static int link_recv(link_t *l, unsigned char *buf, size_t n) {
  while (n > 0) {
    long k;
    if (l->is_shm) k = shm_recv(&l->shm, buf, n, IO_TIMEOUT_MS);
    else k = recv(l->fd, buf, n, MSG_WAITALL); /* one system call per message, bounded by SO_RCVTIMEO */
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    buf += k;
    n -= (size_t)k;
  }
  return 0;
}

static void bound_socket(int fd) {
  struct timeval tv = {IO_TIMEOUT_MS / 1000, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

/* The echo peer: until the client goes, every message straight back. */
static void echo(link_t *l, size_t size) {
  unsigned char *buf = malloc(size);
  while (buf && link_recv(l, buf, size) == 0 && link_send(l, buf, size) == 0) {
  }
  _exit(0);
}

static int cmp64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  bench_opts o;
  char err[256] = "";
  if (argc == 2 && !strcmp(argv[1], "--help")) {
    printf("rpc-raw-pingpong --transport tcp|unix|shm-spin|shm-futex --size N --dir D [...]\n%s", bench_usage());
    return 0;
  }
  if (bench_parse(argc, argv, &o, TRANSPORTS, err, sizeof err) != 0) {
    fprintf(stderr, "rpc-raw-pingpong: %s\n", err);
    return 2;
  }
  if (o.size < 1) {
    fprintf(stderr, "rpc-raw-pingpong: --size: a raw message needs at least 1 byte\n");
    return 2;
  }
  alarm((unsigned)o.timeout_s); /* bounded: SIGALRM ends a run that hangs */
  const size_t size = (size_t)o.size;
  const int is_shm = !strncmp(o.transport, "shm-", 4);
  const enum shm_wait wait = !strcmp(o.transport, "shm-spin") ? SHM_SPIN : SHM_FUTEX;
  char path[300];
  snprintf(path, sizeof path, "%s/raw.sock", o.dir);
  int port = 0;
  int lfd = !strcmp(o.transport, "tcp") ? tcp_listen_loopback(&port) : unix_listen(path);
  if (lfd < 0) {
    fprintf(stderr, "rpc-raw-pingpong: cannot listen: %s\n", strerror(errno));
    return 1;
  }
  pid_t parent = getpid();
  pid_t peer = fork();
  if (peer == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);
    pin_to_cpu(o.server_cpu);
    link_t l = {.fd = -1, .is_shm = is_shm};
    if (is_shm ? shm_accept(lfd, &l.shm, wait, IO_TIMEOUT_MS) : (l.fd = accept_within(lfd, IO_TIMEOUT_MS)) < 0) _exit(1);
    if (!is_shm) bound_socket(l.fd);
    echo(&l, size);
  }
  close(lfd);
  pin_to_cpu(o.client_cpu);
  link_t l = {.fd = -1, .is_shm = is_shm};
  int rc = is_shm ? shm_connect(path, &l.shm, wait, IO_TIMEOUT_MS)
                  : (l.fd = !strcmp(o.transport, "tcp") ? tcp_connect_loopback(port, IO_TIMEOUT_MS)
                                                        : unix_connect(path, IO_TIMEOUT_MS)) < 0 ? -1 : 0;
  if (rc != 0) {
    fprintf(stderr, "rpc-raw-pingpong: cannot connect to the echo peer: %s\n", strerror(errno));
    kill(peer, SIGKILL);
    return 1;
  }
  if (!is_shm) bound_socket(l.fd);
  if (strcmp(o.transport, "tcp")) unlink(path); /* connected: the socket file is no longer needed */
  unsigned char *out = malloc(size), *in = malloc(size);
  int64_t *total = calloc((size_t)o.calls, sizeof *total), *zero = calloc((size_t)o.calls, sizeof *zero);
  if (!out || !in || !total || !zero) return 1;
  for (size_t i = 0; i < size; i++) out[i] = (unsigned char)(i * 131 + 7);
  int bad = 0, failed = 0;
  int64_t cpu0 = 0, peer0 = 0, t0 = 0;
  for (int i = -o.warmup; i < o.calls && !failed; i++) {
    if (i == 0) {
      cpu0 = process_cpu_ns(0);
      peer0 = process_cpu_ns(peer);
      t0 = now_ns();
    }
    memcpy(out, &i, size < sizeof i ? size : sizeof i); /* every call's bytes differ */
    int64_t a = now_ns();
    failed = link_send(&l, out, size) != 0 || link_recv(&l, in, size) != 0;
    int64_t b = now_ns();
    if (!failed && memcmp(in, out, size) != 0) bad++;
    if (i >= 0) total[i] = b - a;
  }
  int64_t wall = now_ns() - t0, cpu = process_cpu_ns(0) - cpu0, peer_cpu = process_cpu_ns(peer) - peer0;
  idle_use idle = failed ? (idle_use){-1, -1} : measure_idle(peer, o.idle_ms);
  if (is_shm) shm_close(&l.shm);
  else close(l.fd);
  int status = 0;
  for (int64_t deadline = now_ns() + 5000000000LL; waitpid(peer, &status, WNOHANG) == 0;) {
    if (now_ns() >= deadline) {
      kill(peer, SIGKILL);
      waitpid(peer, &status, 0);
      break;
    }
    usleep(1000);
  }
  if (failed) {
    fprintf(stderr, "rpc-raw-pingpong: the exchange failed (%s)\n", strerror(errno));
    return 3;
  }
  if (o.raw_out && write_pairs(o.raw_out, "total_ns", "client_ns", total, zero, (size_t)o.calls) != 0) {
    fprintf(stderr, "rpc-raw-pingpong: cannot write %s\n", o.raw_out);
    return 1;
  }
  qsort(total, (size_t)o.calls, sizeof *total, cmp64);
  printf("{\"program\": \"raw\", \"transport\": \"%s\", \"size\": %d, \"calls\": %d, \"warmup\": %d, "
         "\"checked\": %d, \"ok\": %d, \"mismatches\": %d, \"request_bytes\": %d, \"response_bytes\": %d, "
         "\"median_ns\": %lld, \"client_cpu\": %d, \"server_cpu\": %d, "
         "\"client_cpu_us_per_call\": %.3f, \"server_cpu_us_per_call\": %.3f, \"wall_us_per_call\": %.3f, "
         "\"server_idle_cpu_pct\": %.1f, \"server_idle_runnable_pct\": %.1f, \"shm_sleeps\": %llu}\n",
         o.transport, o.size, o.calls, o.warmup, o.warmup + o.calls, o.warmup + o.calls - bad, bad, o.size, o.size,
         (long long)total[o.calls / 2], o.client_cpu, o.server_cpu, cpu / 1e3 / o.calls,
         peer_cpu / 1e3 / o.calls, wall / 1e3 / o.calls, idle.cpu_pct, idle.runnable_pct,
         (unsigned long long)(is_shm ? l.shm.sleeps : 0));
  return bad ? 1 : 0;
}
