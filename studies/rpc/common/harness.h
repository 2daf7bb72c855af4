/* What every measuring client of the study shares: its command line, pinning itself and its
 * server to CPUs, starting the server as a child (it dies with the client), the CPU time
 * the server burns, and the per-call file it writes.
 *
 * A measuring client is one process: it starts its server, waits for the server's
 * "ready <address>" line, makes `warmup` calls, then `calls` timed calls (each checked),
 * then leaves the connection open and idle for idle_ms while it reads the server's CPU
 * clock, then stops the server (SIGTERM) and prints one JSON line. */
#ifndef TB_RPC_HARNESS_H
#define TB_RPC_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bench_opts {
  const char *transport;
  int size;            /* argument bytes; -1 = the null procedure */
  int calls, warmup;   /* timed calls, and untimed calls before them */
  int idle_ms;         /* the idle window after the calls: the server's CPU while it waits */
  int client_cpu;      /* -1: not pinned */
  int server_cpu;
  const char *server;  /* the server program */
  const char *connect; /* instead: the address of a server that runs already (its "ready" text) */
  const char *dir;     /* a private directory for socket files (the caller removes it) */
  const char *raw_out; /* per timed call: total_ns, client_ns (TSV); NULL: not written */
  const char *server_raw_out; /* the server's per-request file */
  int timeout_s;       /* the whole run's deadline (SIGALRM) */
  const char *server_extra; /* tests: one more argument for the server (e.g. --corrupt) */
  int abort_after;     /* shm tests: the client dies after this many request bytes (-1: never) */
} bench_opts;

/* Parses argv into o (defaults first). transports: NULL-terminated names accepted.
 * 0, or -1 with a message naming the flag in err. */
int bench_parse(int argc, char **argv, bench_opts *o, const char *const *transports, char *err,
                size_t errlen);
const char *bench_usage(void);

/* Pins the calling thread (and what it starts later) to one CPU; cpu < 0 does nothing. */
int pin_to_cpu(int cpu);

typedef struct server_proc {
  pid_t pid;
  int out_fd;       /* the server's stdout */
  char ready[256];  /* its "ready ..." line, without "ready " */
} server_proc;

/* Starts argv[0] pinned to cpu, with stdout piped back, killed if this process dies; waits
 * for its "ready <address>" line. 0, or -1 with the reason in err. */
int server_start(server_proc *s, char *const argv[], int cpu, int timeout_ms, char *err, size_t errlen);
/* SIGTERM, then the last JSON line it printed (into json, "" if none) and its exit status;
 * SIGKILL when it does not stop within timeout_ms. */
int server_stop(server_proc *s, char *json, size_t cap, int timeout_ms);
/* CPU time (user + system) a process used so far, ns; -1 when unknown. */
int64_t process_cpu_ns(pid_t pid);

/* The idle window: sleeps idle_ms while the server waits for a request. cpu_pct is the CPU
 * it used (% of one core); runnable_pct the share of the window it was running or waiting
 * for a CPU (/proc/PID/schedstat): a spinning server wants 100 % even when a busy host
 * gives it less. -1 when unknown. */
typedef struct idle_use {
  double cpu_pct, runnable_pct;
} idle_use;
idle_use measure_idle(pid_t server, int idle_ms);

/* Per-call pairs (ns) written as TSV with a header line; 0 or -1. */
int write_pairs(const char *path, const char *h1, const char *h2, const int64_t *a, const int64_t *b,
                size_t n);

#ifdef __cplusplus
}
#endif
#endif
