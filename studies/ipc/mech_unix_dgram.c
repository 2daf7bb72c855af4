/* Unix domain datagram socket: the server binds <dir>/<name>.dgram, the client connects to it
 * and sends one datagram per message. On Linux a Unix datagram is never dropped or reordered:
 * a sender blocks while the receiver's queue is full (net.unix.max_dgram_qlen datagrams, and
 * the socket buffers). A datagram can be at most the sender's socket buffer (SO_SNDBUF,
 * net.core.wmem_default by default) less 32 bytes: longer ones fail with EMSGSIZE. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ipc.h"

static size_t limit(char *why, size_t len)
{
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), sndbuf = 0;
    socklen_t sl = sizeof sndbuf;
    if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &sl) < 0 || sndbuf <= 32) {
        snprintf(why, len, "could not read SO_SNDBUF: %s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return 1;            /* nothing fits: every size is skipped, and the reason says why */
    }
    close(fd);
    snprintf(why, len, "SO_SNDBUF %d - 32 (net.core.wmem_default); queue net.unix.max_dgram_qlen = %ld",
             sndbuf, ipc_read_proc_long("/proc/sys/net/unix/max_dgram_qlen"));
    return (size_t)sndbuf - 32;
}

static int create(struct ipc_opts *o) { (void)o; return 0; }   /* the server binds */

static int open_(const struct ipc_opts *o, int server, void (*ready)(void), void **ch)
{
    struct sockaddr_un a;
    if (ipc_unix_address(o, ".dgram", &a) < 0)
        return -1;
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return ipc_fail("socket", "AF_UNIX SOCK_DGRAM");
    if (server ? bind(fd, (struct sockaddr *)&a, sizeof a) : connect(fd, (struct sockaddr *)&a, sizeof a)) {
        ipc_fail(server ? "bind" : "connect", a.sun_path);
        close(fd);
        return -1;
    }
    if (server)
        ready();
    return ipc_fdchan(fd, ch);
}

/* MSG_TRUNC: the true length of a datagram longer than the buffer, so it shows as wrong. */
static ssize_t recv_(void *ch, void *buf, size_t n)
{
    return recv(ipc_fd_of(ch), buf, n, MSG_TRUNC);
}

static void destroy(const struct ipc_opts *o)
{
    char path[512];
    ipc_path(o, ".dgram", path, sizeof path);
    unlink(path);
}

const struct ipc_mech ipc_unix_dgram = {
    .name = "unix-dgram", .what = "Unix domain datagram socket", .stream = 0,
    .max_size = limit, .create = create, .open = open_, .send = ipc_fd_write,
    .recv = recv_, .close = ipc_fd_close, .destroy = destroy,
};
