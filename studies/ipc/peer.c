/* The two loops of a measurement, over any mechanism: the client sends `messages` messages of
 * `size` bytes, the server receives them; each folds every message into its checksum, in the
 * order it sent or received it. A message starts with its sequence number (64 bits), the rest
 * is a fixed pseudo-random pattern, so loss, reordering and corruption all change what the
 * server computes. The server also checks each sequence number as it arrives and, on a byte
 * stream, that nothing follows the last message. Both report to the driver on stdout: one
 * byte 'R' when the server's channel is ready, then 'D' and a struct ipc_result.
 *
 * Tests only (--inject): the client simulates a faulty channel at the middle message while
 * reporting what it meant to send: drop (never sent), swap (sent after the next one), flip
 * (one byte changed). Measurements never use it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipc.h"

static struct ipc_result res;

static void on_stop(int sig) { ipc_stop = sig; }

/* Why a loop stopped early: the deadline (SIGALRM) or the driver (SIGTERM, after the client
 * had ended while the server still waited), or the call's own error. */
static const char *stop_text(void)
{
    if (!ipc_stop)
        return strerror(errno);
    return ipc_stop == SIGALRM ? "stopped at the deadline" : "stopped by the driver (the client had ended)";
}

static void emit(const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = write(STDOUT_FILENO, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        c += w;
        n -= (size_t)w;
    }
}

static void ready(void) { emit("R", 1); }

static void report(void)
{
    char out[1 + sizeof res];
    out[0] = 'D';
    memcpy(out + 1, &res, sizeof res);
    emit(out, sizeof out);
}

static void set_error(const char *fmt, uint64_t i, const char *detail)
{
    if (!res.error[0])
        snprintf(res.error, sizeof res.error, fmt, (unsigned long long)i, detail);
}

/* Message-oriented mechanisms move a message per call; a stream may take several. */
static int send_message(const struct ipc_mech *m, void *ch, const unsigned char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = m->send(ch, p, n);
        if (w < 0 && errno == EINTR && !ipc_stop)
            continue;
        if (w < 0)
            return -1;
        if (!m->stream && (size_t)w != n) {
            errno = EMSGSIZE;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Bytes of one message: n, fewer at end of stream, more for an oversized message, -1. */
static ssize_t recv_message(const struct ipc_mech *m, void *ch, unsigned char *p, size_t n)
{
    size_t got = 0;
    do {
        ssize_t r = m->recv(ch, p + got, n - got);
        if (r < 0 && errno == EINTR && !ipc_stop)
            continue;
        if (r < 0)
            return -1;
        if (!m->stream || r == 0)
            return r == 0 ? (ssize_t)got : r;
        got += (size_t)r;
    } while (got < n);
    return (ssize_t)got;
}

static void stamp(unsigned char *buf, uint64_t seq) { memcpy(buf, &seq, sizeof seq); }

static void fill_pattern(unsigned char *buf, size_t n)
{
    uint64_t x = 0x2545F4914F6CDD1DULL ^ n;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        buf[i] = (unsigned char)x;
    }
}

static void client(const struct ipc_opts *o, const struct ipc_mech *m, void *ch, unsigned char *buf,
                   unsigned char *spare)
{
    const char *inj = o->inject ? o->inject : "";
    uint64_t n = o->messages, fault = n / 2, i;
    fill_pattern(buf, o->size);
    memcpy(spare, buf, o->size);
    for (i = 0; i < n && !ipc_stop; i++) {
        stamp(buf, i);
        res.checksum = ipc_checksum(res.checksum, buf, o->size);
        res.messages++;
        res.bytes += o->size;
        if (i == fault && strcmp(inj, "drop") == 0)
            continue;
        if (i == fault && strcmp(inj, "flip") == 0) {
            buf[o->size - 1] ^= 0x01;
            int rc = send_message(m, ch, buf, o->size);
            buf[o->size - 1] ^= 0x01;
            if (rc < 0)
                break;
            continue;
        }
        if (i == fault && i + 1 < n && strcmp(inj, "swap") == 0) {
            stamp(spare, i + 1);
            res.checksum = ipc_checksum(res.checksum, spare, o->size);
            res.messages++;
            res.bytes += o->size;
            if (send_message(m, ch, spare, o->size) < 0 || send_message(m, ch, buf, o->size) < 0)
                break;
            i++;
            continue;
        }
        if (send_message(m, ch, buf, o->size) < 0)
            break;
    }
    if (i < n)
        set_error("send message %llu: %s", i, stop_text());
    res.done = i == n;
}

static void server(const struct ipc_opts *o, const struct ipc_mech *m, void *ch, unsigned char *buf)
{
    uint64_t n = o->messages, i, seq;
    for (i = 0; i < n; i++) {
        ssize_t r = recv_message(m, ch, buf, o->size);
        if (r < 0) {
            set_error("receive message %llu: %s", i, stop_text());
            break;
        }
        if ((size_t)r != o->size) {
            char what[80];
            snprintf(what, sizeof what, "%zd bytes, expected %zu%s", r, o->size,
                     m->stream ? " (end of stream)" : "");
            set_error("message %llu: %s", i, what);
            break;
        }
        memcpy(&seq, buf, sizeof seq);
        if (seq != i && res.order_errors++ == 0)
            res.first_order_error = i;
        res.checksum = ipc_checksum(res.checksum, buf, o->size);
        res.messages++;
        res.bytes += o->size;
    }
    res.done = i == n;
    if (res.done && m->stream) {          /* the client closes after its last message */
        ssize_t r;
        for (int k = 0; k < 1024 && (r = m->recv(ch, buf, o->size)) != 0; k++) {
            if (r < 0 && !(errno == EINTR && !ipc_stop))
                break;
            if (r > 0)
                res.extra_bytes += (uint64_t)r;
        }
    }
}

int ipc_peer_main(const struct ipc_opts *o, int is_server)
{
    struct sigaction sa = {.sa_handler = on_stop};   /* no SA_RESTART: blocking calls return */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);                        /* a gone reader is EPIPE, reported */
    alarm((unsigned)o->deadline_s);
    const struct ipc_mech *m = ipc_find(o->mech);
    unsigned char *mem = aligned_alloc(64, 2 * (IPC_HEADROOM + ((o->size + 63) / 64) * 64));
    if (!m || !mem) {
        snprintf(res.error, sizeof res.error, "%s", m ? "out of memory" : "unknown mechanism");
        report();
        return 1;
    }
    unsigned char *buf = mem + IPC_HEADROOM;
    unsigned char *spare = buf + ((o->size + 63) / 64) * 64 + IPC_HEADROOM;
    void *ch;
    if (m->open(o, is_server, ready, &ch) < 0) {
        snprintf(res.error, sizeof res.error, "%s", ipc_error);
        report();
        return 1;
    }
    double t0 = ipc_now();
    if (is_server)
        server(o, m, ch, buf);
    else
        client(o, m, ch, buf, spare);
    res.loop_s = ipc_now() - t0;
    m->close(ch);
    report();
    return res.done ? 0 : 1;
}
