// See served.hpp.
#include "served.hpp"

#include <atomic>
#include <cstdio>

#include "metrics.hpp"
#include "tracing.hpp"

namespace tb {
namespace {
std::atomic<long> started{0}, ok_count{0}, errors{0}, in_flight{0};
}  // namespace

void served_begin() {
  in_flight.fetch_add(1);
  metrics_request_begin();
  trace_request_begin();
}

void served_end(bool counted, bool ok) {
  metrics_request_end(counted, ok);
  trace_request_end(counted, ok);
  in_flight.fetch_sub(1);
  if (!counted) return;
  started.fetch_add(1);
  (ok ? ok_count : errors).fetch_add(1);
}

std::string served_json() {
  char buf[160];
  std::snprintf(buf, sizeof buf, "{\"started\":%ld,\"ok\":%ld,\"errors\":%ld,\"in_flight\":%ld}\n",
                started.load(), ok_count.load(), errors.load(), in_flight.load() - 1);  // minus this GET
  return buf;
}

ServedCounts served_counts() {
  return {started.load(), ok_count.load(), errors.load(), in_flight.load()};
}

}  // namespace tb
