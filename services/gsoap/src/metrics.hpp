// GET /metrics of the gSOAP service: its own Prometheus metrics in the text exposition
// format (version 0.0.4), with no library and no lock on the request path -- a request
// costs a few clock reads and atomic adds.
//
//   gsoap_requests_total{outcome}            requests served (ok | error), the /served count:
//                                            health checks and scrapes left out
//   gsoap_requests_in_flight                 requests being served now (this scrape left out)
//   gsoap_request_parse_seconds{operation}   from the request's first bytes to its body parsed
//                                            (HTTP read, XML parse, deserialization)
//   gsoap_operation_seconds{operation}       the operation itself (SERVICE demand included)
//   gsoap_response_serialize_seconds{operation}  from the operation's end to the response sent
//                                            (serialization and writing to the socket)
//   process_cpu_seconds_total, process_resident_memory_bytes, process_start_time_seconds
//
// Hooks: served.cpp brackets every request (metrics_request_begin/_end), each operation
// opens an OperationTimer (operations.cpp), http_get.cpp answers GET /metrics.
#pragma once

#include <chrono>
#include <string>

namespace tb {

// The operations of the contract, in its order; an OperationTimer names one of them.
enum class Operation { ping, sendBytes, sendInts, sendFloats, sendDoubles, sendIntBuffer, echoInts, work };

void metrics_request_begin();                    // this thread starts serving a request
void metrics_request_end(bool counted, bool ok);  // ... and finished it (served_end's arguments)

// Marks the operation's start (the request is parsed) and, when it goes out of scope, its end.
class OperationTimer {
 public:
  explicit OperationTimer(Operation op);
  ~OperationTimer();
  OperationTimer(const OperationTimer &) = delete;
  OperationTimer &operator=(const OperationTimer &) = delete;
};

// The whole exposition (the request asking for it is not counted in flight).
std::string metrics_text();

// This thread's current request as the clock above saw it: begin, the operation's start and
// end (op: an Operation, -1 when none ran). Tracing (tracing.cpp) turns them into spans.
struct RequestPhases {
  std::chrono::steady_clock::time_point begin, op_begin, op_end;
  int op;
};
RequestPhases request_phases();
const char *operation_name(int op);

}  // namespace tb
