/* POSIX message queue: the driver creates /<name> (mq_open O_CREAT|O_EXCL) with the message
 * size of the run and the system's default depth, and removes it (mq_unlink); the server
 * opens it for reading, the client for writing. Like System V's, it lives in the kernel
 * until removed (listed under /dev/mqueue where that is mounted).
 * Limits: a message is at most fs.mqueue.msgsize_max bytes; a queue holds
 * fs.mqueue.msg_default messages unless asked for more (at most fs.mqueue.msg_max). */
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <stdlib.h>

#include "ipc.h"

static size_t limit(char *why, size_t len)
{
    long max = ipc_read_proc_long("/proc/sys/fs/mqueue/msgsize_max");
    snprintf(why, len, "fs.mqueue.msgsize_max = %ld bytes per message; depth fs.mqueue.msg_default = %ld "
             "(msg_max %ld)", max, ipc_read_proc_long("/proc/sys/fs/mqueue/msg_default"),
             ipc_read_proc_long("/proc/sys/fs/mqueue/msg_max"));
    return max > 0 ? (size_t)max : 1;
}

static long depth(void)
{
    long d = ipc_read_proc_long("/proc/sys/fs/mqueue/msg_default");
    return d > 0 ? d : 10;
}

static int create(struct ipc_opts *o)
{
    char name[300];
    ipc_posix_name(o, name, sizeof name);
    struct mq_attr a = {.mq_maxmsg = depth(), .mq_msgsize = (long)o->size};
    mqd_t q = mq_open(name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600, &a);
    if (q == (mqd_t)-1)
        return ipc_fail("mq_open", name);
    mq_close(q);
    return 0;
}

struct queue {
    mqd_t q;
};

static int open_(const struct ipc_opts *o, int server, void (*ready)(void), void **ch)
{
    char name[300];
    ipc_posix_name(o, name, sizeof name);
    struct queue *c = malloc(sizeof *c);
    if (!c)
        return ipc_fail("malloc", "queue");
    c->q = mq_open(name, (server ? O_RDONLY : O_WRONLY) | O_CLOEXEC);
    if (c->q == (mqd_t)-1) {
        free(c);
        return ipc_fail("mq_open", name);
    }
    if (server)
        ready();
    *ch = c;
    return 0;
}

static ssize_t send_(void *ch, const void *buf, size_t n)
{
    return mq_send(((struct queue *)ch)->q, buf, n, 0) < 0 ? -1 : (ssize_t)n;
}

/* The buffer must hold mq_msgsize bytes: the queue was made with the run's size, n. */
static ssize_t recv_(void *ch, void *buf, size_t n)
{
    return mq_receive(((struct queue *)ch)->q, buf, n, NULL);
}

static void close_(void *ch)
{
    mq_close(((struct queue *)ch)->q);
    free(ch);
}

static void destroy(const struct ipc_opts *o)
{
    char name[300];
    ipc_posix_name(o, name, sizeof name);
    mq_unlink(name);
}

const struct ipc_mech ipc_posix_mq = {
    .name = "posix-mq", .what = "POSIX message queue", .stream = 0,
    .max_size = limit, .create = create, .open = open_, .send = send_,
    .recv = recv_, .close = close_, .destroy = destroy,
};
