// Tracing of the gSOAP service (docs/tracing.md): for a request whose W3C traceparent has the
// sampled flag, one SERVER span (child of the caller's span) with three children -- "parse
// request" (first bytes to the body parsed: HTTP read, XML parse, deserialization), "operation
// <name>" (the operation, SERVICE demand included) and "serialize response" (serialization
// and the writes) -- sent to Zipkin as JSON (its v2 API), in batches, by a thread of its own.
// No OpenTelemetry C++ SDK exists in Debian 12, hence this small exporter.
//
// On when ZIPKIN_URL (e.g. http://127.0.0.1:9411) is set and its host resolves at start-up
// (compose: the zipkin service of the profile "tracing" runs), unless TRACING=0. Off, a request
// costs one header-name comparison per header line and nothing else.
//
// The request path never waits for the exporter: a finished span goes into a bounded queue
// (kQueueMax) under a try-lock; when the lock is busy or the queue full, the request's spans
// are dropped and counted (tracing_counts; the exporter logs the counts to stderr).
//
// Bounded in bytes: the spans' names and tags come from a fixed table (never the request's
// path or headers), each queued request is a fixed-size record, so the queue holds at most
// kQueueMax records of about 250 bytes with their two ids (~5 MB), and a batch's JSON at most
// kBatch * 4 spans of under 400 bytes each.
//
// The context rule (W3C Trace Context level 1, the same at every tier and in HAProxy): exactly
// one traceparent header (its name in any case), "00-<32 hex>-<16 hex>-<2 hex>", lower-case
// hex, ids not all zero; anything else is no trace. Sampled requests are recorded at most
// TRACING_MAX_PER_S a second (default 1000; a token bucket): beyond, untraced and counted.
//
// Hooks: served.cpp brackets each request (trace_request_begin / _end), the header hook
// (context.cpp) hands every header line to trace_header, server.cpp calls tracing_start.
#pragma once

#include <cstdint>
#include <string>

namespace tb {

// Reads ZIPKIN_URL / TRACING and starts the exporter thread when tracing is on; returns one line
// for the start-up log ("" when off).
std::string tracing_start(const char *service_name = "gsoap");
bool tracing_on();

void trace_request_begin();                        // this thread starts serving a request
void trace_header(const char *key, const char *val);  // every HTTP header line of it
void trace_request_end(bool counted, bool ok);     // it ended (served_end's arguments)
bool trace_sampled_now();                          // the headers so far make this request traced

enum class TraceContext { invalid, unsampled, sampled };
// One traceparent value: invalid unless exactly "00-<32 hex>-<16 hex>-<2 hex>" as above; the
// ids are set when it is valid.
TraceContext parse_trace_context(const char *val, std::string &trace_id, std::string &parent_id);
// Parses "00-<32 hex>-<16 hex>-<2 hex>": true and the ids when it is well formed and sampled.
bool parse_traceparent(const char *val, std::string &trace_id, std::string &parent_id);

// The rate cap of sampled requests: a token bucket of per_s a second (bursts of one second's).
class RateCap {
 public:
  explicit RateCap(double per_s);
  bool try_acquire();  // thread-safe
  double per_s() const { return per_s_; }
  static double from_env();  // TRACING_MAX_PER_S, else (unset, not a positive number) 1000

 private:
  double per_s_, burst_, tokens_;
  int64_t last_ns_;
};

struct TracingCounts {
  uint64_t spans = 0, sent = 0, dropped = 0, post_errors = 0, capped = 0;
};
TracingCounts tracing_counts();

}  // namespace tb
