/* Unix domain stream socket (the classic study's "Unix socket"): the server binds
 * <dir>/<name>.sock, listens and accepts one connection; the client connects. A byte stream:
 * the server reads each message with a loop and checks for end of stream after the last. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ipc.h"

static size_t no_limit(char *why, size_t len)
{
    long wmem = ipc_read_proc_long("/proc/sys/net/core/wmem_default");
    snprintf(why, len, "byte stream, no message limit (socket buffer net.core.wmem_default = %ld)", wmem);
    return 0;
}

static int create(struct ipc_opts *o) { (void)o; return 0; }   /* the server binds */

static int open_(const struct ipc_opts *o, int server, void (*ready)(void), void **ch)
{
    struct sockaddr_un a;
    if (ipc_unix_address(o, ".sock", &a) < 0)
        return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return ipc_fail("socket", "AF_UNIX SOCK_STREAM");
    if (!server) {
        if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
            ipc_fail("connect", a.sun_path);
            close(fd);
            return -1;
        }
        return ipc_fdchan(fd, ch);
    }
    if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 1) < 0) {
        ipc_fail("bind/listen", a.sun_path);
        close(fd);
        return -1;
    }
    ready();
    int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
    int e = errno;
    close(fd);
    unlink(a.sun_path);          /* connected: the name is no longer needed */
    if (c < 0) {
        errno = e;
        return ipc_fail("accept", a.sun_path);
    }
    return ipc_fdchan(c, ch);
}

static void destroy(const struct ipc_opts *o)
{
    char path[512];
    ipc_path(o, ".sock", path, sizeof path);
    unlink(path);
}

const struct ipc_mech ipc_unix_stream = {
    .name = "unix-stream", .what = "Unix domain stream socket", .stream = 1,
    .max_size = no_limit, .create = create, .open = open_, .send = ipc_fd_write,
    .recv = ipc_fd_read, .close = ipc_fd_close, .destroy = destroy,
};
