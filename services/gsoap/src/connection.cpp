// Request and connection loops shared by the server models (connection.hpp).
#include "connection.hpp"

#include "drain.hpp"
#include "served.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace tb {

std::atomic<bool> stopping{false};

namespace {
const int kSliceMs = 200;     // how often a waiting thread looks at the stop flag
const int kQuietMs = 1000;    // after a failed request: input drained until quiet this long

// Writes all of data within timeout_s; false when the client does not take it.
bool send_all(int fd, const std::string &data, int timeout_s) {
  size_t done = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  while (done < data.size()) {
    ssize_t n = send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EINTR) return false;
    pollfd p{fd, POLLOUT, 0};
    if (std::chrono::steady_clock::now() >= deadline || poll(&p, 1, kSliceMs) < 0) return false;
  }
  return true;
}

// The answer to a request gSOAP gave up on without answering (a body cut off by the client
// or at the size limit, garbage instead of XML): a SOAP 1.1 Client fault, or HTTP 413.
void send_canned_fault(int fd, const ContextState &st, int error, int timeout_s, bool timed_out) {
  const char *why = st.failure_text(error);
  const std::string status = st.too_large ? "413 Request Entity Too Large"
                             : timed_out  ? "408 Request Timeout"
                                          : "500 Internal Server Error";
  const std::string text =
      timed_out ? "request not received within GSOAP_TRANSFER_TIMEOUT_S (" +
                      std::to_string(st.config->transfer_timeout_s) + " s)"
      : why     ? why
                : "malformed HTTP or SOAP request (gSOAP error " + std::to_string(error) + ")";
  const std::string body =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<SOAP-ENV:Envelope xmlns:SOAP-ENV=\"http://schemas.xmlsoap.org/soap/envelope/\">"
      "<SOAP-ENV:Body><SOAP-ENV:Fault><faultcode>SOAP-ENV:Client</faultcode><faultstring>" +
      text + "</faultstring></SOAP-ENV:Fault></SOAP-ENV:Body></SOAP-ENV:Envelope>\n";
  send_all(fd,
           "HTTP/1.1 " + status + "\r\nServer: gSOAP/2.8\r\n"
           "Content-Type: text/xml; charset=utf-8\r\nContent-Length: " +
               std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body,
           timeout_s);
}

// Closes a connection. After a failed request the client may still be sending (a body
// refused with 413 from its Content-Length): stop writing, then read and drop its input
// until it stops (EOF, or nothing for a second; at most max_ms), so that closing with
// unread bytes does not reset the connection before the client has read the answer.
void close_connection(int fd, bool linger, int max_ms) {
  if (linger) {
    shutdown(fd, SHUT_WR);
    char sink[65536];
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(max_ms);
    while (std::chrono::steady_clock::now() < deadline && !stopping.load()) {
      pollfd p{fd, POLLIN, 0};
      if (poll(&p, 1, kQuietMs) <= 0) break;  // quiet for a second (or an error)
      if (recv(fd, sink, sizeof sink, MSG_DONTWAIT) <= 0) break;  // EOF
    }
  }
  close(fd);
}

// gSOAP's soap_begin_serve (the request's HTTP headers, the envelope and body start; a
// fault or the GET answer if they fail) without the soap_free_temp of its soap_begin:
// soap_begin_recv, right after, frees the same temporaries and clears the id table again.
// Each clearing walks gSOAP's id and pointer hash tables (1 999 and 4 096 slots; callgrind:
// ~30 k instructions), a sixth of a ping's instructions. The rest of soap_begin is here.
int begin_serve(struct soap *soap) {
  soap->error = SOAP_OK;
  soap->encoding = 0;
  soap->mode = 0;
  soap->part = SOAP_END;
  soap->peeked = 0;
  soap->ahead = 0;
  soap->level = 0;
  soap->encodingStyle = "";  // SOAP encoding until the request says otherwise, as soap_begin
  if (soap_begin_recv(soap) || soap_envelope_begin_in(soap) || soap_recv_header(soap) ||
      soap_body_begin_in(soap)) {
    if (soap->error < SOAP_STOP) return soap_send_fault(soap);
    return soap_closesock(soap);
  }
  return SOAP_OK;
}

}  // namespace

bool wait_readable(int fd, int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (bool first = true;; first = false) {
    pollfd p{fd, POLLIN, 0};
    int slice = first ? 0 : kSliceMs;  // look first, so bytes already here are served
    int n = poll(&p, 1, slice);
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return false;
    if (stopping.load() || std::chrono::steady_clock::now() >= deadline) return false;
  }
}

bool serve_request(Service &svc, int fd, int index) {
  struct soap *soap = svc.soap;
  ContextState &st = *static_cast<ContextState *>(soap->user);
  st.begin_request(soap);
  served_begin();
  const auto started = std::chrono::steady_clock::now();
  const int max = soap->max_keep_alive;
  soap->socket = fd;
  soap->error = SOAP_OK;
  // keep_alive counts down the requests this connection may still carry; 0 makes this
  // response say "Connection: close". gSOAP clears it when the client asks for close.
  soap->keep_alive = stopping.load() ? 0 : max > 0 ? (index + 1 >= max ? 0 : max - index) : 1;
  if (begin_serve(soap)) {
    // GET handled (SOAP_STOP), or a fault was sent; either way the request is done
  } else if (svc.dispatch() && soap->error && soap->error < SOAP_STOP) {
    soap_send_fault(soap);
  }
  if (!st.health_check) drain_request_done();
  const int error = soap->error;
  const bool failed = error != SOAP_OK && error != SOAP_STOP;
  served_end(!st.health_check, !failed);
  if (failed && st.bytes_sent == 0 && st.bytes_received > 0)
    send_canned_fault(fd, st, error, soap->send_timeout,
                      std::chrono::steady_clock::now() - started >=
                          std::chrono::seconds(soap->transfer_timeout));
  const bool open = !failed && !st.close_wanted && soap->keep_alive != 0;
  if (!open) st.pending.clear();
  // Frees the request's objects and memory. Not soap_end (svc.destroy()): its extra
  // soap_free_temp clears gSOAP's id and pointer hash tables (48 KiB) once more, which the
  // next request's soap_begin and soap_begin_recv do anyway -- a third of a ping's
  // instructions went into clearing those tables (callgrind).
  soap_destroy(soap);
  soap_dealloc(soap, nullptr);
  soap->socket = SOAP_INVALID_SOCKET;  // the fd is the caller's again, or closed below
  if (!open) close_connection(fd, failed, soap->recv_timeout * 1000);
  return open;
}

bool has_buffered_request(const Service &svc) {
  return !static_cast<const ContextState *>(svc.soap->user)->pending.empty();
}

void serve_connection(Service &svc, int fd) {
  const int idle_ms = svc.soap->recv_timeout * 1000;
  for (int index = 0;; ++index) {
    if (!has_buffered_request(svc) && !wait_readable(fd, idle_ms)) {
      close(fd);
      return;
    }
    if (!serve_request(svc, fd, index)) return;  // closed
  }
}

int listen_on(const ServerConfig &config) {
  struct soap *soap = soap_new();
  soap->bind_flags = SO_REUSEADDR;  // restart at once after a stop
  SOAP_SOCKET s = soap_bind(soap, config.bind.c_str(), config.port, config.backlog);
  if (!soap_valid_socket(s)) {
    const char **why = soap_faultstring(soap);
    std::fprintf(stderr,
                 "tb-gsoap-server: cannot listen on %s:%d: %s; set PORT/BIND (or --port/--bind) "
                 "to a free address\n",
                 config.bind.c_str(), config.port, why && *why ? *why : "bind failed");
    std::exit(1);
  }
  soap->master = SOAP_INVALID_SOCKET;  // the fd outlives this context
  soap_free(soap);
  return s;
}

int accept_connection(int listen_fd, int timeout_ms) {
  pollfd p{listen_fd, POLLIN, 0};
  if (poll(&p, 1, timeout_ms) <= 0) return -1;
  int fd = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd < 0) return -1;
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // small responses go out now
  return fd;
}

}  // namespace tb
