/* The IPC throughput study's programs (docs/method.md, "IPC throughput"): one interface for a one-way
 * channel between two processes, seven implementations of it (mech_*.c), the client and
 * server loops that run over any of them (peer.c), and the driver that starts both as
 * separate processes and measures them (driver.c). main.c parses the command line. */
#ifndef TB_IPC_H
#define TB_IPC_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* What every process of one measurement is told (the driver passes it on the command line). */
struct ipc_opts {
    const char *mech;       /* mechanism name, e.g. "fifo" */
    size_t size;            /* bytes per message (>= IPC_MIN_SIZE) */
    uint64_t messages;      /* messages the client sends */
    const char *name;       /* base name of every named object: "tb-ipc.<pid>" */
    const char *dir;        /* directory of the FIFO and socket paths */
    long key;               /* System V message queue key */
    int deadline_s;         /* each peer stops after this long, whatever happened */
    int fd_read, fd_write;  /* pipe: the descriptors the peers inherit (-1 otherwise) */
    const char *inject;     /* tests only: drop | swap | flip (peer.c), NULL in measurements */
};

#define IPC_MIN_SIZE 8      /* every message starts with its 64-bit sequence number */
#define IPC_HEADROOM 64     /* message buffers start this far into their allocation: room for a
                               mechanism's header (System V's mtype) so no mechanism copies twice */
#define IPC_PATH_MAX 108    /* sun_path */

/* A one-way channel. Functions return 0 / a byte count, or -1 with errno set; a failure's
 * text goes to ipc_error (below). ready() is called by the server's open when the client may
 * start (after listen/bind; before a FIFO's blocking open). */
struct ipc_mech {
    const char *name;
    const char *what;                     /* one line for people */
    int stream;                           /* a byte stream: messages are read with a loop, EOF is checked */
    /* largest message (0 = no limit of its own); why: where the limit comes from */
    size_t (*max_size)(char *why, size_t whylen);
    int (*create)(struct ipc_opts *o);    /* driver, before the server starts: make the object */
    int (*open)(const struct ipc_opts *o, int server, void (*ready)(void), void **ch);
    ssize_t (*send)(void *ch, const void *buf, size_t n);
    ssize_t (*recv)(void *ch, void *buf, size_t n);
    void (*close)(void *ch);
    void (*destroy)(const struct ipc_opts *o);   /* driver: remove the object; idempotent */
};

/* A channel that is one file descriptor (sockets, FIFO, pipe): fdchan.c. */
int ipc_fdchan(int fd, void **ch);                 /* wraps fd; 0 */
ssize_t ipc_fd_write(void *ch, const void *buf, size_t n);
ssize_t ipc_fd_read(void *ch, void *buf, size_t n);
void ipc_fd_close(void *ch);
int ipc_fd_of(void *ch);

extern const struct ipc_mech ipc_unix_stream, ipc_unix_dgram, ipc_fifo, ipc_pipe,
    ipc_sysv_mq, ipc_posix_mq, ipc_shm_ring;
extern const struct ipc_mech *const ipc_mechs[];   /* NULL-terminated */
const struct ipc_mech *ipc_find(const char *name);

/* Set by SIGALRM (the deadline) and SIGTERM (the driver gives up): blocking calls return EINTR
 * (handlers are installed without SA_RESTART) and every loop checks it. */
extern volatile sig_atomic_t ipc_stop;

/* The last failure, for the result: "mq_open /tb-ipc.1: No such file or directory". */
extern char ipc_error[256];
int ipc_fail(const char *what, const char *object);   /* sets ipc_error from errno; returns -1 */

/* Paths and names of the named objects, from o->dir and o->name. */
void ipc_path(const struct ipc_opts *o, const char *suffix, char *out, size_t len);
void ipc_posix_name(const struct ipc_opts *o, char *out, size_t len);   /* "/<name>" */
long ipc_read_proc_long(const char *path);            /* -1 when unreadable */
struct sockaddr_un;
/* The Unix socket address <dir>/<name><suffix>; -1 (ipc_error set) when the path is too long. */
int ipc_unix_address(const struct ipc_opts *o, const char *suffix, struct sockaddr_un *a);

/* Order-sensitive 64-bit checksum, chained message by message (checksum.c). */
uint64_t ipc_checksum(uint64_t h, const void *buf, size_t n);

/* The peers' loops (peer.c) and what they report to the driver. */
struct ipc_result {
    uint64_t messages, bytes, checksum;
    uint64_t order_errors, first_order_error;  /* messages whose sequence number was not the next */
    uint64_t extra_bytes;                      /* stream: bytes after the last expected message */
    double loop_s;                             /* from the open channel to the end of the loop */
    int done;                                  /* the loop ran to its end */
    char error[256];
};
int ipc_peer_main(const struct ipc_opts *o, int server);

/* The measurement: both peers as separate processes, timed, checked; prints one JSON line
 * (driver.c). Returns 0 when it printed a result (valid or not), 2 when it could not start. */
int ipc_run(const struct ipc_opts *o);
/* Remove every object a measurement with these names could have made (all mechanisms). */
void ipc_clean(struct ipc_opts *o);
/* One JSON line: each mechanism's largest message and where the limit comes from. */
void ipc_print_limits(void);
void ipc_json_string(FILE *f, const char *s);

double ipc_now(void);   /* CLOCK_MONOTONIC seconds */

#endif
