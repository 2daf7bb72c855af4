/* Sockets the study's programs create themselves: TCP on 127.0.0.1 (an ephemeral port the
 * listener reports) and Unix-domain stream sockets at a path. Every wait is bounded. */
#ifndef TB_RPC_SOCKETS_H
#define TB_RPC_SOCKETS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Listening TCP socket on 127.0.0.1; *port 0 picks a free one and returns it there. */
int tcp_listen_loopback(int *port);
/* Connected TCP socket to 127.0.0.1:port with TCP_NODELAY, or -1. */
int tcp_connect_loopback(int port, int timeout_ms);
/* Listening Unix-domain stream socket at path (an old socket file there is removed). */
int unix_listen(const char *path);
/* Connected Unix-domain stream socket, or -1; retries while the listener is not there yet. */
int unix_connect(const char *path, int timeout_ms);
/* One accepted connection within timeout_ms (TCP_NODELAY when TCP), or -1. */
int accept_within(int listen_fd, int timeout_ms);

/* Exactly n bytes, or -1 (error, EOF or the deadline). */
int read_full(int fd, void *buf, size_t n, int timeout_ms);
int write_full(int fd, const void *buf, size_t n);

/* A descriptor over a Unix socket (SCM_RIGHTS) with one byte of data; 0 or -1. */
int send_fd(int sock, int fd);
/* The descriptor sent by send_fd, or -1 (timeout, EOF, nothing attached). */
int recv_fd(int sock, int timeout_ms);

#ifdef __cplusplus
}
#endif
#endif
