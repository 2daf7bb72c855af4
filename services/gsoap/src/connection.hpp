// Serving requests on accepted connections, shared by the three server models: one
// request at a time on a given soap context, HTTP keep-alive, and the wait for the next
// request done in short slices so that a shutdown never waits for an idle client.
#pragma once

#include <atomic>

#include "service.hpp"

namespace tb {

// Set by SIGTERM/SIGINT: stop accepting, finish the requests in flight, exit.
extern std::atomic<bool> stopping;

// Waits until fd has bytes (or EOF) to read: false on timeout or when stopping (bytes that
// already arrived are still served).
bool wait_readable(int fd, int timeout_ms);

// Serves one HTTP request arriving on fd (the `index`-th on this connection). Returns true
// when the connection stays open for the next one (fd still ours); otherwise it is closed.
bool serve_request(Service &svc, int fd, int index);

// True when svc's context still holds unread bytes of a next (pipelined) request.
bool has_buffered_request(const Service &svc);

// Serves every request of one connection, then closes it.
void serve_connection(Service &svc, int fd);

// The listening socket of the service (soap_bind on a private context); exits on failure.
int listen_on(const ServerConfig &config);
// Accepts one connection when one is waiting within timeout_ms: its fd, or -1.
int accept_connection(int listen_fd, int timeout_ms);

}  // namespace tb
