/* rpc-onc-client: measures ONC RPC calls (rpc_bench.x) on one transport and argument size.
 * It starts rpc-onc-server (pinned to --server-cpu), connects to the address the server
 * printed -- a socket made here and connected by hand, then clnt_vc_create on it: no
 * portmapper, the same code for TCP and AF_LOCAL -- and makes --warmup, then --calls calls
 * of the null procedure (--size null) or of ECHO with --size bytes. Every reply is checked:
 * the echo must equal what was sent, byte for byte and length exact (each call's bytes
 * differ). Per timed call it writes total_ns and client_ns (the call minus the time inside
 * read/write/poll: XDR, record marking, the stub; onc/io_clock.h) to --raw-out.
 * Prints one JSON line; exit 0 when every call was answered and checked, 1 on a mismatch,
 * 3 on a failed call. Usage: rpc-onc-client --help. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "clock.h"
#include "harness.h"
#include "io_clock.h"
#include "rpc_bench.h"
#include "sockets.h"

static const char *const TRANSPORTS[] = {"tcp", "unix", NULL};
enum { BUF_BYTES = 65536 + 1024, IO_TIMEOUT_S = 10, START_TIMEOUT_MS = 10000 };

/* A client handle on a socket connected to the server's "tcp:HOST:PORT" / "unix:PATH". */
static CLIENT *connect_client(const char *address, int *fd) {
  struct sockaddr_storage ss;
  struct netbuf nb = {.buf = &ss};
  memset(&ss, 0, sizeof ss);
  if (!strncmp(address, "tcp:127.0.0.1:", 14)) {
    int port = atoi(address + 14);
    *fd = tcp_connect_loopback(port, 5000);
    struct sockaddr_in *a = (struct sockaddr_in *)&ss;
    a->sin_family = AF_INET;
    a->sin_port = htons((uint16_t)port);
    a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    nb.len = nb.maxlen = sizeof *a;
  } else if (!strncmp(address, "unix:", 5) && strlen(address + 5) < sizeof(struct sockaddr_un) - 2) {
    *fd = unix_connect(address + 5, 5000);
    struct sockaddr_un *a = (struct sockaddr_un *)&ss;
    a->sun_family = AF_UNIX;
    memcpy(a->sun_path, address + 5, strlen(address + 5) + 1);
    nb.len = nb.maxlen = sizeof *a;
  } else {
    return NULL;
  }
  if (*fd < 0) return NULL;
  CLIENT *c = clnt_vc_create(*fd, &nb, RPC_BENCH_PROG, RPC_BENCH_V1, BUF_BYTES, BUF_BYTES);
  struct timeval tv = {IO_TIMEOUT_S, 0};
  if (c) clnt_control(c, CLSET_TIMEOUT, (char *)&tv);
  return c;
}

int main(int argc, char **argv) {
  bench_opts o;
  char err[256] = "";
  if (argc == 2 && !strcmp(argv[1], "--help")) {
    printf("rpc-onc-client --transport tcp|unix --size null|N --server PATH --dir D [...]\n%s", bench_usage());
    return 0;
  }
  if (bench_parse(argc, argv, &o, TRANSPORTS, err, sizeof err) != 0 || !o.server) {
    fprintf(stderr, "rpc-onc-client: %s\n", err[0] ? err : "--server: the rpc-onc-server program is required");
    return 2;
  }
  alarm((unsigned)o.timeout_s); /* bounded: SIGALRM ends a run that hangs (the server dies with us) */
  char deadline[16];
  snprintf(deadline, sizeof deadline, "%d", o.timeout_s);
  char *sargv[12] = {(char *)o.server, "--transport", (char *)o.transport, "--dir", (char *)o.dir,
                     "--deadline-s", deadline, NULL};
  int n = 7;
  if (o.server_raw_out) {
    sargv[n++] = "--raw-out";
    sargv[n++] = (char *)o.server_raw_out;
  }
  if (o.server_extra) sargv[n++] = (char *)o.server_extra;
  server_proc srv;
  if (server_start(&srv, sargv, o.server_cpu, START_TIMEOUT_MS, err, sizeof err) != 0) {
    fprintf(stderr, "rpc-onc-client: %s\n", err);
    return 1;
  }
  pin_to_cpu(o.client_cpu);
  int fd = -1;
  CLIENT *clnt = connect_client(srv.ready, &fd);
  if (!clnt) {
    fprintf(stderr, "rpc-onc-client: cannot reach the server at %s: %s\n", srv.ready,
            clnt_spcreateerror("clnt_vc_create"));
    server_stop(&srv, err, sizeof err, 2000);
    return 1;
  }
  const int null_call = o.size < 0;
  echo_bytes arg = {.echo_bytes_len = null_call ? 0 : (u_int)o.size, .echo_bytes_val = malloc((size_t)o.size + 8)};
  int64_t *total = calloc((size_t)o.calls, sizeof *total), *client = calloc((size_t)o.calls, sizeof *client);
  if (!arg.echo_bytes_val || !total || !client) return 1;
  for (int i = 0; i < o.size; i++) arg.echo_bytes_val[i] = (char)(i * 131 + 7);
  const size_t stamp = o.size <= 0 ? 0 : o.size < (int)sizeof(int) ? (size_t)o.size : sizeof(int);
  int mismatches = 0, failed = 0;
  int64_t req_bytes = -1, resp_bytes = -1, cpu0 = 0, srv0 = 0, t0 = 0;
  char first_error[200] = "";
  for (int i = -o.warmup; i < o.calls && !failed; i++) {
    if (i == 0) {
      cpu0 = process_cpu_ns(0);
      srv0 = process_cpu_ns(srv.pid);
      t0 = now_ns();
    }
    memcpy(arg.echo_bytes_val, &i, stamp); /* every call's bytes differ */
    io_clock_reset();
    io_time.on = 1;
    int64_t a = now_ns();
    void *res = null_call ? rpc_bench_null_1(NULL, clnt) : (void *)rpc_bench_echo_1(&arg, clnt);
    int64_t b = now_ns();
    io_time.on = 0;
    if (!res) {
      failed = 1;
      snprintf(first_error, sizeof first_error, "%s", clnt_sperror(clnt, "call"));
      break;
    }
    if (!null_call) {
      echo_bytes *got = res;
      if (got->echo_bytes_len != arg.echo_bytes_len ||
          memcmp(got->echo_bytes_val, arg.echo_bytes_val, arg.echo_bytes_len) != 0)
        mismatches++;
      clnt_freeres(clnt, (xdrproc_t)xdr_echo_bytes, (caddr_t)got);
    }
    if (i >= 0) {
      total[i] = b - a;
      client[i] = b - a - io_time.ns;
    }
    if (i == 0) {
      req_bytes = io_time.bytes_out;
      resp_bytes = io_time.bytes_in;
    }
  }
  int64_t wall = now_ns() - t0, cpu = process_cpu_ns(0) - cpu0, srv_cpu = process_cpu_ns(srv.pid) - srv0;
  idle_use idle = failed ? (idle_use){-1, -1} : measure_idle(srv.pid, o.idle_ms);
  clnt_destroy(clnt);
  close(fd);
  char sjson[1024];
  int sstatus = server_stop(&srv, sjson, sizeof sjson, 5000);
  if (failed) {
    fprintf(stderr, "rpc-onc-client: %s\n", first_error);
    return 3;
  }
  if (o.raw_out && write_pairs(o.raw_out, "total_ns", "client_ns", total, client, (size_t)o.calls) != 0) {
    fprintf(stderr, "rpc-onc-client: cannot write %s\n", o.raw_out);
    return 1;
  }
  printf("{\"program\": \"onc\", \"transport\": \"%s\", \"size\": %d, \"calls\": %d, \"warmup\": %d, "
         "\"checked\": %d, \"ok\": %d, \"mismatches\": %d, \"request_bytes\": %lld, \"response_bytes\": %lld, "
         "\"client_cpu\": %d, \"server_cpu\": %d, \"client_cpu_us_per_call\": %.3f, "
         "\"server_cpu_us_per_call\": %.3f, \"wall_us_per_call\": %.3f, \"server_idle_cpu_pct\": %.1f, "
         "\"server_idle_runnable_pct\": %.1f, \"server_address\": \"%s\", \"server_exit\": %d, \"server\": %s}\n",
         o.transport, o.size, o.calls, o.warmup, o.warmup + o.calls, o.warmup + o.calls - mismatches, mismatches, (long long)req_bytes,
         (long long)resp_bytes, o.client_cpu, o.server_cpu, cpu / 1e3 / o.calls, srv_cpu / 1e3 / o.calls,
         wall / 1e3 / o.calls, idle.cpu_pct, idle.runnable_pct, srv.ready, sstatus, sjson[0] ? sjson : "null");
  return mismatches ? 1 : 0;
}
