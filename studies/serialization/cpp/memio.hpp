// Where a gSOAP context writes to and reads from in the study: memory (a sink that keeps
// or only counts the bytes, a source that hands out a buffer) and loopback TCP (a sink
// thread that drains a connection, a feeder thread that writes stored bytes into one).
// Everything is bounded: sockets have timeouts, threads are joined by their owners.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

#include "stdsoap2.h"

namespace tb {

// gSOAP's fsend/frecv pointed at memory (soap->user points here).
class MemoryIo {
 public:
  // Output: appended to out() (or only counted), in gSOAP's 64 KiB buffer-sized pieces.
  void sink(struct soap *soap, bool keep_bytes);
  // Input: the bytes of `in`, then EOF.
  void source(struct soap *soap, const std::string &in);
  const std::string &out() const { return out_; }
  uint64_t count() const { return count_; }
  void clear_out() { out_.clear(), count_ = 0; }
  void rewind() { pos_ = 0; }

 private:
  static int send(struct soap *soap, const char *buf, size_t len);
  static size_t recv(struct soap *soap, char *buf, size_t len);
  std::string out_;
  bool keep_ = true;
  uint64_t count_ = 0;
  const std::string *in_ = nullptr;
  size_t pos_ = 0;
};

// A TCP listener on 127.0.0.1, a free port.
class Listener {
 public:
  Listener();
  ~Listener();
  Listener(const Listener &) = delete;
  Listener &operator=(const Listener &) = delete;
  int port() const { return port_; }
  int accept(int timeout_ms);  // a connection's fd, or -1
 private:
  int fd_ = -1;
  int port_ = 0;
};

// Drains one connection at a time: every connection made to port() is read to EOF; the
// bytes are counted (and kept for the last connection when asked).
class LoopbackSink {
 public:
  explicit LoopbackSink(bool keep_bytes);
  ~LoopbackSink();
  int port() const { return listener_.port(); }
  // Before a connection is made: a mark for wait_bytes.
  uint64_t mark() const { return done_; }
  // The bytes of the first connection drained after `mark` (waits for its EOF).
  uint64_t wait_bytes(uint64_t mark, int timeout_ms);
  const std::string &bytes() const { return bytes_; }

 private:
  void run();
  Listener listener_;
  bool keep_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> done_{0}, count_{0};  // connections drained, bytes of the last
  std::string bytes_;
  std::thread thread_;  // last: it starts once everything above exists
};

// Writes `bytes` into a fresh loopback connection from a thread; the caller reads the
// other end (fd()). join() waits for the writer.
class LoopbackFeeder {
 public:
  explicit LoopbackFeeder(const std::string &bytes);
  ~LoopbackFeeder();
  int fd() const { return fd_; }  // the reading end, or -1 when the connection failed
  void join();

 private:
  Listener listener_;
  int fd_ = -1;
  std::thread writer_;
};

// Socket timeouts and buffer sizes on an fd (0 = leave the kernel's default).
void set_buffers(int fd, int sndbuf, int rcvbuf);

}  // namespace tb
