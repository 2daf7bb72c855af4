// Memory and loopback I/O for the study's gSOAP contexts (memio.hpp).
#include "memio.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>

namespace tb {
namespace {

const int kIoTimeoutMs = 120000;  // a 9 MiB message on a busy machine takes seconds, not minutes

MemoryIo &io_of(struct soap *soap) { return *static_cast<MemoryIo *>(soap->user); }

void set_timeouts(int fd, int ms) {
  timeval tv{ms / 1000, (ms % 1000) * 1000};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

}  // namespace

void MemoryIo::sink(struct soap *soap, bool keep_bytes) {
  keep_ = keep_bytes;
  soap->user = this;
  soap->fsend = send;
  soap->socket = SOAP_INVALID_SOCKET;
  soap->os = nullptr;
  soap->sendfd = -1;
}

void MemoryIo::source(struct soap *soap, const std::string &in) {
  in_ = &in;
  pos_ = 0;
  soap->user = this;
  soap->frecv = recv;
  soap->socket = SOAP_INVALID_SOCKET;
  soap->is = nullptr;
  soap->recvfd = -1;
}

int MemoryIo::send(struct soap *soap, const char *buf, size_t len) {
  MemoryIo &m = io_of(soap);
  m.count_ += len;
  if (m.keep_) m.out_.append(buf, len);
  return SOAP_OK;
}

size_t MemoryIo::recv(struct soap *soap, char *buf, size_t len) {
  MemoryIo &m = io_of(soap);
  const size_t n = std::min(len, m.in_->size() - m.pos_);
  std::memcpy(buf, m.in_->data() + m.pos_, n);
  m.pos_ += n;
  return n;
}

Listener::Listener() {
  fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;  // the kernel picks a free port
  socklen_t len = sizeof a;
  if (fd_ < 0 || bind(fd_, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0 || listen(fd_, 16) != 0 ||
      getsockname(fd_, reinterpret_cast<sockaddr *>(&a), &len) != 0)
    throw std::runtime_error(std::string("loopback listener: ") + std::strerror(errno));
  port_ = ntohs(a.sin_port);
}

Listener::~Listener() {
  if (fd_ >= 0) close(fd_);
}

int Listener::accept(int timeout_ms) {
  pollfd p{fd_, POLLIN, 0};
  if (poll(&p, 1, timeout_ms) <= 0) return -1;
  int fd = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd >= 0) set_timeouts(fd, kIoTimeoutMs);
  return fd;
}

LoopbackSink::LoopbackSink(bool keep_bytes) : keep_(keep_bytes), thread_([this] { run(); }) {}

LoopbackSink::~LoopbackSink() {
  stop_ = true;
  thread_.join();
}

void LoopbackSink::run() {
  std::string buf(1 << 20, '\0');
  while (!stop_) {
    int fd = listener_.accept(100);
    if (fd < 0) continue;
    uint64_t n = 0;
    std::string kept;
    for (ssize_t r; (r = ::recv(fd, &buf[0], buf.size(), 0)) > 0;) {
      n += static_cast<uint64_t>(r);
      if (keep_) kept.append(buf.data(), static_cast<size_t>(r));
    }
    close(fd);
    if (keep_) bytes_.swap(kept);
    count_ = n;
    ++done_;
  }
}

uint64_t LoopbackSink::wait_bytes(uint64_t mark, int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (done_ == mark && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  if (done_ == mark) throw std::runtime_error("loopback sink: the connection did not end in time");
  return count_;
}

LoopbackFeeder::LoopbackFeeder(const std::string &bytes) {
  const int port = listener_.port();
  writer_ = std::thread([&bytes, port] {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<uint16_t>(port));
    set_timeouts(fd, kIoTimeoutMs);
    if (connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0) {
      for (size_t done = 0; done < bytes.size();) {
        ssize_t w = ::send(fd, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
        if (w <= 0) break;
        done += static_cast<size_t>(w);
      }
      shutdown(fd, SHUT_WR);
      char c;
      while (::recv(fd, &c, 1, 0) > 0) {  // until the reader closes
      }
    }
    close(fd);
  });
  fd_ = listener_.accept(kIoTimeoutMs);
}

void LoopbackFeeder::join() {
  if (fd_ >= 0) {
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    fd_ = -1;
  }
  if (writer_.joinable()) writer_.join();
}

LoopbackFeeder::~LoopbackFeeder() { join(); }

void set_buffers(int fd, int sndbuf, int rcvbuf) {
  if (sndbuf > 0) setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
  if (rcvbuf > 0) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
}

}  // namespace tb
