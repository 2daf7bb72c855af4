// The pool server model (models.hpp): GSOAP_POOL_SIZE worker threads, each with its own
// soap context, wait on one epoll set that holds every connection not in service. A
// connection is registered one-shot (EPOLLONESHOT): its next request wakes exactly one
// worker, which serves that one request (and any pipelined behind it) and registers the
// connection again. One acceptor thread accepts every connection at once and registers
// it, and closes connections idle longer than GSOAP_RECV_TIMEOUT_S. So a saturated pool
// still accepts (a health check waits for a worker like any request), an idle kept-alive
// connection never holds a worker, and a request costs one thread wake-up: the earlier
// acceptor-polls-and-hands-over design took three (acceptor, worker, acceptor again) and
// rebuilt its poll set per request -- on ping that was most of the service's time.
#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "connection.hpp"
#include "models.hpp"

namespace tb {
namespace {

using Clock = std::chrono::steady_clock;
const int kSliceMs = 200;  // how often a waiting thread looks at the stop flag

struct Conn {
  int fd = -1;
  int served = 0;  // requests served on it so far (keep-alive maximum)
  uint32_t gen = 0;  // tells a stale epoll event from one for a reused fd number
  Clock::time_point idle_since;
};

// The connections waiting for their next request, in the epoll set. A worker that gets a
// connection's event takes it out (it is the worker's until it registers it again), so the
// idle sweep never closes a connection in service.
class Idle {
 public:
  Idle() : epfd_(epoll_create1(EPOLL_CLOEXEC)) {}
  ~Idle() { ::close(epfd_); }
  int epfd() const { return epfd_; }
  bool ok() const { return epfd_ >= 0; }

  void add(int fd) {
    Conn c;
    c.fd = fd;
    {
      std::lock_guard<std::mutex> hold(m_);
      c.gen = ++gen_;
    }
    arm(c, EPOLL_CTL_ADD);
  }
  // The connection of an epoll event, now the caller's; false for a stale event.
  bool take(uint64_t data, Conn &out) {
    const int fd = static_cast<int>(data & 0xffffffffu);
    const uint32_t gen = static_cast<uint32_t>(data >> 32);
    std::lock_guard<std::mutex> hold(m_);
    auto it = conns_.find(fd);
    if (it == conns_.end() || it->second.gen != gen) return false;
    out = it->second;
    conns_.erase(it);
    return true;
  }
  void give_back(Conn c) { arm(c, EPOLL_CTL_MOD); }  // after a request: wait for the next one
  // Closes the connections idle since before `limit`.
  void close_idle(Clock::time_point limit) {
    std::lock_guard<std::mutex> hold(m_);
    for (auto it = conns_.begin(); it != conns_.end();) {
      if (it->second.idle_since < limit) {
        ::close(it->first);  // also leaves the epoll set
        it = conns_.erase(it);
      } else {
        ++it;
      }
    }
  }
  void close_all() { close_idle(Clock::time_point::max()); }

 private:
  // Puts the connection in the map, then (re)registers it. The registration is made without
  // the lock held: its event may fire at once, and the worker it wakes takes the lock in
  // take() -- holding it across epoll_ctl made that worker wait on a futex for nearly every
  // request (strace; the sweep cannot close the connection meanwhile: it is idle since now).
  void arm(Conn &c, int op) {
    c.idle_since = Clock::now();
    {
      std::lock_guard<std::mutex> hold(m_);
      conns_[c.fd] = c;
    }
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT;
    ev.data.u64 = (uint64_t{c.gen} << 32) | static_cast<uint32_t>(c.fd);
    if (epoll_ctl(epfd_, op, c.fd, &ev) != 0) {  // out of memory for the set: refuse it
      std::lock_guard<std::mutex> hold(m_);
      auto it = conns_.find(c.fd);
      if (it != conns_.end() && it->second.gen == c.gen) conns_.erase(it);
      ::close(c.fd);
    }
  }

  int epfd_;
  std::mutex m_;
  std::unordered_map<int, Conn> conns_;
  uint32_t gen_ = 0;
};

// Serves the request that woke it (and pipelined ones), then registers the connection again.
void serve_one(Service &svc, Idle &idle, Conn c) {
  bool open = serve_request(svc, c.fd, c.served++);
  while (open && has_buffered_request(svc)) open = serve_request(svc, c.fd, c.served++);
  if (!open) return;  // serve_request closed it
  if (stopping.load()) ::close(c.fd);
  else idle.give_back(c);
}

void worker(const ServerConfig &config, Idle &idle) {
  Service svc(config);
  epoll_event ev;
  Conn c;
  while (!stopping.load()) {
    if (epoll_wait(idle.epfd(), &ev, 1, kSliceMs) == 1 && idle.take(ev.data.u64, c))
      serve_one(svc, idle, c);
  }
  // Stopping: requests that already arrived are served.
  while (epoll_wait(idle.epfd(), &ev, 1, 0) == 1)
    if (idle.take(ev.data.u64, c)) serve_one(svc, idle, c);
}

// Accepts every connection at once; closes connections idle too long.
void acceptor(const ServerConfig &config, int listen_fd, Idle &idle) {
  const auto idle_limit = std::chrono::seconds(config.recv_timeout_s);
  auto next_sweep = Clock::now() + std::chrono::seconds(1);
  while (!stopping.load()) {
    errno = 0;
    int fd = accept_connection(listen_fd, kSliceMs);
    for (int accepted = 0; fd >= 0 && accepted < 64; ++accepted) {
      idle.add(fd);
      fd = accept_connection(listen_fd, 0);
    }
    if (fd >= 0) idle.add(fd);
    if (fd < 0 && (errno == EMFILE || errno == ENFILE))  // out of fds: do not spin
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const auto now = Clock::now();
    if (now >= next_sweep) {
      idle.close_idle(now - idle_limit);
      next_sweep = now + std::chrono::seconds(1);
    }
  }
}

}  // namespace

void run_pool(const ServerConfig &config, int listen_fd) {
  Idle idle;
  if (!idle.ok()) {
    std::perror("tb-gsoap-server: epoll_create1");
    std::exit(1);
  }
  std::vector<std::thread> workers;
  for (int i = 0; i < config.pool_size; ++i)
    workers.emplace_back(worker, std::cref(config), std::ref(idle));
  acceptor(config, listen_fd, idle);
  for (std::thread &t : workers) t.join();
  idle.close_all();
}

}  // namespace tb
