/* System V message queue (the classic study's "message queue"): the driver creates the queue
 * with the run's key (msgget IPC_CREAT|IPC_EXCL) and removes it (IPC_RMID); the peers look it
 * up by the key. One message per msgsnd/msgrcv, type 1. The queue lives in the kernel until
 * removed, whoever made it: if nobody removes it, it stays (ipcs -q shows it).
 * Limits: a message is at most kernel.msgmax bytes (EINVAL otherwise); a queue holds at most
 * kernel.msgmnb bytes, so at 8 KiB messages only two fit. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>

#include "ipc.h"

_Static_assert(sizeof(long) <= IPC_HEADROOM, "mtype must fit in the headroom");

static size_t limit(char *why, size_t len)
{
    long max = ipc_read_proc_long("/proc/sys/kernel/msgmax");
    long mnb = ipc_read_proc_long("/proc/sys/kernel/msgmnb");
    snprintf(why, len, "kernel.msgmax = %ld bytes per message; a queue holds kernel.msgmnb = %ld bytes", max, mnb);
    return max > 0 ? (size_t)max : 1;
}

struct queue {
    int id;
};

static int create(struct ipc_opts *o)
{
    char key[32];
    snprintf(key, sizeof key, "key 0x%lx", o->key);
    return msgget((key_t)o->key, IPC_CREAT | IPC_EXCL | 0600) < 0 ? ipc_fail("msgget", key) : 0;
}

static int open_(const struct ipc_opts *o, int server, void (*ready)(void), void **ch)
{
    char key[32];
    snprintf(key, sizeof key, "key 0x%lx", o->key);
    struct queue *q = malloc(sizeof *q);
    if (!q)
        return ipc_fail("malloc", "queue");
    q->id = msgget((key_t)o->key, 0);
    if (q->id < 0) {
        free(q);
        return ipc_fail("msgget", key);
    }
    if (server)
        ready();
    *ch = q;
    return 0;
}

/* The message is struct { long mtype; char mtext[n]; }: mtype goes into the headroom just
 * before the data (IPC_HEADROOM), so the data is not copied into another buffer first. */
static ssize_t send_(void *ch, const void *buf, size_t n)
{
    long *mtype = (long *)((char *)buf - sizeof(long));
    *mtype = 1;
    return msgsnd(((struct queue *)ch)->id, mtype, n, 0) < 0 ? -1 : (ssize_t)n;
}

static ssize_t recv_(void *ch, void *buf, size_t n)
{
    return msgrcv(((struct queue *)ch)->id, (char *)buf - sizeof(long), n, 0, 0);
}

static void close_(void *ch) { free(ch); }

static void destroy(const struct ipc_opts *o)
{
    int id = msgget((key_t)o->key, 0);
    if (id >= 0)
        msgctl(id, IPC_RMID, NULL);
}

const struct ipc_mech ipc_sysv_mq = {
    .name = "sysv-mq", .what = "System V message queue", .stream = 0,
    .max_size = limit, .create = create, .open = open_, .send = send_,
    .recv = recv_, .close = close_, .destroy = destroy,
};
