// The service's own count of the requests it served, health checks and GET /served left out:
// what a load generator's success count is checked against. GET /served answers it as JSON
// ({"started", "ok", "errors", "in_flight"}; a failed request -- a fault or a refusal -- is an
// error, without the Java tiers' 4xx/5xx split).
#pragma once

#include <string>

namespace tb {

void served_begin();                       // any request began (in flight)
void served_end(bool counted, bool ok);    // it ended; counted = not a health/served GET
std::string served_json();

struct ServedCounts {
  long started, ok, errors, in_flight;     // in_flight: the request asking included
};
ServedCounts served_counts();              // for GET /metrics (metrics.hpp)

}  // namespace tb
