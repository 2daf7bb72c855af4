// Leaving the load balancer's rotation before stopping (the same rule as the Java tiers'
// java-common Drain). On SIGTERM the service does not stop listening at once: GET /health
// answers 404 "draining" (HAProxy's `http-check disable-on-404` takes the server out of
// rotation at the first such answer) and requests that still arrive are served; once the
// balancer has stopped sending, `stopping` is set and the server model winds down as before.
//
// Draining ends once no request (other than a health check) came for kQuietMs and either a
// health check was answered "draining" or none came for kChecksGoneMs; at most kMaxMs. A
// service no balancer watches (no health check in the kWatchedMs before the signal) does
// not drain.
#pragma once

namespace tb {

// The signal handler's part: async-signal-safe.
void drain_begin_from_signal();
// A request other than a health check was served (called by the serving thread).
void drain_request_done();
// A health check arrived; true when it must be answered "draining" (404).
bool drain_health_checked();
// Starts the thread that turns a begun drain into `stopping` when the rule says so.
void start_drain_watcher();

// The rule itself, on millisecond timestamps (tests).
bool drain_is_done(long now, long began, long last_request, long last_health, bool announced);

}  // namespace tb
