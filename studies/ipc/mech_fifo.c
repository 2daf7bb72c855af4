/* FIFO (named pipe): the driver makes <dir>/<name>.fifo with mkfifo; the server opens it for
 * reading, the client for writing (each open waits for the other side). A byte stream with
 * the pipe's capacity (64 KiB by default); the server reads each message with a loop. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ipc.h"

static size_t no_limit(char *why, size_t len)
{
    snprintf(why, len, "byte stream, no message limit (pipe capacity 64 KiB, at most fs.pipe-max-size = %ld)",
             ipc_read_proc_long("/proc/sys/fs/pipe-max-size"));
    return 0;
}

static int create(struct ipc_opts *o)
{
    char path[512];
    ipc_path(o, ".fifo", path, sizeof path);
    return mkfifo(path, 0600) < 0 ? ipc_fail("mkfifo", path) : 0;
}

static int open_(const struct ipc_opts *o, int server, void (*ready)(void), void **ch)
{
    char path[512];
    ipc_path(o, ".fifo", path, sizeof path);
    if (server)
        ready();                 /* the client may start: open blocks until it opens too */
    int fd = open(path, (server ? O_RDONLY : O_WRONLY) | O_CLOEXEC);
    if (fd < 0)
        return ipc_fail("open", path);
    return ipc_fdchan(fd, ch);
}

static void destroy(const struct ipc_opts *o)
{
    char path[512];
    ipc_path(o, ".fifo", path, sizeof path);
    unlink(path);
}

const struct ipc_mech ipc_fifo = {
    .name = "fifo", .what = "FIFO (named pipe)", .stream = 1,
    .max_size = no_limit, .create = create, .open = open_, .send = ipc_fd_write,
    .recv = ipc_fd_read, .close = ipc_fd_close, .destroy = destroy,
};
