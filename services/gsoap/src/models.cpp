// The iterative and thread-per-connection server models (models.hpp); the pool model is
// in pool.cpp.
#include "models.hpp"

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>

#include "connection.hpp"

namespace tb {
namespace {
const int kAcceptSliceMs = 200;  // how often the acceptor looks at the stop flag
}

void run_iterative(const ServerConfig &config, int listen_fd) {
  Service svc(config);
  while (!stopping.load()) {
    int fd = accept_connection(listen_fd, kAcceptSliceMs);
    if (fd >= 0) serve_connection(svc, fd);
  }
}

void run_thread_per_connection(const ServerConfig &config, int listen_fd) {
  struct Census {  // shared with the connection threads, which may outlive a slow stop
    std::mutex m;
    std::condition_variable all_done;
    int active = 0;
  };
  auto census = std::make_shared<Census>();
  while (!stopping.load()) {
    int fd = accept_connection(listen_fd, kAcceptSliceMs);
    if (fd < 0) continue;
    {
      std::lock_guard<std::mutex> hold(census->m);
      ++census->active;
    }
    try {
      std::thread([census, &config, fd] {
        {
          Service svc(config);
          serve_connection(svc, fd);
        }
        std::lock_guard<std::mutex> hold(census->m);
        if (--census->active == 0) census->all_done.notify_all();
      }).detach();
    } catch (const std::system_error &e) {  // out of threads: refuse this one connection
      std::fprintf(stderr, "tb-gsoap-server: cannot start a thread: %s\n", e.what());
      close(fd);
      std::lock_guard<std::mutex> hold(census->m);
      --census->active;
    }
  }
  std::unique_lock<std::mutex> lock(census->m);
  census->all_done.wait_for(lock, std::chrono::seconds(9), [&] { return census->active == 0; });
}

}  // namespace tb
