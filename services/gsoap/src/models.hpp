// The three server models, an explicit named choice (GSOAP_SERVER_MODEL):
//   iterative  one thread accepts a connection and serves it until it closes; one request
//              at a time, the others wait in the listen backlog.
//   thread     an acceptor starts a thread per connection.
//   pool       an acceptor thread accepts every connection into one epoll set (one-shot
//              registrations); GSOAP_POOL_SIZE worker threads wait on that set, and the
//              connection whose request arrived wakes one of them, which serves that one
//              request and registers the connection again. So the pool bounds requests in
//              service, not connections held open (like Tomcat's NIO connector), an idle
//              kept-alive connection never blocks a worker, and a request costs one thread
//              wake-up.
// Each returns when `stopping` is set and the requests in flight are done.
#pragma once

#include "config.hpp"

namespace tb {

void run_iterative(const ServerConfig &config, int listen_fd);
void run_thread_per_connection(const ServerConfig &config, int listen_fd);
void run_pool(const ServerConfig &config, int listen_fd);

}  // namespace tb
