/* Shared-memory ring, the upper bound: no kernel on the data path. The driver makes the
 * POSIX shared memory object /<name> (shm_open, removed with shm_unlink) holding one
 * single-producer single-consumer byte ring of RING_BYTES; both peers map it. The client
 * copies each message in, the server copies it out (two copies, like a pipe's), and each
 * publishes its position with an atomic store. A side that must wait spins briefly, then
 * sleeps on a futex the other side wakes (so two processes on one core still progress);
 * sleeps last at most 100 ms, so the deadline is always seen.
 * Everything a kernel mechanism does for free is this file's job, and some of it is missing:
 * no end of stream, no notice when the peer dies (only the deadline), one reader only. */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <stdlib.h>

#include "ipc.h"

#define RING_BYTES (256 * 1024)   /* 4 messages of the sweep's largest size, 64 KiB */
#define SPINS 2000                /* polls before sleeping: a few microseconds */

struct ring {
    _Alignas(64) _Atomic uint64_t head;      /* bytes written, ever (client) */
    _Alignas(64) _Atomic uint64_t tail;      /* bytes read, ever (server) */
    _Alignas(64) _Atomic uint32_t data_ev;   /* futex word: bumped when head moved for a sleeper */
    _Atomic uint32_t server_sleeps;
    _Alignas(64) _Atomic uint32_t space_ev;  /* futex word: bumped when tail moved for a sleeper */
    _Atomic uint32_t client_sleeps;
    _Alignas(64) uint64_t cap;
    _Alignas(64) unsigned char data[];
};

static size_t limit(char *why, size_t len)
{
    snprintf(why, len, "the ring's size, %d bytes (this program's choice)", RING_BYTES);
    return RING_BYTES;
}

static void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

static void futex_wait(_Atomic uint32_t *w, uint32_t seen)
{
    struct timespec ts = {0, 100 * 1000 * 1000};
    syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT, seen, &ts, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *w)
{
    syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE, 1, NULL, NULL, 0);
}

/* Wait until the ring holds n bytes (server) or has room for n (client). The sleeper sets its
 * flag, then looks again; the other side moves its position, then reads the flag: with
 * sequentially consistent atomics one of the two always sees the other. */
static int wait_for(struct ring *r, int server, size_t n)
{
#define READY() (server ? atomic_load(&r->head) - atomic_load(&r->tail) >= n \
                        : r->cap - (atomic_load(&r->head) - atomic_load(&r->tail)) >= n)
    for (int i = 0; i < SPINS; i++) {
        if (READY())
            return 0;
        relax();
    }
    _Atomic uint32_t *ev = server ? &r->data_ev : &r->space_ev;
    _Atomic uint32_t *sleeps = server ? &r->server_sleeps : &r->client_sleeps;
    for (;;) {
        if (ipc_stop) {
            errno = EINTR;
            return -1;
        }
        uint32_t seen = atomic_load(ev);
        atomic_store(sleeps, 1);
        if (READY()) {
            atomic_store(sleeps, 0);
            return 0;
        }
        futex_wait(ev, seen);
        atomic_store(sleeps, 0);
        if (READY())
            return 0;
    }
#undef READY
}

/* Wake the other side if it sleeps. Taking its flag (exchange) makes one wake per sleep:
 * the messages written before it is back on a core do not each pay a futex call. */
static void wake(_Atomic uint32_t *ev, _Atomic uint32_t *sleeps)
{
    if (atomic_exchange(sleeps, 0)) {
        atomic_fetch_add(ev, 1);
        futex_wake(ev);
    }
}

static size_t total(void) { return sizeof(struct ring) + RING_BYTES; }

static int create(struct ipc_opts *o)
{
    char name[300];
    ipc_posix_name(o, name, sizeof name);
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0)
        return ipc_fail("shm_open", name);
    if (ftruncate(fd, (off_t)total()) < 0) {
        close(fd);
        return ipc_fail("ftruncate", name);
    }
    struct ring *r = mmap(NULL, total(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (r == MAP_FAILED)
        return ipc_fail("mmap", name);
    r->cap = RING_BYTES;        /* the rest is zero: an empty ring */
    munmap(r, total());
    return 0;
}

static int open_(const struct ipc_opts *o, int server, void (*ready)(void), void **ch)
{
    char name[300];
    ipc_posix_name(o, name, sizeof name);
    int fd = shm_open(name, O_RDWR | O_CLOEXEC, 0);
    if (fd < 0)
        return ipc_fail("shm_open", name);
    struct ring *r = mmap(NULL, total(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (r == MAP_FAILED)
        return ipc_fail("mmap", name);
    if (server)
        ready();
    *ch = r;
    return 0;
}

static ssize_t send_(void *ch, const void *buf, size_t n)
{
    struct ring *r = ch;
    if (n > r->cap) {
        errno = EMSGSIZE;
        return -1;
    }
    if (wait_for(r, 0, n) < 0)
        return -1;
    uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    size_t at = head % r->cap, first = n < r->cap - at ? n : r->cap - at;
    memcpy(r->data + at, buf, first);
    memcpy(r->data, (const char *)buf + first, n - first);
    atomic_store(&r->head, head + n);
    wake(&r->data_ev, &r->server_sleeps);
    return (ssize_t)n;
}

static ssize_t recv_(void *ch, void *buf, size_t n)
{
    struct ring *r = ch;
    if (n > r->cap) {
        errno = EMSGSIZE;
        return -1;
    }
    if (wait_for(r, 1, n) < 0)
        return -1;
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    size_t at = tail % r->cap, first = n < r->cap - at ? n : r->cap - at;
    memcpy(buf, r->data + at, first);
    memcpy((char *)buf + first, r->data, n - first);
    atomic_store(&r->tail, tail + n);
    wake(&r->space_ev, &r->client_sleeps);
    return (ssize_t)n;
}

static void close_(void *ch) { munmap(ch, total()); }

static void destroy(const struct ipc_opts *o)
{
    char name[300];
    ipc_posix_name(o, name, sizeof name);
    shm_unlink(name);
}

const struct ipc_mech ipc_shm_ring = {
    .name = "shm-ring", .what = "shared-memory ring (the upper bound)", .stream = 0,
    .max_size = limit, .create = create, .open = open_, .send = send_,
    .recv = recv_, .close = close_, .destroy = destroy,
};
