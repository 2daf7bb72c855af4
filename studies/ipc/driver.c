/* One measurement: make the channel, start the server, wait until it is ready, start the
 * client (both are this program again, exec'd: two separate processes), reap both with
 * wait4 for their user and system time, remove the channel, check what arrived, print one
 * JSON line. Real time is the transfer's: from starting the client until both have exited.
 *
 * Bounded: the peers stop themselves at the deadline (alarm); the server gets SIGTERM when
 * it still waits GRACE_S after the client ended; anything alive DEADLINE + KILL_AFTER_S
 * after the start is killed. SIGINT/SIGTERM/SIGHUP: kill the peers, remove the channel,
 * exit 130. A SIGKILL of the whole process group (the study runner's timeout) leaves the
 * named object behind: the study's cleanup removes it by name (tb-ipc clean). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ipc.h"

#define READY_TIMEOUT_S 10.0
#define GRACE_S 3.0
#define KILL_AFTER_S 5.0

static volatile sig_atomic_t interrupted;
static void on_interrupt(int sig) { interrupted = sig; }

struct peer {
    const char *role;
    pid_t pid;
    int out;                  /* its stdout: 'R', then 'D' + struct ipc_result */
    double started, ended;
    int status, reaped;
    struct rusage ru;
    struct ipc_result res;
    int has_result;
};

static pid_t spawn(const struct ipc_opts *o, struct peer *p)
{
    char size[32], msgs[32], key[32], deadline[32], fds[32];
    snprintf(size, sizeof size, "%zu", o->size);
    snprintf(msgs, sizeof msgs, "%llu", (unsigned long long)o->messages);
    snprintf(key, sizeof key, "0x%lx", o->key);
    snprintf(deadline, sizeof deadline, "%d", o->deadline_s);
    snprintf(fds, sizeof fds, "%d,%d", o->fd_read, o->fd_write);
    const char *argv[] = {"tb-ipc", p->role, "--mech", o->mech, "--size", size, "--messages", msgs,
                          "--name", o->name, "--dir", o->dir, "--key", key, "--deadline", deadline,
                          "--fds", fds, o->inject ? "--inject" : NULL, o->inject, NULL};
    int pp[2];
    if (pipe2(pp, O_CLOEXEC) < 0)
        return -1;
    p->started = ipc_now();
    pid_t pid = fork();
    if (pid == 0) {
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGINT, SIG_DFL);
        dup2(pp[1], STDOUT_FILENO);
        execv("/proc/self/exe", (char *const *)argv);
        _exit(127);
    }
    close(pp[1]);
    p->pid = pid;
    p->out = pid < 0 ? (close(pp[0]), -1) : pp[0];
    return pid;
}

/* Read 'R' (ready) or 'D' + result from a peer's stdout; returns the marker, 0 at EOF. */
static int read_marker(struct peer *p)
{
    char c;
    ssize_t r;
    while ((r = read(p->out, &c, 1)) < 0 && errno == EINTR && !interrupted)
        ;
    if (r != 1)
        return 0;
    if (c == 'D') {
        size_t got = 0;
        while (got < sizeof p->res) {
            r = read(p->out, (char *)&p->res + got, sizeof p->res - got);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                return 0;
            got += (size_t)r;
        }
        p->has_result = 1;
    }
    return c;
}

static void reap(struct peer *peers, int n)
{
    int status;
    struct rusage ru;
    pid_t pid;
    while ((pid = wait4(-1, &status, WNOHANG, &ru)) > 0)
        for (int i = 0; i < n; i++)
            if (peers[i].pid == pid) {
                peers[i].reaped = 1;
                peers[i].status = status;
                peers[i].ru = ru;
                peers[i].ended = ipc_now();
            }
}

static void kill_all(struct peer *peers, int n, int sig)
{
    for (int i = 0; i < n; i++)
        if (peers[i].pid > 0 && !peers[i].reaped)
            kill(peers[i].pid, sig);
}

/* Wait for SIGCHLD (blocked, taken with sigtimedwait) until every peer is reaped. */
static void wait_peers(const struct ipc_opts *o, struct peer *peers, int n, double t0)
{
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    int termed = 0;
    for (;;) {
        reap(peers, n);
        int alive = 0;
        for (int i = 0; i < n; i++)
            alive += peers[i].pid > 0 && !peers[i].reaped;
        if (!alive)
            return;
        double now = ipc_now();
        if (interrupted || now > t0 + o->deadline_s + KILL_AFTER_S)
            kill_all(peers, n, SIGKILL);
        else if (!termed && n == 2 && peers[1].reaped && !peers[0].reaped && now > peers[1].ended + GRACE_S) {
            kill(peers[0].pid, SIGTERM);    /* the client is gone and the server still waits */
            termed = 1;
        }
        struct timespec ts = {0, 100 * 1000 * 1000};
        sigtimedwait(&chld, NULL, &ts);
    }
}

static void peer_json(const struct peer *p, int server)
{
    const struct ipc_result *r = &p->res;
    printf("\"%s\": {\"real_s\": %.6f, \"user_s\": %.6f, \"sys_s\": %.6f, ", p->role,
           p->reaped ? p->ended - p->started : -1.0,
           p->ru.ru_utime.tv_sec + p->ru.ru_utime.tv_usec / 1e6,
           p->ru.ru_stime.tv_sec + p->ru.ru_stime.tv_usec / 1e6);
    printf("\"exit\": %d, \"signal\": %d, \"loop_s\": %.6f, \"messages\": %llu, \"bytes\": %llu, "
           "\"checksum\": \"%016llx\", ",
           WIFEXITED(p->status) ? WEXITSTATUS(p->status) : -1, WIFSIGNALED(p->status) ? WTERMSIG(p->status) : 0,
           r->loop_s, (unsigned long long)r->messages, (unsigned long long)r->bytes,
           (unsigned long long)r->checksum);
    if (server)
        printf("\"order_errors\": %llu, \"first_order_error\": %lld, \"extra_bytes\": %llu, ",
               (unsigned long long)r->order_errors, r->order_errors ? (long long)r->first_order_error : -1LL,
               (unsigned long long)r->extra_bytes);
    printf("\"voluntary_switches\": %ld, \"involuntary_switches\": %ld, \"error\": ",
           p->ru.ru_nvcsw, p->ru.ru_nivcsw);
    ipc_json_string(stdout, p->has_result ? (r->error[0] ? r->error : NULL) : "no result (the process died)");
    printf("}");
}

/* Appends one reason to why ("; " between reasons). */
static void add(char *why, size_t len, const char *fmt, ...)
{
    size_t at = strlen(why);
    if (at && at + 2 < len)
        at += (size_t)snprintf(why + at, len - at, "; ");
    if (at + 1 >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why + at, len - at, fmt, ap);
    va_end(ap);
}

/* Why the data is wrong, or "" when every check passed. */
static void verdict(const struct ipc_opts *o, const struct peer *srv, const struct peer *cli, char *why, size_t len)
{
    unsigned long long want = o->messages, bytes = o->messages * o->size;
    const struct ipc_result *s = &srv->res, *c = &cli->res;
    why[0] = 0;
    if (!cli->has_result || c->error[0])
        add(why, len, "client: %s", cli->has_result ? c->error : "died without a result");
    if (!srv->has_result || s->error[0])
        add(why, len, "server: %s", srv->has_result ? s->error : "died without a result");
    if (s->messages != want || s->bytes != bytes)
        add(why, len, "server received %llu of %llu messages (%llu of %llu bytes)",
            (unsigned long long)s->messages, want, (unsigned long long)s->bytes, bytes);
    if (c->messages != want)
        add(why, len, "client sent %llu of %llu messages", (unsigned long long)c->messages, want);
    if (s->order_errors)
        add(why, len, "%llu messages out of order, the first at #%llu", (unsigned long long)s->order_errors,
            (unsigned long long)s->first_order_error);
    if (s->extra_bytes)
        add(why, len, "%llu bytes after the last message", (unsigned long long)s->extra_bytes);
    if (c->checksum != s->checksum)
        add(why, len, "checksum sent %016llx, received %016llx", (unsigned long long)c->checksum,
            (unsigned long long)s->checksum);
}

int ipc_run(const struct ipc_opts *o0)
{
    struct ipc_opts o = *o0;
    const struct ipc_mech *m = ipc_find(o.mech);
    char why[300], invalid[1024];
    size_t max = m->max_size(why, sizeof why);
    if (max && o.size > max) {
        fprintf(stderr, "tb-ipc: %s carries at most %zu bytes per message (%s); asked for %zu\n",
                o.mech, max, why, o.size);
        return 2;
    }
    struct sigaction sa = {.sa_handler = on_interrupt};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, NULL);

    m->destroy(&o);                       /* a leftover of a killed run of this name */
    if (m->create(&o) < 0) {
        fprintf(stderr, "tb-ipc: %s: %s\n", o.mech, ipc_error);
        return 2;
    }
    struct peer peers[2] = {{.role = "server"}, {.role = "client"}};
    double t0 = 0;
    int ok = spawn(&o, &peers[0]) > 0, n = 1;
    if (ok) {                             /* wait for 'R' */
        struct pollfd pf = {.fd = peers[0].out, .events = POLLIN};
        double until = ipc_now() + READY_TIMEOUT_S;
        int rc = 0;
        while (!interrupted && ipc_now() < until && (rc = poll(&pf, 1, 100)) == 0)
            ;
        ok = rc > 0 && read_marker(&peers[0]) == 'R';
    }
    if (ok) {
        t0 = ipc_now();
        ok = spawn(&o, &peers[1]) > 0;
        n = 2;
    }
    if (o.fd_read >= 0)                   /* the pipe: only the peers may hold its ends */
        close(o.fd_read), close(o.fd_write);
    if (!ok)
        kill_all(peers, n, SIGKILL);
    wait_peers(&o, peers, n, ok ? t0 : ipc_now());
    for (int i = 0; i < n; i++) {
        while (!peers[i].has_result && read_marker(&peers[i]) != 0)
            ;
        close(peers[i].out);
    }
    m->destroy(&o);
    if (interrupted) {
        fprintf(stderr, "tb-ipc: interrupted (signal %d); channel removed\n", (int)interrupted);
        return 130;
    }
    if (!ok) {
        if (peers[0].has_result)
            fprintf(stderr, "tb-ipc: %s: the server could not start: %s\n", o.mech, peers[0].res.error);
        else
            fprintf(stderr, "tb-ipc: %s: the server did not get ready within %.0f s\n", o.mech, READY_TIMEOUT_S);
        return 2;
    }
    verdict(&o, &peers[0], &peers[1], invalid, sizeof invalid);
    double end = peers[0].ended > peers[1].ended ? peers[0].ended : peers[1].ended;
    printf("{\"mechanism\": \"%s\", \"size\": %zu, \"messages\": %llu, \"bytes\": %llu, \"real_s\": %.6f, ",
           o.mech, o.size, (unsigned long long)o.messages, (unsigned long long)(o.messages * o.size),
           end - t0);
    printf("\"valid\": %s, \"invalid_reason\": ", invalid[0] ? "false" : "true");
    ipc_json_string(stdout, invalid[0] ? invalid : NULL);
    printf(", \"limit\": {\"max_size\": %zu, \"source\": ", max);
    ipc_json_string(stdout, why);
    printf("}, ");
    peer_json(&peers[1], 0);
    printf(", ");
    peer_json(&peers[0], 1);
    printf("}\n");
    return 0;
}
