/* The measuring clients' shared parts (harness.h). */
#define _GNU_SOURCE
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"

static const char USAGE[] =
    "  --transport NAME      the transport (see the program's --help)\n"
    "  --size N              argument bytes 0..65536, or 'null' for the null procedure\n"
    "  --calls N             timed calls (default 10000)\n"
    "  --warmup N            untimed calls first (default 1000)\n"
    "  --idle-ms N           idle window after the calls, for the server's idle CPU (default 300)\n"
    "  --client-cpu N        pin this process to CPU N (default: not pinned)\n"
    "  --server-cpu N        pin the server to CPU N (default: not pinned)\n"
    "  --server PATH         the server program (started pinned, stopped at the end)\n"
    "  --connect ADDRESS     or: a server that runs already, at the address it printed\n"
    "  --dir PATH            a private directory for socket files\n"
    "  --raw-out PATH        per timed call: total_ns, client_ns\n"
    "  --server-raw-out PATH the server's per-request times\n"
    "  --timeout-s N         the whole run's deadline (default 300)\n"
    "  --server-extra ARG    (tests) one more argument for the server, e.g. --corrupt\n"
    "  --abort-after N       (tests) die after sending N bytes of a request\n";

const char *bench_usage(void) { return USAGE; }

static int number(const char *flag, const char *text, long lo, long hi, int *out, char *err, size_t errlen) {
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (errno || end == text || *end || v < lo || v > hi) {
    snprintf(err, errlen, "%s: '%s' is not a whole number in %ld..%ld", flag, text, lo, hi);
    return -1;
  }
  *out = (int)v;
  return 0;
}

int bench_parse(int argc, char **argv, bench_opts *o, const char *const *transports, char *err,
                size_t errlen) {
  *o = (bench_opts){.transport = NULL, .size = -1, .calls = 10000, .warmup = 1000, .idle_ms = 300,
                    .client_cpu = -1, .server_cpu = -1, .timeout_s = 300, .abort_after = -1};
  for (int i = 1; i < argc; i++) {
    const char *f = argv[i];
    if (i + 1 >= argc) {
      snprintf(err, errlen, "%s: needs a value (or unknown flag)", f);
      return -1;
    }
    const char *v = argv[++i];
    int rc = 0;
    if (!strcmp(f, "--transport")) o->transport = v;
    else if (!strcmp(f, "--size") && !strcmp(v, "null")) o->size = -1;
    else if (!strcmp(f, "--size")) rc = number(f, v, 0, 65536, &o->size, err, errlen);
    else if (!strcmp(f, "--calls")) rc = number(f, v, 1, 10000000, &o->calls, err, errlen);
    else if (!strcmp(f, "--warmup")) rc = number(f, v, 0, 10000000, &o->warmup, err, errlen);
    else if (!strcmp(f, "--idle-ms")) rc = number(f, v, 0, 60000, &o->idle_ms, err, errlen);
    else if (!strcmp(f, "--client-cpu")) rc = number(f, v, -1, 4095, &o->client_cpu, err, errlen);
    else if (!strcmp(f, "--server-cpu")) rc = number(f, v, -1, 4095, &o->server_cpu, err, errlen);
    else if (!strcmp(f, "--server")) o->server = v;
    else if (!strcmp(f, "--connect")) o->connect = v;
    else if (!strcmp(f, "--dir")) o->dir = v;
    else if (!strcmp(f, "--raw-out")) o->raw_out = v;
    else if (!strcmp(f, "--server-raw-out")) o->server_raw_out = v;
    else if (!strcmp(f, "--server-extra")) o->server_extra = v;
    else if (!strcmp(f, "--timeout-s")) rc = number(f, v, 1, 86400, &o->timeout_s, err, errlen);
    else if (!strcmp(f, "--abort-after")) rc = number(f, v, -1, INT_MAX, &o->abort_after, err, errlen);
    else {
      snprintf(err, errlen, "unknown flag %s", f);
      return -1;
    }
    if (rc) return -1;
  }
  int known = 0;
  for (const char *const *t = transports; *t && o->transport; t++) known |= !strcmp(*t, o->transport);
  if (!known) {
    char names[128] = "";
    for (const char *const *t = transports; *t; t++)
      snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", t == transports ? "" : ", ", *t);
    snprintf(err, errlen, "--transport: '%s' is not one of %s", o->transport ? o->transport : "", names);
    return -1;
  }
  if (!o->dir) {
    snprintf(err, errlen, "--dir: a private directory for socket files is required");
    return -1;
  }
  return 0;
}

int pin_to_cpu(int cpu) {
  if (cpu < 0) return 0;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof set, &set);
}

/* One line from fd within the deadline (without the newline): 0, or -1. */
static int read_line(int fd, char *buf, size_t cap, int64_t deadline) {
  size_t n = 0;
  while (n + 1 < cap) {
    int left = (int)((deadline - now_ns()) / 1000000);
    struct pollfd p = {fd, POLLIN, 0};
    if (left <= 0 || poll(&p, 1, left) <= 0) return -1;
    char ch;
    if (read(fd, &ch, 1) != 1) return -1;
    if (ch == '\n') break;
    buf[n++] = ch;
  }
  buf[n] = 0;
  return 0;
}

int server_start(server_proc *s, char *const argv[], int cpu, int timeout_ms, char *err, size_t errlen) {
  int out[2];
  memset(s, 0, sizeof *s);
  if (pipe2(out, O_CLOEXEC) != 0) {
    snprintf(err, errlen, "pipe: %s", strerror(errno));
    return -1;
  }
  pid_t parent = getpid();
  s->pid = fork();
  if (s->pid < 0) {
    snprintf(err, errlen, "fork: %s", strerror(errno));
    return -1;
  }
  if (s->pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* the server never outlives its client */
    if (getppid() != parent) _exit(127);
    if (cpu >= 0 && pin_to_cpu(cpu) != 0) _exit(126);
    dup2(out[1], STDOUT_FILENO);
    execv(argv[0], argv);
    fprintf(stderr, "cannot start %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  close(out[1]);
  s->out_fd = out[0];
  char line[sizeof s->ready - 8];
  int64_t deadline = now_ns() + (int64_t)timeout_ms * 1000000;
  while (read_line(s->out_fd, line, sizeof line, deadline) == 0) {
    if (!strncmp(line, "ready ", 6)) {
      snprintf(s->ready, sizeof s->ready, "%s", line + 6);
      return 0;
    }
  }
  int status, exited = 0; /* its stdout closed or the wait ran out: did it exit? (give it a second) */
  for (int64_t until = now_ns() + 1000000000; !(exited = waitpid(s->pid, &status, WNOHANG) == s->pid) && now_ns() < until;)
    usleep(5000);
  if (exited) {
    snprintf(err, errlen, "%s exited (status %d) before it reported ready", argv[0],
             WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    s->pid = 0;
    close(s->out_fd);
    return -1;
  }
  snprintf(err, errlen, "%s did not report ready within %d ms", argv[0], timeout_ms);
  char ignored[8];
  server_stop(s, ignored, sizeof ignored, 1000);
  return -1;
}

int server_stop(server_proc *s, char *json, size_t cap, int timeout_ms) {
  json[0] = 0;
  if (s->pid <= 0) return -1;
  kill(s->pid, SIGTERM);
  int64_t deadline = now_ns() + (int64_t)timeout_ms * 1000000;
  char line[4096];
  while (read_line(s->out_fd, line, sizeof line, deadline) == 0)
    if (line[0] == '{') snprintf(json, cap, "%s", line);
  int status = 0;
  while (waitpid(s->pid, &status, WNOHANG) == 0) {
    if (now_ns() >= deadline) {
      kill(s->pid, SIGKILL);
      waitpid(s->pid, &status, 0);
      break;
    }
    usleep(2000);
  }
  close(s->out_fd);
  s->pid = 0;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int64_t process_cpu_ns(pid_t pid) {
  clockid_t id;
  struct timespec ts;
  if (clock_getcpuclockid(pid, &id) != 0 || clock_gettime(id, &ts) != 0) return -1;
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ns on a CPU + ns waiting for one (the first two fields of /proc/PID/schedstat), or -1. */
static int64_t runnable_ns(pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/schedstat", (int)pid);
  FILE *f = fopen(path, "r");
  long long run = -1, wait = -1;
  if (f) {
    if (fscanf(f, "%lld %lld", &run, &wait) != 2) run = -1;
    fclose(f);
  }
  return run < 0 ? -1 : run + wait;
}

idle_use measure_idle(pid_t server, int idle_ms) {
  idle_use u = {-1, -1};
  if (idle_ms <= 0) return u;
  int64_t c0 = process_cpu_ns(server), r0 = runnable_ns(server), t0 = now_ns();
  struct timespec ts = {idle_ms / 1000, (long)(idle_ms % 1000) * 1000000};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
  int64_t c1 = process_cpu_ns(server), r1 = runnable_ns(server), t1 = now_ns();
  if (c0 >= 0 && c1 >= 0) u.cpu_pct = 100.0 * (double)(c1 - c0) / (double)(t1 - t0);
  if (r0 >= 0 && r1 >= 0) u.runnable_pct = 100.0 * (double)(r1 - r0) / (double)(t1 - t0);
  return u;
}

int write_pairs(const char *path, const char *h1, const char *h2, const int64_t *a, const int64_t *b,
                size_t n) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fprintf(f, "%s\t%s\n", h1, h2);
  for (size_t i = 0; i < n; i++) fprintf(f, "%lld\t%lld\n", (long long)a[i], (long long)b[i]);
  return fclose(f) == 0 ? 0 : -1;
}
