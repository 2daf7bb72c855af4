// The pool server model (models.hpp): one acceptor thread, a bounded queue of connections
// with a request waiting, and a fixed set of worker threads, each with its own soap
// context. The acceptor accepts every connection at once and watches it (poll); when a
// request arrives the connection lines up (first come, first served) for the queue, a
// worker serves that one request and hands the connection back to be watched again --
// until it closes or has been idle for GSOAP_RECV_TIMEOUT_S. So a saturated pool still
// takes new connections (a health check waits for a worker like any request, it is not
// left unaccepted), and an idle kept-alive connection never holds a worker.
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
  int served;  // requests served on it so far (keep-alive maximum)
  Clock::time_point idle_since;
};

// Wakes the acceptor's poll from a worker: a connection handed back, or room in the queue.
class Wakeup {
 public:
  Wakeup() : fd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}
  ~Wakeup() { ::close(fd_); }
  int fd() const { return fd_; }
  void ring() {
    uint64_t one = 1;
    (void)!write(fd_, &one, sizeof one);
  }
  void clear() {
    uint64_t n;
    (void)!read(fd_, &n, sizeof n);
  }

 private:
  int fd_;
};

// The connections with a request waiting for a worker: at most `capacity` at once.
class ReadyQueue {
 public:
  ReadyQueue(size_t capacity, Wakeup &wakeup) : capacity_(capacity), wakeup_(wakeup) {}
  bool try_push(const Conn &c) {
    {
      std::lock_guard<std::mutex> hold(m_);
      if (q_.size() >= capacity_) return false;
      q_.push_back(c);
    }
    not_empty_.notify_one();
    return true;
  }
  void push(const Conn &c) {  // waits for room (only while stopping)
    std::unique_lock<std::mutex> lock(m_);
    not_full_.wait(lock, [&] { return q_.size() < capacity_; });
    q_.push_back(c);
    lock.unlock();
    not_empty_.notify_one();
  }
  // Blocks for the next connection; false once closed and drained.
  bool pop(Conn &out) {
    std::unique_lock<std::mutex> lock(m_);
    not_empty_.wait(lock, [&] { return !q_.empty() || closed_; });
    if (q_.empty()) return false;
    const bool was_full = q_.size() >= capacity_;
    out = q_.front();
    q_.pop_front();
    lock.unlock();
    not_full_.notify_one();
    if (was_full) wakeup_.ring();  // the acceptor may have connections lined up
    return true;
  }
  void close() {
    {
      std::lock_guard<std::mutex> hold(m_);
      closed_ = true;
    }
    not_empty_.notify_all();
  }

 private:
  std::mutex m_;
  std::condition_variable not_empty_, not_full_;
  std::deque<Conn> q_;
  size_t capacity_;
  Wakeup &wakeup_;
  bool closed_ = false;
};

// Connections the workers hand back after a request.
class Handback {
 public:
  explicit Handback(Wakeup &wakeup) : wakeup_(wakeup) {}
  void give(const Conn &c) {
    {
      std::lock_guard<std::mutex> hold(m_);
      conns_.push_back(c);
    }
    wakeup_.ring();
  }
  void take_all(std::vector<Conn> &into) {
    std::lock_guard<std::mutex> hold(m_);
    for (Conn &c : conns_) {
      c.idle_since = Clock::now();
      into.push_back(c);
    }
    conns_.clear();
  }

 private:
  Wakeup &wakeup_;
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

// The acceptor: accepts, watches idle connections, lines up the ones with a request.
void acceptor(const ServerConfig &config, int listen_fd, ReadyQueue &ready, Handback &handback,
              Wakeup &wakeup) {
  const auto idle_limit = std::chrono::seconds(config.recv_timeout_s);
  std::vector<Conn> idle;     // watched for their next request
  std::deque<Conn> lined_up;  // have a request; wait for room in the queue, in order
  std::vector<pollfd> fds;
  while (!stopping.load()) {
    while (!lined_up.empty() && ready.try_push(lined_up.front())) lined_up.pop_front();
    fds.clear();
    fds.push_back({wakeup.fd(), POLLIN, 0});
    fds.push_back({listen_fd, POLLIN, 0});
    for (const Conn &c : idle) fds.push_back({c.fd, POLLIN, 0});
    if (poll(fds.data(), fds.size(), 200) < 0 && errno != EINTR) break;
    const auto now = Clock::now();
    std::vector<Conn> still_idle;
    for (size_t i = 0; i < idle.size(); ++i) {
      const Conn &c = idle[i];
      if (fds[i + 2].revents) lined_up.push_back(c);  // a request (or EOF): a worker sees
      else if (now - c.idle_since > idle_limit) ::close(c.fd);
      else still_idle.push_back(c);
    }
    idle.swap(still_idle);
    if (fds[0].revents) {
      wakeup.clear();
      handback.take_all(idle);
    }
    if (fds[1].revents) {
      int accepted = 0;
      for (int fd; accepted < 64 && (fd = accept_connection(listen_fd, 0)) >= 0; ++accepted)
        idle.push_back({fd, 0, now});
      if (accepted == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));  // no fds?
    }
  }
  // Stopping: requests that already arrived are served, idle connections are closed.
  handback.take_all(idle);
  for (const Conn &c : lined_up) ready.push(c);
  for (const Conn &c : idle) {
    if (wait_readable(c.fd, 0)) ready.push(c);
    else ::close(c.fd);
  }
}

}  // namespace

void run_pool(const ServerConfig &config, int listen_fd) {
  Wakeup wakeup;
  ReadyQueue ready(static_cast<size_t>(config.pool_size), wakeup);
  Handback handback(wakeup);
  std::vector<std::thread> workers;
  for (int i = 0; i < config.pool_size; ++i)
    workers.emplace_back(worker, std::cref(config), std::ref(ready), std::ref(handback));
  acceptor(config, listen_fd, ready, handback, wakeup);
  ready.close();
  for (std::thread &t : workers) t.join();
}

}  // namespace tb
