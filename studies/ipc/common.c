/* What every part of the IPC programs shares: the mechanism table, the stop flag, error text,
 * the names of the named objects, /proc readers, the clock, JSON strings. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <sys/socket.h>
#include <sys/un.h>

#include "ipc.h"

const struct ipc_mech *const ipc_mechs[] = {
    &ipc_unix_stream, &ipc_unix_dgram, &ipc_fifo, &ipc_pipe,
    &ipc_sysv_mq, &ipc_posix_mq, &ipc_shm_ring, NULL,
};

const struct ipc_mech *ipc_find(const char *name)
{
    for (const struct ipc_mech *const *m = ipc_mechs; *m; m++)
        if (strcmp((*m)->name, name) == 0)
            return *m;
    return NULL;
}

volatile sig_atomic_t ipc_stop;
char ipc_error[256];

int ipc_fail(const char *what, const char *object)
{
    int e = errno;
    if (e == EINTR && ipc_stop)
        snprintf(ipc_error, sizeof ipc_error, "%s %s: stopped (%s)", what, object,
                 ipc_stop == SIGALRM ? "the deadline" : "by the driver");
    else
        snprintf(ipc_error, sizeof ipc_error, "%s %s: %s", what, object, strerror(e));
    errno = e;
    return -1;
}

void ipc_path(const struct ipc_opts *o, const char *suffix, char *out, size_t len)
{
    snprintf(out, len, "%s/%s%s", o->dir, o->name, suffix);
}

void ipc_posix_name(const struct ipc_opts *o, char *out, size_t len)
{
    snprintf(out, len, "/%s", o->name);
}

int ipc_unix_address(const struct ipc_opts *o, const char *suffix, struct sockaddr_un *a)
{
    char path[512];
    ipc_path(o, suffix, path, sizeof path);
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof a->sun_path) {
        errno = ENAMETOOLONG;
        return ipc_fail("socket path", path);
    }
    strcpy(a->sun_path, path);
    return 0;
}

long ipc_read_proc_long(const char *path)
{
    FILE *f = fopen(path, "r");
    long v = -1;
    if (f) {
        if (fscanf(f, "%ld", &v) != 1)
            v = -1;
        fclose(f);
    }
    return v;
}

double ipc_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void ipc_json_string(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}
