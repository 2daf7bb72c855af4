/* rpc-shm-channel-test: the shared-memory transport between two real processes, in both
 * wait modes: bytes arrive whole and in order across the rings' wrap-around (a stream many
 * times the ring, cut into uneven pieces on both sides); a receive times out when nothing
 * comes; a peer that closes, or dies mid-message without a word, is noticed by a receiver
 * and by a sender blocked on a full ring. Exit 0 when every check passes. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/clock.h"
#include "../shm/shm_channel.h"

static int failures = 0;
#define CHECK(cond, ...)                                  \
  do {                                                    \
    if (!(cond)) {                                        \
      failures++;                                         \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                       \
      fprintf(stderr, "\n");                              \
    }                                                     \
  } while (0)

enum { STREAM = 1 << 20, TIMEOUT_MS = 5000 };

static uint32_t fnv(uint32_t h, const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
  return h;
}

static unsigned char byte_at(size_t i) { return (unsigned char)((i * 2654435761u) >> 13); }

/* The child side: connect, then do what the test asks. */
typedef void (*child_fn)(shm_chan *c);

static pid_t spawn(const char *path, enum shm_wait wait, child_fn fn) {
  pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    alarm(30);
    shm_chan c;
    if (shm_connect(path, &c, wait, TIMEOUT_MS) != 0) _exit(90);
    fn(&c);
    _exit(0);
  }
  return pid;
}

static int reap(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Reads the stream in uneven pieces, answers with its hash. */
static void child_hash(shm_chan *c) {
  static unsigned char buf[70001];
  uint32_t h = 2166136261u;
  size_t got = 0, piece = 1;
  while (got < STREAM) {
    size_t want = STREAM - got < piece ? STREAM - got : piece;
    long k = shm_recv(c, buf, want, TIMEOUT_MS);
    if (k <= 0) _exit(91);
    h = fnv(h, buf, (size_t)k);
    got += (size_t)k;
    piece = piece * 7 % sizeof buf + 1;
  }
  if (shm_send(c, &h, sizeof h, TIMEOUT_MS) != 0) _exit(92);
  unsigned char end;
  shm_recv(c, &end, 1, TIMEOUT_MS); /* the parent's close: 0 */
  shm_close(c);
}

static const char HALF[] = "POST /gsoap HTTP/1.1\r\nContent-Length: 400\r\n\r\n<Envel";

static void child_half_then_die(shm_chan *c) {
  shm_send(c, HALF, sizeof HALF - 1, TIMEOUT_MS);
  _exit(0); /* no shm_close: as if killed mid-call */
}

static void child_idle_then_die(shm_chan *c) {
  usleep(100000);
  kill(getpid(), SIGKILL);
}

static void child_idle_then_close(shm_chan *c) {
  usleep(300000);
  shm_close(c);
}

static void test_stream(const char *path, int lfd, enum shm_wait wait) {
  pid_t pid = spawn(path, wait, child_hash);
  shm_chan c;
  CHECK(shm_accept(lfd, &c, wait, TIMEOUT_MS) == 0, "accept (wait %d)", wait);
  static unsigned char buf[50003];
  uint32_t h = 2166136261u;
  size_t sent = 0, piece = 3;
  while (sent < STREAM) {
    size_t n = STREAM - sent < piece ? STREAM - sent : piece;
    for (size_t i = 0; i < n; i++) buf[i] = byte_at(sent + i);
    h = fnv(h, buf, n);
    CHECK(shm_send(&c, buf, n, TIMEOUT_MS) == 0, "send at %zu: %s", sent, strerror(errno));
    sent += n;
    piece = piece * 13 % sizeof buf + 1;
  }
  uint32_t echoed = 0;
  CHECK(shm_recv(&c, &echoed, sizeof echoed, TIMEOUT_MS) == sizeof echoed, "hash reply");
  CHECK(echoed == h, "the peer hashed %08x, sent %08x (wait %d)", echoed, h, wait);
  shm_close(&c);
  CHECK(reap(pid) == 0, "the hashing peer failed (wait %d)", wait);
}

static void test_receive_times_out_and_sees_an_orderly_close(const char *path, int lfd, enum shm_wait wait) {
  pid_t pid = spawn(path, wait, child_idle_then_close);
  shm_chan c;
  CHECK(shm_accept(lfd, &c, wait, TIMEOUT_MS) == 0, "accept");
  char b;
  errno = 0;
  CHECK(shm_recv(&c, &b, 1, 50) == -1 && errno == ETIMEDOUT, "a receive with nothing coming times out");
  CHECK(shm_peer_open(&c), "the peer is still open");
  CHECK(shm_recv(&c, &b, 1, TIMEOUT_MS) == 0, "an orderly close reads as end of stream");
  CHECK(!shm_peer_open(&c), "the peer is closed");
  shm_close(&c);
  reap(pid);
}

static void test_peer_dies_mid_message(const char *path, int lfd, enum shm_wait wait) {
  pid_t pid = spawn(path, wait, child_half_then_die);
  shm_chan c;
  CHECK(shm_accept(lfd, &c, wait, TIMEOUT_MS) == 0, "accept");
  char buf[4096];
  size_t got = 0;
  long k;
  int64_t t0 = now_ns();
  while ((k = shm_recv(&c, buf + got, sizeof buf - got, TIMEOUT_MS)) > 0) got += (size_t)k;
  CHECK(k == 0, "after the dead peer's bytes the receive says end of stream (got %ld)", k);
  CHECK(got == sizeof HALF - 1, "the bytes written before the death are delivered (%zu)", got);
  CHECK(now_ns() - t0 < (int64_t)TIMEOUT_MS * 1000000, "noticed before the deadline");
  CHECK(shm_wait_readable(&c, TIMEOUT_MS) == -1, "waiting for a next request reports the peer gone");
  shm_close(&c);
  reap(pid);
}

static void test_blocked_sender_sees_a_dead_peer(const char *path, int lfd, enum shm_wait wait) {
  pid_t pid = spawn(path, wait, child_idle_then_die);
  shm_chan c;
  CHECK(shm_accept(lfd, &c, wait, TIMEOUT_MS) == 0, "accept");
  static unsigned char big[3 * SHM_RING_BYTES];
  errno = 0;
  CHECK(shm_send(&c, big, sizeof big, TIMEOUT_MS) == -1 && errno == EPIPE,
        "a send into a full ring whose reader died fails with EPIPE (errno %d)", errno);
  shm_close(&c);
  reap(pid);
}

int main(void) {
  char dir[] = "/tmp/rpc-shm-test-XXXXXX";
  if (!mkdtemp(dir)) return 2;
  char path[64];
  snprintf(path, sizeof path, "%s/s", dir);
  int lfd = shm_listen(path);
  if (lfd < 0) return 2;
  enum shm_wait modes[] = {SHM_SPIN, SHM_FUTEX};
  for (int m = 0; m < 2; m++) {
    test_stream(path, lfd, modes[m]);
    test_receive_times_out_and_sees_an_orderly_close(path, lfd, modes[m]);
    test_peer_dies_mid_message(path, lfd, modes[m]);
    test_blocked_sender_sees_a_dead_peer(path, lfd, modes[m]);
  }
  close(lfd);
  unlink(path);
  rmdir(dir);
  printf("%s (%d failure(s))\n", failures ? "FAILED" : "ok", failures);
  return failures ? 1 : 0;
}
