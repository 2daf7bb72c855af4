// Measures each call on one proxy's soap context through gSOAP's callbacks: the HTTP body
// sizes (request: the Content-Length posted; response: the body bytes received, chunking
// removed) and where the time goes:
//   serialize  call start -> first HTTP header line out, minus connect: gSOAP's counting
//              pass over the request (it serializes once to learn the Content-Length)
//   connect    TCP connect, on a connection's first call (or after the server closed it)
//   send       header out -> last byte handed to the socket (the second, real
//              serialization of the request, interleaved with writes)
//   wait       last byte out -> response headers parsed (the server's time + the network)
//   receive    response headers -> call returns (reading and deserializing the response)
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

#include "stdsoap2.h"

namespace tb {

struct Timings {  // nanoseconds, summed over calls
  int64_t serialize = 0, connect = 0, send = 0, wait = 0, receive = 0, total = 0;
  void add(const Timings &t);
};

class CallMeter {
 public:
  using Clock = std::chrono::steady_clock;

  void install(struct soap *soap);      // once, on a fresh proxy context
  void begin();                         // before each call
  Timings end();                        // after each call: this call's timings

  std::optional<uint64_t> request_bytes() const { return request_bytes_; }
  std::optional<uint64_t> response_bytes() const { return response_bytes_; }

 private:
  static CallMeter &of(struct soap *soap) { return *static_cast<CallMeter *>(soap->user); }
  static SOAP_SOCKET open(struct soap *, const char *, const char *, int);
  static int post_header(struct soap *, const char *, const char *);
  static int send(struct soap *, const char *, size_t);
  static int parse(struct soap *);
  static int prepare_received(struct soap *, const char *, size_t);

  SOAP_SOCKET (*gsoap_open_)(struct soap *, const char *, const char *, int) = nullptr;
  int (*gsoap_post_header_)(struct soap *, const char *, const char *) = nullptr;
  int (*gsoap_send_)(struct soap *, const char *, size_t) = nullptr;
  int (*gsoap_parse_)(struct soap *) = nullptr;

  Clock::time_point start_, header_out_, last_send_, header_in_;
  int64_t connect_ns_ = 0;
  bool header_started_ = false, in_body_ = false;
  std::optional<uint64_t> request_bytes_, response_bytes_;
};

}  // namespace tb
