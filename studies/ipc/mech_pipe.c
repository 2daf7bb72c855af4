/* Anonymous pipe: the driver makes it with pipe(2) before starting the peers, which inherit
 * both ends across exec; the server keeps the read end, the client the write end. The same
 * kernel object as the FIFO without a name (so nothing to remove), only between relatives. */
#include <fcntl.h>
#include <unistd.h>

#include "ipc.h"

static size_t no_limit(char *why, size_t len)
{
    snprintf(why, len, "byte stream, no message limit (pipe capacity 64 KiB)");
    return 0;
}

static int create(struct ipc_opts *o)
{
    int fds[2];
    if (pipe(fds) < 0)                    /* not close-on-exec: the peers inherit them */
        return ipc_fail("pipe", "");
    o->fd_read = fds[0];
    o->fd_write = fds[1];
    return 0;
}

static int open_(const struct ipc_opts *o, int server, void (*ready)(void), void **ch)
{
    if (o->fd_read < 0 || o->fd_write < 0 || fcntl(o->fd_read, F_GETFD) < 0 || fcntl(o->fd_write, F_GETFD) < 0)
        return ipc_fail("inherited pipe", "descriptors (--fds)");
    close(server ? o->fd_write : o->fd_read);   /* one end each, so end of stream arrives */
    int fd = server ? o->fd_read : o->fd_write;
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    if (server)
        ready();
    return ipc_fdchan(fd, ch);
}

static void destroy(const struct ipc_opts *o) { (void)o; }   /* nothing named */

const struct ipc_mech ipc_pipe = {
    .name = "pipe", .what = "anonymous pipe", .stream = 1,
    .max_size = no_limit, .create = create, .open = open_, .send = ipc_fd_write,
    .recv = ipc_fd_read, .close = ipc_fd_close, .destroy = destroy,
};
