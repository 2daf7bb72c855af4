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

// Parses "00-<32 hex>-<16 hex>-<2 hex>": true and the ids when it is well formed and sampled.
bool parse_traceparent(const char *val, std::string &trace_id, std::string &parent_id);

struct TracingCounts {
  uint64_t spans = 0, sent = 0, dropped = 0, post_errors = 0;
};
TracingCounts tracing_counts();

}  // namespace tb
