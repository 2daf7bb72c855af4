// See tracing.hpp.
#include "tracing.hpp"

#include <netdb.h>
#include <strings.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cctype>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "metrics.hpp"

namespace tb {
namespace {

using Steady = std::chrono::steady_clock;
using Wall = std::chrono::system_clock;

constexpr size_t kQueueMax = 20000;       // spans waiting to be sent, at most
constexpr size_t kBatch = 500;            // spans per POST, at most
constexpr auto kFlushEvery = std::chrono::seconds(1);
constexpr int kTimeoutMs = 5000;          // connect, send, receive of one POST

struct Endpoint {
  std::string host, port = "80", path;
};

std::atomic<bool> enabled{false};
Endpoint zipkin;
std::string service;

// A finished request's spans, as the exporter needs them.
struct Finished {
  std::string trace_id, parent_id;
  int64_t begin_us = 0;                  // epoch microseconds
  int64_t parse_us = 0, op_us = 0, serialize_us = 0, total_us = 0;
  int op = -1;
  bool ok = true;
};

std::mutex queue_lock;
std::condition_variable queue_wake;
std::vector<Finished> queue;
std::atomic<uint64_t> spans{0}, sent{0}, dropped{0}, post_errors{0}, capped{0};
std::mutex cap_lock;
RateCap *cap = nullptr;  // set by tracing_start

// What this thread's current request carries.
struct Current {
  bool sampled = false;
  int headers = 0;  // traceparent header lines seen: more than one is no valid context
  std::string trace_id, parent_id;
};
thread_local Current current;

bool hex_run(const char *s, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (!std::isxdigit(static_cast<unsigned char>(s[i])) || std::isupper(static_cast<unsigned char>(s[i])))
      return false;
  return true;
}

std::string random_id() {
  thread_local std::mt19937_64 gen{std::random_device{}() ^
                                   static_cast<uint64_t>(Steady::now().time_since_epoch().count())};
  uint64_t v = 0;
  while (v == 0) v = gen();
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

bool parse_url(const std::string &url, Endpoint &out) {
  const std::string scheme = "http://";
  if (url.compare(0, scheme.size(), scheme) != 0) return false;
  std::string rest = url.substr(scheme.size());
  const size_t slash = rest.find('/');
  std::string hostport = rest.substr(0, slash);
  std::string base = slash == std::string::npos ? "" : rest.substr(slash);
  while (!base.empty() && base.back() == '/') base.pop_back();
  const size_t colon = hostport.rfind(':');
  out.host = colon == std::string::npos ? hostport : hostport.substr(0, colon);
  if (colon != std::string::npos) out.port = hostport.substr(colon + 1);
  out.path = base + "/api/v2/spans";
  return !out.host.empty();
}

bool resolves(const Endpoint &e) {
  addrinfo hints{}, *res = nullptr;
  hints.ai_socktype = SOCK_STREAM;
  if (getaddrinfo(e.host.c_str(), e.port.c_str(), &hints, &res) != 0) return false;
  freeaddrinfo(res);
  return true;
}

// One HTTP/1.1 POST of a JSON body; true on a 2xx answer.
bool post(const Endpoint &e, const std::string &body, std::string &why) {
  addrinfo hints{}, *res = nullptr;
  hints.ai_socktype = SOCK_STREAM;
  if (int rc = getaddrinfo(e.host.c_str(), e.port.c_str(), &hints, &res); rc != 0) {
    why = std::string("resolve: ") + gai_strerror(rc);
    return false;
  }
  int fd = -1;
  for (addrinfo *a = res; a && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    timeval tv{kTimeoutMs / 1000, (kTimeoutMs % 1000) * 1000};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);  // connect too (Linux)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(res);
  if (fd < 0) {
    why = std::string("connect: ") + std::strerror(errno);
    return false;
  }
  std::string req = "POST " + e.path + " HTTP/1.1\r\nHost: " + e.host + ":" + e.port +
                    "\r\nContent-Type: application/json\r\nContent-Length: " +
                    std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
  for (size_t off = 0; off < req.size();) {
    ssize_t n = send(fd, req.data() + off, req.size() - off, MSG_NOSIGNAL);
    if (n <= 0) {
      why = std::string("send: ") + std::strerror(errno);
      close(fd);
      return false;
    }
    off += static_cast<size_t>(n);
  }
  char status[64] = {};
  ssize_t n = recv(fd, status, sizeof status - 1, 0);
  close(fd);
  if (n < 12 || std::strncmp(status, "HTTP/1.", 7) != 0 || status[9] != '2') {
    why = n > 0 ? std::string("answer: ") + std::string(status, std::strcspn(status, "\r\n"))
                : std::string("no answer");
    return false;
  }
  return true;
}

nlohmann::json span(const std::string &trace_id, const std::string &id, const std::string &parent,
                    const std::string &name, int64_t ts, int64_t duration) {
  return {{"traceId", trace_id}, {"id", id}, {"parentId", parent}, {"name", name},
          {"timestamp", ts}, {"duration", duration < 1 ? 1 : duration},
          {"localEndpoint", {{"serviceName", service}}}};
}

// The four spans of one request.
void add_spans(nlohmann::json &out, const Finished &f) {
  const std::string id = random_id();
  nlohmann::json server = span(f.trace_id, id, f.parent_id, "post /gsoap", f.begin_us, f.total_us);
  server["kind"] = "SERVER";
  server["tags"] = {{"soap.operation", f.op >= 0 ? operation_name(f.op) : "none"},
                    {"outcome", f.ok ? "ok" : "error"}};
  if (!f.ok) server["tags"]["error"] = "request failed (SOAP fault or refused)";
  out.push_back(std::move(server));
  if (f.op < 0) return;  // no operation ran: no phases to show
  int64_t at = f.begin_us;
  out.push_back(span(f.trace_id, random_id(), id, "parse request", at, f.parse_us));
  at += f.parse_us;
  out.push_back(span(f.trace_id, random_id(), id, std::string("operation ") + operation_name(f.op), at,
                     f.op_us));
  at += f.op_us;
  out.push_back(span(f.trace_id, random_id(), id, "serialize response", at, f.serialize_us));
}

void exporter() {
  std::vector<Finished> batch;
  uint64_t reported = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(queue_lock);
      queue_wake.wait_for(lock, kFlushEvery, [] { return queue.size() >= kBatch; });
      const size_t take = std::min(queue.size(), kBatch);
      batch.assign(std::make_move_iterator(queue.begin()), std::make_move_iterator(queue.begin() + take));
      queue.erase(queue.begin(), queue.begin() + take);
    }
    if (batch.empty()) continue;
    nlohmann::json body = nlohmann::json::array();
    for (const Finished &f : batch) add_spans(body, f);
    std::string why;
    if (post(zipkin, body.dump(), why)) {
      sent += batch.size();
    } else {
      dropped += batch.size();
      const uint64_t errors = ++post_errors;
      if (errors == 1 || errors == 10 || errors == 100 || errors % 1000 == 0)
        std::fprintf(stderr, "tb-gsoap-server: tracing: POST http://%s:%s%s: %s (%zu requests' spans dropped)\n",
                     zipkin.host.c_str(), zipkin.port.c_str(), zipkin.path.c_str(), why.c_str(), batch.size());
    }
    if (dropped.load() + capped.load() != reported) {
      reported = dropped.load() + capped.load();
      std::fprintf(stderr,
                   "tb-gsoap-server: tracing: %llu requests traced, %llu sent, %llu dropped, %llu over the cap of "
                   "%g/s (TRACING_MAX_PER_S)\n",
                   static_cast<unsigned long long>(spans.load()), static_cast<unsigned long long>(sent.load()),
                   static_cast<unsigned long long>(dropped.load()), static_cast<unsigned long long>(capped.load()),
                   cap ? cap->per_s() : 0.0);
    }
    batch.clear();
  }
}

int64_t micros(Steady::duration d) {
  return std::chrono::duration_cast<std::chrono::microseconds>(d).count();
}

}  // namespace

TraceContext parse_trace_context(const char *val, std::string &trace_id, std::string &parent_id) {
  // version "00": exactly 55 characters, lower-case hex, ids not all zero
  if (!val || std::strlen(val) != 55 || std::strncmp(val, "00-", 3) != 0 || val[35] != '-' ||
      val[52] != '-' || !hex_run(val + 3, 32) || !hex_run(val + 36, 16) || !hex_run(val + 53, 2))
    return TraceContext::invalid;
  if (std::strspn(val + 3, "0") >= 32 || std::strspn(val + 36, "0") >= 16) return TraceContext::invalid;
  trace_id.assign(val + 3, 32);
  parent_id.assign(val + 36, 16);
  const char last = val[54];
  const int low = last <= '9' ? last - '0' : last - 'a' + 10;
  return (low & 1) ? TraceContext::sampled : TraceContext::unsampled;
}

bool parse_traceparent(const char *val, std::string &trace_id, std::string &parent_id) {
  return parse_trace_context(val, trace_id, parent_id) == TraceContext::sampled;
}

RateCap::RateCap(double per_s)
    : per_s_(per_s), burst_(per_s < 1 ? 1 : per_s), tokens_(burst_),
      last_ns_(std::chrono::duration_cast<std::chrono::nanoseconds>(Steady::now().time_since_epoch()).count()) {}

bool RateCap::try_acquire() {
  std::lock_guard<std::mutex> lock(cap_lock);
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(Steady::now().time_since_epoch()).count();
  tokens_ = std::min(burst_, tokens_ + static_cast<double>(now - last_ns_) / 1e9 * per_s_);
  last_ns_ = now;
  if (tokens_ < 1) return false;
  tokens_ -= 1;
  return true;
}

double RateCap::from_env() {
  const char *raw = std::getenv("TRACING_MAX_PER_S");
  if (!raw || !*raw) return 1000;
  char *end = nullptr;
  const double v = std::strtod(raw, &end);
  while (end && std::isspace(static_cast<unsigned char>(*end))) ++end;
  return (end && *end == 0 && v > 0 && std::isfinite(v)) ? v : 1000;
}

std::string tracing_start(const char *service_name) {
  const char *url = std::getenv("ZIPKIN_URL");
  const char *mode = std::getenv("TRACING");
  if (!url || !*url || (mode && std::strcmp(mode, "0") == 0)) return "";
  if (!parse_url(url, zipkin)) return std::string("tracing off: ZIPKIN_URL=") + url + " is not http://HOST[:PORT]";
  if (!resolves(zipkin)) return std::string("tracing off: ") + zipkin.host + " (ZIPKIN_URL) does not resolve";
  service = service_name;
  cap = new RateCap(RateCap::from_env());  // lives as long as the process
  queue.reserve(kQueueMax);
  std::thread(exporter).detach();
  enabled = true;
  char rate[32];
  std::snprintf(rate, sizeof rate, "%g", cap->per_s());
  return "tracing on: sampled requests' spans (at most " + std::string(rate) + "/s, TRACING_MAX_PER_S) to http://" +
         zipkin.host + ":" + zipkin.port + zipkin.path;
}

bool tracing_on() { return enabled.load(std::memory_order_relaxed); }

void trace_request_begin() {
  if (current.sampled || current.headers) current = Current{};
}

void trace_header(const char *key, const char *val) {
  if (!tracing_on() || strcasecmp(key, "traceparent") != 0) return;  // HTTP names: any case
  // a second traceparent makes the context invalid, whatever either says
  current.sampled = ++current.headers == 1 &&
                    parse_trace_context(val, current.trace_id, current.parent_id) == TraceContext::sampled;
}

bool trace_sampled_now() { return current.sampled; }

void trace_request_end(bool counted, bool ok) {
  if (!current.sampled) return;
  current.sampled = false;
  if (!counted) return;
  if (cap && !cap->try_acquire()) {
    ++capped;
    return;
  }
  const Steady::time_point end = Steady::now();
  const RequestPhases p = request_phases();
  Finished f;
  f.trace_id = std::move(current.trace_id);
  f.parent_id = std::move(current.parent_id);
  f.total_us = micros(end - p.begin);
  f.begin_us = std::chrono::duration_cast<std::chrono::microseconds>(Wall::now().time_since_epoch()).count() -
               f.total_us;
  f.op = p.op;
  if (p.op >= 0) {
    f.parse_us = micros(p.op_begin - p.begin);
    f.op_us = micros(p.op_end - p.op_begin);
    f.serialize_us = micros(end - p.op_end);
  }
  f.ok = ok;
  ++spans;
  std::unique_lock<std::mutex> lock(queue_lock, std::try_to_lock);
  if (!lock.owns_lock() || queue.size() >= kQueueMax) {
    ++dropped;
    return;
  }
  queue.push_back(std::move(f));
  if (queue.size() >= kBatch) queue_wake.notify_one();
}

TracingCounts tracing_counts() {
  return {spans.load(), sent.load(), dropped.load(), post_errors.load(), capped.load()};
}

}  // namespace tb
