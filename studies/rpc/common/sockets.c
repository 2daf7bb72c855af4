/* Loopback TCP and Unix-domain sockets (sockets.h). */
#define _GNU_SOURCE
#include "sockets.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "clock.h"

static void no_delay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one); /* fails harmlessly on AF_UNIX */
}

static int set_unix_path(struct sockaddr_un *a, const char *path) {
  memset(a, 0, sizeof *a);
  a->sun_family = AF_UNIX;
  if (strlen(path) >= sizeof a->sun_path) {
    errno = ENAMETOOLONG;
    return -1;
  }
  strcpy(a->sun_path, path);
  return 0;
}

int tcp_listen_loopback(int *port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)*port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 16) != 0 ||
      getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
    close(fd);
    return -1;
  }
  *port = ntohs(a.sin_port);
  return fd;
}

static int connect_within(int fd, const struct sockaddr *a, socklen_t len, int timeout_ms) {
  int64_t deadline = now_ns() + (int64_t)timeout_ms * 1000000;
  while (connect(fd, a, len) != 0) {
    /* the listener may not be up yet (ECONNREFUSED, ENOENT for a path): retry briefly */
    if ((errno != ECONNREFUSED && errno != ENOENT && errno != EINTR) || now_ns() >= deadline) return -1;
    usleep(2000);
  }
  return 0;
}

int tcp_connect_loopback(int port, int timeout_ms) {
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  for (int64_t deadline = now_ns() + (int64_t)timeout_ms * 1000000;;) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
      no_delay(fd);
      return fd;
    }
    close(fd); /* a refused TCP socket cannot connect again: a new one each try */
    if (errno != ECONNREFUSED || now_ns() >= deadline) return -1;
    usleep(2000);
  }
}

int unix_listen(const char *path) {
  struct sockaddr_un a;
  if (set_unix_path(&a, path) != 0) return -1;
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  unlink(path);
  if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 16) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

int unix_connect(const char *path, int timeout_ms) {
  struct sockaddr_un a;
  if (set_unix_path(&a, path) != 0) return -1;
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (connect_within(fd, (struct sockaddr *)&a, sizeof a, timeout_ms) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

int accept_within(int listen_fd, int timeout_ms) {
  struct pollfd p = {listen_fd, POLLIN, 0};
  if (poll(&p, 1, timeout_ms) <= 0) return -1;
  int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
  if (fd >= 0) no_delay(fd);
  return fd;
}

int read_full(int fd, void *buf, size_t n, int timeout_ms) {
  unsigned char *p = buf;
  while (n > 0) {
    struct pollfd pf = {fd, POLLIN, 0};
    int r = poll(&pf, 1, timeout_ms);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return -1;
    ssize_t k = read(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    p += k;
    n -= (size_t)k;
  }
  return 0;
}

int write_full(int fd, const void *buf, size_t n) {
  const unsigned char *p = buf;
  while (n > 0) {
    ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    p += k;
    n -= (size_t)k;
  }
  return 0;
}

int send_fd(int sock, int fd) {
  char byte = 'S';
  struct iovec iov = {&byte, 1};
  union {
    struct cmsghdr h;
    char space[CMSG_SPACE(sizeof(int))];
  } ctl;
  memset(&ctl, 0, sizeof ctl);
  struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.space,
                     .msg_controllen = sizeof ctl.space};
  struct cmsghdr *c = CMSG_FIRSTHDR(&m);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &fd, sizeof(int));
  return sendmsg(sock, &m, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

int recv_fd(int sock, int timeout_ms) {
  struct pollfd p = {sock, POLLIN, 0};
  if (poll(&p, 1, timeout_ms) <= 0) return -1;
  char byte;
  struct iovec iov = {&byte, 1};
  union {
    struct cmsghdr h;
    char space[CMSG_SPACE(sizeof(int))];
  } ctl;
  struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.space,
                     .msg_controllen = sizeof ctl.space};
  if (recvmsg(sock, &m, MSG_CMSG_CLOEXEC) != 1) return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&m);
  if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) return -1;
  int fd;
  memcpy(&fd, CMSG_DATA(c), sizeof(int));
  return fd;
}
