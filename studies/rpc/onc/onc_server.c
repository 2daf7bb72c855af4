/* rpc-onc-server: the ONC RPC server of the RPC latency study (rpc_bench.x), over TCP on
 * 127.0.0.1 or a Unix-domain socket, without a portmapper:
 *   the listening socket is made here (an ephemeral loopback port, or a path), handed to
 *   libtirpc's svc_vc_create, and the program registered with svc_register(..., protocol 0),
 *   which tells libtirpc not to contact rpcbind. The address goes to stdout as
 *   "ready tcp:127.0.0.1:PORT" or "ready unix:PATH"; rpc-onc-client connects to it.
 * One client at a time; serves until SIGTERM/SIGINT or --deadline-s, then writes one line per
 * request to --raw-out (span_ns: the request readable -> the reply written; server_ns: the
 * span minus the time in read/write/poll, i.e. XDR decode, dispatch, the procedure, XDR
 * encode, record marking) and prints a JSON line. --corrupt (tests) flips one byte of every
 * echo, so that a client's check has something to catch. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "io_clock.h"
#include "rpc_bench.h"
#include "sockets.h"

enum { BUF_BYTES = 65536 + 1024, SLICE_MS = 200 };

static volatile sig_atomic_t stopping = 0;
static int corrupt = 0;

static void on_stop(int sig) { stopping = 1; }

void *rpc_bench_null_1_svc(void *arg, struct svc_req *req) {
  static char nothing;
  return &nothing; /* non-NULL: the dispatcher sends the (void) reply */
}

echo_bytes *rpc_bench_echo_1_svc(echo_bytes *arg, struct svc_req *req) {
  static echo_bytes result;
  result = *arg; /* the argument's buffer: encoded into the reply before the dispatcher frees it */
  if (corrupt && result.echo_bytes_len > 0) result.echo_bytes_val[result.echo_bytes_len - 1] ^= 0x5a;
  return &result;
}

extern void rpc_bench_prog_1(struct svc_req *, SVCXPRT *); /* rpcgen's dispatcher (rpc_bench_svc.c) */

typedef struct {
  int64_t *span, *server;
  size_t n, cap;
} records;

static void record(records *r, int64_t span, int64_t server) {
  if (r->n == r->cap) {
    size_t cap = r->cap ? r->cap * 2 : 16384;
    int64_t *a = realloc(r->span, cap * sizeof *a), *b = realloc(r->server, cap * sizeof *b);
    if (!a || !b) return;
    r->span = a;
    r->server = b;
    r->cap = cap;
  }
  r->span[r->n] = span;
  r->server[r->n++] = server;
}

int main(int argc, char **argv) {
  const char *transport = NULL, *dir = NULL, *raw_out = NULL;
  int deadline_s = 600;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--corrupt")) corrupt = 1;
    else if (i + 1 < argc && !strcmp(argv[i], "--transport")) transport = argv[++i];
    else if (i + 1 < argc && !strcmp(argv[i], "--dir")) dir = argv[++i];
    else if (i + 1 < argc && !strcmp(argv[i], "--raw-out")) raw_out = argv[++i];
    else if (i + 1 < argc && !strcmp(argv[i], "--deadline-s")) deadline_s = atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: rpc-onc-server --transport tcp|unix --dir DIR [--raw-out PATH] "
                      "[--deadline-s N] [--corrupt]\n");
      return 2;
    }
  }
  int is_tcp = transport && !strcmp(transport, "tcp");
  if (!transport || (!is_tcp && strcmp(transport, "unix")) || !dir || deadline_s <= 0) {
    fprintf(stderr, "rpc-onc-server: --transport tcp|unix and --dir are required\n");
    return 2;
  }
  struct sigaction sa = {.sa_handler = on_stop};
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  char path[300];
  snprintf(path, sizeof path, "%s/onc.sock", dir);
  int port = 0;
  int fd = is_tcp ? tcp_listen_loopback(&port) : unix_listen(path);
  SVCXPRT *xprt = fd < 0 ? NULL : svc_vc_create(fd, BUF_BYTES, BUF_BYTES);
  if (!xprt || !svc_register(xprt, RPC_BENCH_PROG, RPC_BENCH_V1, rpc_bench_prog_1, 0 /* no rpcbind */)) {
    fprintf(stderr, "rpc-onc-server: cannot listen on %s: %s\n", is_tcp ? "127.0.0.1" : path, strerror(errno));
    return 1;
  }
  if (is_tcp) printf("ready tcp:127.0.0.1:%d\n", port);
  else printf("ready unix:%s\n", path);
  fflush(stdout);

  records rec = {0};
  const int64_t end = now_ns() + (int64_t)deadline_s * 1000000000;
  while (!stopping && now_ns() < end) {
    int ready = io_clock_real_poll(svc_pollfd, (nfds_t)svc_max_pollfd, SLICE_MS);
    if (ready <= 0) continue;
    int request = 0; /* a connection (not the listener) is readable: a request came */
    for (int i = 0; i < svc_max_pollfd; i++)
      if (svc_pollfd[i].fd >= 0 && svc_pollfd[i].fd != fd && svc_pollfd[i].revents & POLLIN) request = 1;
    int64_t t0 = now_ns();
    io_clock_reset();
    io_time.on = 1;
    svc_getreq_poll(svc_pollfd, ready);
    io_time.on = 0;
    int64_t span = now_ns() - t0;
    if (request && io_time.bytes_out > 0) record(&rec, span, span - io_time.ns);
  }
  svc_destroy(xprt);
  if (!is_tcp) unlink(path);
  FILE *f = raw_out ? fopen(raw_out, "w") : NULL;
  if (f) {
    fprintf(f, "span_ns\tserver_ns\n");
    for (size_t i = 0; i < rec.n; i++) fprintf(f, "%lld\t%lld\n", (long long)rec.span[i], (long long)rec.server[i]);
    fclose(f);
  }
  printf("{\"program\": \"rpc-onc-server\", \"requests\": %zu, \"raw_written\": %s}\n", rec.n,
         f ? "true" : "false");
  return 0;
}
