/* The shared-memory transport (shm_channel.h). */
#define _GNU_SOURCE
#include "shm_channel.h"

#include <errno.h>
#include <linux/futex.h>
#include <poll.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "../common/clock.h"
#include "../common/sockets.h"

#define SHM_MAGIC 0x74627368u /* "tbsh" */

/* One direction. head and tail count bytes (mod 2^32); each is the futex word its waiter
 * sleeps on. The two halves sit on their own cache lines: the writer owns head, the
 * reader owns tail. */
struct shm_ring {
  _Alignas(64) _Atomic uint32_t head; /* bytes written */
  _Atomic uint32_t reader_sleeps;     /* the reader is (about to be) asleep on head */
  _Alignas(64) _Atomic uint32_t tail; /* bytes read */
  _Atomic uint32_t writer_sleeps;     /* the writer is (about to be) asleep on tail: ring full */
  _Alignas(64) unsigned char data[SHM_RING_BYTES];
};

struct shm_region {
  uint32_t magic, ring_bytes;
  _Atomic uint32_t closed[2]; /* [side]: that side closed in order */
  struct shm_ring ring[2];    /* [0] client -> server, [1] server -> client */
};

static struct shm_ring *tx(shm_chan *c) { return &c->region->ring[c->side == 1 ? 0 : 1]; }
static struct shm_ring *rx(shm_chan *c) { return &c->region->ring[c->side == 1 ? 1 : 0]; }

static long futex(_Atomic uint32_t *word, int op, uint32_t val, const struct timespec *t) {
  /* not FUTEX_PRIVATE_FLAG: the word lives in memory shared by two processes */
  return syscall(SYS_futex, (uint32_t *)word, op, val, t, NULL, 0);
}

/* Did the peer go? Its closed flag, else the session socket: it never carries data after
 * the handshake, so readable or hung up both mean the peer's end was closed. */
static int peer_gone(shm_chan *c) {
  if (c->peer_gone) return 1;
  if (atomic_load(&c->region->closed[1 - c->side])) return c->peer_gone = 1;
  struct pollfd p = {c->ctl_fd, POLLIN | POLLRDHUP, 0};
  if (c->ctl_fd < 0 || poll(&p, 1, 0) != 0) return c->peer_gone = 1;
  return 0;
}

/* Wait until *word differs from seen: 1 changed, 0 deadline, -1 peer gone. */
static int wait_change(shm_chan *c, _Atomic uint32_t *word, uint32_t seen, _Atomic uint32_t *sleeps,
                       int64_t deadline) {
  const int64_t liveness_ns = (int64_t)SHM_LIVENESS_MS * 1000000;
  if (c->wait == SHM_SPIN) {
    int64_t next_look = now_ns() + liveness_ns;
    for (uint64_t i = 1;; i++) {
      if (atomic_load_explicit(word, memory_order_acquire) != seen) return 1;
      cpu_relax();
      if ((i & 1023) == 0) { /* the clock every ~1024 pauses, the socket every liveness_ns */
        int64_t t = now_ns();
        if (t >= next_look) {
          if (peer_gone(c)) return atomic_load(word) != seen ? 1 : -1;
          next_look = t + liveness_ns;
        }
        if (t >= deadline) return 0;
      }
    }
  }
  for (;;) {
    atomic_store(sleeps, 1); /* seq_cst: ordered before the writer's check of this flag */
    if (atomic_load(word) != seen) {
      atomic_store(sleeps, 0);
      return 1;
    }
    int64_t left = deadline - now_ns();
    if (left <= 0) {
      atomic_store(sleeps, 0);
      return 0;
    }
    if (left > liveness_ns) left = liveness_ns;
    struct timespec ts = {left / 1000000000, left % 1000000000};
    if (futex(word, FUTEX_WAIT, seen, &ts) == 0) c->sleeps++;
    atomic_store(sleeps, 0);
    if (atomic_load(word) != seen) return 1;
    if (peer_gone(c)) return atomic_load(word) != seen ? 1 : -1;
  }
}

static int64_t deadline_of(int timeout_ms) { return now_ns() + (int64_t)timeout_ms * 1000000; }

int shm_send(shm_chan *c, const void *buf, size_t n, int timeout_ms) {
  struct shm_ring *r = tx(c);
  const unsigned char *p = buf;
  const uint32_t size = c->region->ring_bytes;
  const int64_t deadline = deadline_of(timeout_ms);
  while (n > 0) {
    if (c->peer_gone || atomic_load_explicit(&c->region->closed[1 - c->side], memory_order_relaxed)) {
      c->peer_gone = 1;
      errno = EPIPE;
      return -1;
    }
    uint32_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    uint32_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
    uint32_t room = size - (head - tail);
    if (room == 0) {
      int w = wait_change(c, &r->tail, tail, &r->writer_sleeps, deadline);
      if (w <= 0) {
        errno = w < 0 ? EPIPE : ETIMEDOUT;
        return -1;
      }
      continue;
    }
    uint32_t k = n < room ? (uint32_t)n : room;
    uint32_t at = head & (size - 1);
    uint32_t first = k < size - at ? k : size - at;
    memcpy(r->data + at, p, first);
    memcpy(r->data, p + first, k - first);
    atomic_store(&r->head, head + k); /* seq_cst: before the look at reader_sleeps */
    if (atomic_load(&r->reader_sleeps)) futex(&r->head, FUTEX_WAKE, 1, NULL);
    p += k;
    n -= k;
  }
  return 0;
}

long shm_recv(shm_chan *c, void *buf, size_t n, int timeout_ms) {
  struct shm_ring *r = rx(c);
  const uint32_t size = c->region->ring_bytes;
  uint32_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
  uint32_t head = atomic_load_explicit(&r->head, memory_order_acquire);
  if (head == tail) {
    int w = wait_change(c, &r->head, tail, &r->reader_sleeps, deadline_of(timeout_ms));
    if (w < 0) return 0;
    if (w == 0) {
      errno = ETIMEDOUT;
      return -1;
    }
    head = atomic_load_explicit(&r->head, memory_order_acquire);
  }
  uint32_t avail = head - tail;
  uint32_t k = n < avail ? (uint32_t)n : avail;
  uint32_t at = tail & (size - 1);
  uint32_t first = k < size - at ? k : size - at;
  memcpy(buf, r->data + at, first);
  memcpy((unsigned char *)buf + first, r->data, k - first);
  atomic_store(&r->tail, tail + k); /* seq_cst: before the look at writer_sleeps */
  if (atomic_load(&r->writer_sleeps)) futex(&r->tail, FUTEX_WAKE, 1, NULL);
  return (long)k;
}

int shm_wait_readable(shm_chan *c, int timeout_ms) {
  struct shm_ring *r = rx(c);
  uint32_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
  if (atomic_load_explicit(&r->head, memory_order_acquire) != tail) return 1;
  return wait_change(c, &r->head, tail, &r->reader_sleeps, deadline_of(timeout_ms));
}

int shm_peer_open(const shm_chan *c) {
  return c->region && !c->peer_gone && !atomic_load_explicit(&c->region->closed[1 - c->side], memory_order_relaxed);
}

int shm_peer_closed_in_order(const shm_chan *c) {
  return c->region && atomic_load(&c->region->closed[1 - c->side]);
}

static void release(shm_chan *c, int close_fd) {
  if (c->region) {
    atomic_store(&c->region->closed[c->side], 1);
    /* a peer asleep in a futex wait learns at once rather than at its next liveness look */
    futex(&rx(c)->tail, FUTEX_WAKE, 1, NULL);
    futex(&tx(c)->head, FUTEX_WAKE, 1, NULL);
    munmap(c->region, c->map_bytes);
    c->region = NULL;
  }
  if (close_fd && c->ctl_fd >= 0) close(c->ctl_fd);
  c->ctl_fd = -1;
}

void shm_close(shm_chan *c) { release(c, 1); }
void shm_forget(shm_chan *c) { release(c, 0); }

int shm_listen(const char *path) { return unix_listen(path); }

static void init_chan(shm_chan *c, struct shm_region *region, size_t bytes, int fd, int side,
                      enum shm_wait wait) {
  memset(c, 0, sizeof *c);
  c->region = region;
  c->map_bytes = bytes;
  c->ctl_fd = fd;
  c->side = side;
  c->wait = wait;
}

int shm_accept(int listen_fd, shm_chan *c, enum shm_wait wait, int timeout_ms) {
  int fd = accept_within(listen_fd, timeout_ms);
  if (fd < 0) return -1;
  const size_t bytes = sizeof(struct shm_region);
  int mem = memfd_create("tb-rpc-shm", MFD_CLOEXEC);
  void *map = MAP_FAILED;
  if (mem >= 0 && ftruncate(mem, (off_t)bytes) == 0)
    map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, mem, 0);
  if (map == MAP_FAILED) {
    if (mem >= 0) close(mem);
    close(fd);
    return -1;
  }
  struct shm_region *region = map; /* a fresh memfd reads as zeros: counters and flags start at 0 */
  region->ring_bytes = SHM_RING_BYTES;
  region->magic = SHM_MAGIC;
  int sent = send_fd(fd, mem);
  close(mem); /* the mapping keeps the segment; the client holds its own descriptor */
  if (sent != 0) {
    munmap(map, bytes);
    close(fd);
    return -1;
  }
  init_chan(c, region, bytes, fd, 0, wait);
  return 0;
}

int shm_connect(const char *path, shm_chan *c, enum shm_wait wait, int timeout_ms) {
  int fd = unix_connect(path, timeout_ms);
  if (fd < 0) return -1;
  int mem = recv_fd(fd, timeout_ms);
  struct stat st;
  void *map = MAP_FAILED;
  if (mem >= 0 && fstat(mem, &st) == 0 && (size_t)st.st_size == sizeof(struct shm_region))
    map = mmap(NULL, sizeof(struct shm_region), PROT_READ | PROT_WRITE, MAP_SHARED, mem, 0);
  if (mem >= 0) close(mem);
  if (map == MAP_FAILED || ((struct shm_region *)map)->magic != SHM_MAGIC) {
    if (map != MAP_FAILED) munmap(map, sizeof(struct shm_region));
    close(fd);
    errno = EPROTO;
    return -1;
  }
  init_chan(c, map, sizeof(struct shm_region), fd, 1, wait);
  return 0;
}
