/* A user-level transport between two processes on one host: a shared-memory segment with
 * two single-producer/single-consumer byte rings (client -> server, server -> client), the
 * analogue of the classic study's socket-over-VIA. Sending and receiving are loads, stores
 * and copies in user space; the kernel is entered only to sleep and wake (futex variant) or
 * never (spin variant, which burns its CPU while it waits).
 *
 * A session starts on a Unix-domain socket at a known path (the rendezvous): the server
 * accepts, creates an anonymous memfd segment, and hands its descriptor to the client over
 * that socket (SCM_RIGHTS). The socket then stays open, carrying nothing: its hang-up is how
 * either side learns that the other has gone, also when it died without a word. Nothing
 * is left behind: the memfd has no name, and the segment vanishes with its last mapping.
 *
 * Waiting (SHM_SPIN or SHM_FUTEX) is each side's own choice; a writer wakes a reader only
 * when the reader said it sleeps, so spinning readers cost writers nothing. Every wait has
 * a deadline and looks at the peer's liveness at least every SHM_LIVENESS_MS.
 */
#ifndef TB_RPC_SHM_CHANNEL_H
#define TB_RPC_SHM_CHANNEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum shm_wait { SHM_SPIN = 1, SHM_FUTEX = 2 };

#define SHM_RING_BYTES (1u << 17) /* per direction: a 4 KiB sendBytes request (~75 KB of XML) fits */
#define SHM_LIVENESS_MS 20        /* a waiting side looks for the peer's hang-up this often */

struct shm_region; /* the shared segment: layout private to shm_channel.c */

typedef struct shm_chan {
  struct shm_region *region;
  size_t map_bytes;
  int ctl_fd;    /* the session's Unix socket (-1 when closed) */
  int side;      /* 0 server, 1 client: which ring is ours to write */
  int wait;      /* enum shm_wait */
  int peer_gone; /* sticky: the peer closed or died */
  uint64_t sleeps; /* futex waits that actually slept (statistics) */
} shm_chan;

/* The rendezvous socket at path (an old socket file there is replaced): fd, or -1 (errno). */
int shm_listen(const char *path);
/* Accept one client within timeout_ms and set the session up: 0, or -1 (timeout or error). */
int shm_accept(int listen_fd, shm_chan *c, enum shm_wait wait, int timeout_ms);
/* Connect to the rendezvous at path and map the segment the server hands over: 0 or -1. */
int shm_connect(const char *path, shm_chan *c, enum shm_wait wait, int timeout_ms);

/* Writes all n bytes, waiting for room while the ring is full: 0, or -1 when the peer is
 * gone (errno EPIPE) or the deadline passed (ETIMEDOUT). */
int shm_send(shm_chan *c, const void *buf, size_t n, int timeout_ms);
/* Reads what is there, up to n bytes, waiting for the first: >0 bytes; 0 when the peer is
 * gone and nothing is left to read; -1 when the deadline passed (errno ETIMEDOUT). */
long shm_recv(shm_chan *c, void *buf, size_t n, int timeout_ms);
/* 1 when bytes are waiting, 0 on timeout, -1 when the peer is gone and nothing is left. */
int shm_wait_readable(shm_chan *c, int timeout_ms);
/* Cheap, no system call: 0 once the peer said it closed (or was seen gone). */
int shm_peer_open(const shm_chan *c);
/* 1 when the peer said it closed (shm_close) -- as opposed to dying without a word. */
int shm_peer_closed_in_order(const shm_chan *c);
/* Orderly close: tell the peer, unmap, close the socket. Safe to call twice. */
void shm_close(shm_chan *c);
/* As shm_close, for when someone else already closed ctl_fd. */
void shm_forget(shm_chan *c);

#ifdef __cplusplus
}
#endif
#endif
