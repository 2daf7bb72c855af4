/* A channel that is one file descriptor: the Unix sockets, the FIFO and the pipe send with
 * write(2) and receive with read(2) (the datagram socket receives with its own recv). */
#include <stdlib.h>
#include <unistd.h>

#include "ipc.h"

struct fdchan {
    int fd;
};

int ipc_fdchan(int fd, void **ch)
{
    struct fdchan *c = malloc(sizeof *c);
    if (!c)
        return ipc_fail("malloc", "channel");
    c->fd = fd;
    *ch = c;
    return 0;
}

int ipc_fd_of(void *ch) { return ((struct fdchan *)ch)->fd; }

ssize_t ipc_fd_write(void *ch, const void *buf, size_t n)
{
    return write(((struct fdchan *)ch)->fd, buf, n);
}

ssize_t ipc_fd_read(void *ch, void *buf, size_t n)
{
    return read(((struct fdchan *)ch)->fd, buf, n);
}

void ipc_fd_close(void *ch)
{
    close(((struct fdchan *)ch)->fd);
    free(ch);
}
