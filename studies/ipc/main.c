/* tb-ipc: the IPC throughput study's program (docs/method.md, "IPC throughput").
 *
 *   tb-ipc run --mech M --size S (--messages N | --bytes B) [--name BASE] [--dir DIR]
 *              [--key K] [--deadline S]       one measurement; prints one JSON line
 *   tb-ipc limits                             each mechanism's largest message, as JSON
 *   tb-ipc clean [--name BASE] [--dir DIR] [--key K]
 *                                             remove every object these names could denote
 *   tb-ipc server|client ...                  the two peers (run starts them itself)
 *
 * Mechanisms: unix-stream unix-dgram fifo pipe sysv-mq posix-mq shm-ring.
 * Names: the FIFO and sockets are <dir>/<name>.fifo|.sock|.dgram, the POSIX queue and the
 * shared memory /<name>, the System V queue has key K. Defaults: name tb-ipc.<pid>, dir /tmp,
 * key 0x7B000000 + pid, deadline 60 s. Exit: 0 when run printed a result (valid or not),
 * 2 on bad arguments or a channel that could not be made. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipc.h"

static int usage(const char *why)
{
    fprintf(stderr, "tb-ipc: %s\nusage: tb-ipc run --mech M --size S (--messages N | --bytes B) [--name BASE] "
            "[--dir DIR] [--key K] [--deadline S]\n       tb-ipc limits | tb-ipc clean [--name BASE] [--dir DIR] "
            "[--key K]\nmechanisms:", why);
    for (const struct ipc_mech *const *m = ipc_mechs; *m; m++)
        fprintf(stderr, " %s", (*m)->name);
    fputc('\n', stderr);
    return 2;
}

static int number(const char *s, unsigned long long max, unsigned long long *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s || *end || s[0] == '-' || v > max)
        return -1;
    *out = v;
    return 0;
}

void ipc_print_limits(void)
{
    printf("{");
    for (const struct ipc_mech *const *m = ipc_mechs; *m; m++) {
        char why[300];
        size_t max = (*m)->max_size(why, sizeof why);
        printf("%s\"%s\": {\"what\": ", m == ipc_mechs ? "" : ", ", (*m)->name);
        ipc_json_string(stdout, (*m)->what);
        printf(", \"stream\": %s, \"max_size\": %zu, \"source\": ", (*m)->stream ? "true" : "false", max);
        ipc_json_string(stdout, why);
        printf("}");
    }
    printf("}\n");
}

void ipc_clean(struct ipc_opts *o)
{
    for (const struct ipc_mech *const *m = ipc_mechs; *m; m++)
        (*m)->destroy(o);
}

int main(int argc, char **argv)
{
    static char default_name[64];
    struct ipc_opts o = {.name = default_name, .dir = "/tmp", .key = 0x7B000000L | (getpid() & 0xFFFFFF),
                         .deadline_s = 60, .fd_read = -1, .fd_write = -1};
    snprintf(default_name, sizeof default_name, "tb-ipc.%d", (int)getpid());
    unsigned long long v, bytes = 0, messages = 0, size = 0;
    if (argc < 2)
        return usage("which command?");
    const char *cmd = argv[1];
    for (int i = 2; i < argc; i++) {
        const char *k = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!val)
            return usage("every option takes a value");
        i++;
        if (!strcmp(k, "--mech"))
            o.mech = val;
        else if (!strcmp(k, "--name"))
            o.name = val;
        else if (!strcmp(k, "--dir"))
            o.dir = val;
        else if (!strcmp(k, "--inject"))
            o.inject = val;
        else if (!strcmp(k, "--fds")) {
            if (sscanf(val, "%d,%d", &o.fd_read, &o.fd_write) != 2)
                return usage("--fds takes READ,WRITE");
        } else if (!strcmp(k, "--size") && !number(val, 1ULL << 30, &v))
            size = v;
        else if (!strcmp(k, "--messages") && !number(val, 1ULL << 40, &v))
            messages = v;
        else if (!strcmp(k, "--bytes") && !number(val, 1ULL << 40, &v))
            bytes = v;
        else if (!strcmp(k, "--key") && !number(val, 0x7FFFFFFF, &v) && v != 0)
            o.key = (long)v;
        else if (!strcmp(k, "--deadline") && !number(val, 86400, &v) && v > 0)
            o.deadline_s = (int)v;
        else {
            char why[128];
            snprintf(why, sizeof why, "bad option or value: %s %s", k, val);
            return usage(why);
        }
    }
    if (strchr(o.name, '/') || !o.name[0] || strlen(o.name) > 200)
        return usage("--name is a plain name (no '/'), at most 200 characters");
    if (!strcmp(cmd, "limits")) {
        ipc_print_limits();
        return 0;
    }
    if (!strcmp(cmd, "clean")) {
        ipc_clean(&o);
        return 0;
    }
    if (strcmp(cmd, "run") && strcmp(cmd, "server") && strcmp(cmd, "client"))
        return usage("commands: run, limits, clean");
    if (!o.mech || !ipc_find(o.mech))
        return usage("--mech names one of the mechanisms");
    if (size < IPC_MIN_SIZE)
        return usage("--size must be at least 8 bytes (the sequence number)");
    o.size = (size_t)size;
    o.messages = messages ? messages : bytes / size;
    if (o.messages < 1)
        return usage("--messages N or --bytes B (at least one message)");
    if (o.messages > (1ULL << 40) / o.size)
        return usage("at most 1 TiB per run (--messages x --size)");
    if (o.inject && strcmp(o.inject, "drop") && strcmp(o.inject, "swap") && strcmp(o.inject, "flip"))
        return usage("--inject is drop, swap or flip (tests only)");
    if (!strcmp(cmd, "run"))
        return ipc_run(&o);
    return ipc_peer_main(&o, !strcmp(cmd, "server"));
}
