// The pool server model (models.hpp): one acceptor thread, a bounded queue of connections
// with a request waiting, and a fixed set of worker threads, each with its own soap
// context. A worker serves one request and hands the connection back to the acceptor,
// which watches it (poll) until the next request arrives or it has been idle for
// GSOAP_RECV_TIMEOUT_S.
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "connection.hpp"
#include "models.hpp"

namespace tb {
namespace {

using Clock = std::chrono::steady_clock;

struct Conn {
  int fd;
  int served;              // requests served on it so far (keep-alive maximum)
  Clock::time_point idle_since;
};

// Connections with a request waiting; at most `capacity`, beyond that the acceptor stops
// taking requests off idle connections and new connections wait in the listen backlog.
class ReadyQueue {
 public:
  explicit ReadyQueue(size_t capacity) : capacity_(capacity) {}
  bool full() {
    std::lock_guard<std::mutex> hold(m_);
    return q_.size() >= capacity_;
  }
  bool try_push(const Conn &c) {
    {
      std::lock_guard<std::mutex> hold(m_);
      if (q_.size() >= capacity_) return false;
      q_.push_back(c);
    }
    ready_.notify_one();
    return true;
  }
  // Blocks for the next connection; false once closed and drained.
  bool pop(Conn &out) {
    std::unique_lock<std::mutex> lock(m_);
    ready_.wait(lock, [&] { return !q_.empty() || closed_; });
    if (q_.empty()) return false;
    out = q_.front();
    q_.pop_front();
    return true;
  }
  void close() {
    {
      std::lock_guard<std::mutex> hold(m_);
      closed_ = true;
    }
    ready_.notify_all();
  }

 private:
  std::mutex m_;
  std::condition_variable ready_;
  std::deque<Conn> q_;
  size_t capacity_;
  bool closed_ = false;
};

// Connections the workers hand back after a request; an eventfd wakes the acceptor.
class Handback {
 public:
  Handback() : wake_fd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}
  ~Handback() { ::close(wake_fd_); }
  int wake_fd() const { return wake_fd_; }
  void give(const Conn &c) {
    {
      std::lock_guard<std::mutex> hold(m_);
      conns_.push_back(c);
    }
    uint64_t one = 1;
    (void)!write(wake_fd_, &one, sizeof one);
  }
  void take_all(std::vector<Conn> &into) {
    uint64_t n;
    (void)!read(wake_fd_, &n, sizeof n);
    std::lock_guard<std::mutex> hold(m_);
    for (Conn &c : conns_) {
      c.idle_since = Clock::now();
      into.push_back(c);
    }
    conns_.clear();
  }

 private:
  int wake_fd_;
  std::mutex m_;
  std::vector<Conn> conns_;
};

void worker(const ServerConfig &config, ReadyQueue &ready, Handback &handback) {
  Service svc(config);
  Conn c;
  while (ready.pop(c)) {
    bool open = serve_request(svc, c.fd, c.served++);
    while (open && has_buffered_request(svc))  // a pipelined request: serve it here
      open = serve_request(svc, c.fd, c.served++);
    if (!open) continue;
    if (stopping.load()) ::close(c.fd);
    else handback.give(c);
  }
}

// The acceptor: accepts, watches idle connections, queues the ones with a request.
void acceptor(const ServerConfig &config, int listen_fd, ReadyQueue &ready, Handback &handback) {
  const auto idle_limit = std::chrono::seconds(config.recv_timeout_s);
  std::vector<Conn> idle;
  std::vector<pollfd> fds;
  while (!stopping.load()) {
    const bool room = !ready.full();
    fds.clear();
    fds.push_back({handback.wake_fd(), POLLIN, 0});
    fds.push_back({room ? listen_fd : -1, POLLIN, 0});
    for (const Conn &c : idle) fds.push_back({room ? c.fd : -1, POLLIN, 0});
    int n = poll(fds.data(), fds.size(), room ? 200 : 20);
    if (n < 0 && errno != EINTR) break;
    const auto now = Clock::now();
    std::vector<Conn> still_idle;
    for (size_t i = 0; i < idle.size(); ++i) {
      const Conn &c = idle[i];
      if (fds[i + 2].revents && ready.try_push(c)) continue;
      if (now - c.idle_since > idle_limit) ::close(c.fd);
      else still_idle.push_back(c);
    }
    idle.swap(still_idle);
    if (fds[0].revents) handback.take_all(idle);
    if (fds[1].revents) {
      int fd = accept_connection(listen_fd, 0);
      if (fd >= 0) idle.push_back({fd, 0, now});
      else std::this_thread::sleep_for(std::chrono::milliseconds(10));  // e.g. out of fds
    }
  }
  // Stopping: requests that already arrived are served, idle connections are closed.
  handback.take_all(idle);
  for (const Conn &c : idle) {
    if (wait_readable(c.fd, 0) && ready.try_push(c)) continue;
    ::close(c.fd);
  }
}

}  // namespace

void run_pool(const ServerConfig &config, int listen_fd) {
  ReadyQueue ready(static_cast<size_t>(config.pool_size));
  Handback handback;
  std::vector<std::thread> workers;
  for (int i = 0; i < config.pool_size; ++i)
    workers.emplace_back(worker, std::cref(config), std::ref(ready), std::ref(handback));
  acceptor(config, listen_fd, ready, handback);
  ready.close();
  for (std::thread &t : workers) t.join();
}

}  // namespace tb
