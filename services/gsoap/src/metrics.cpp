// See metrics.hpp.
#include "metrics.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "served.hpp"

namespace tb {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char *kOperationNames[] = {"ping",        "sendBytes",     "sendInts", "sendFloats",
                                           "sendDoubles", "sendIntBuffer", "echoInts", "work"};
constexpr size_t kOperations = sizeof kOperationNames / sizeof kOperationNames[0];

// Upper bounds in seconds: 50 us (a ping's parse on loopback) .. 10 s (a multi-MiB message
// on a busy host); the last bucket is +Inf.
constexpr std::array<double, 17> kBounds = {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025,
                                            0.005,   0.01,   0.025,   0.05,   0.1,   0.25,
                                            0.5,     1,      2.5,     5,      10};

// A histogram of durations, lock-free: per-bucket counts (not cumulative until printed), the
// sum in nanoseconds.
struct Histogram {
  std::array<std::atomic<uint64_t>, kBounds.size() + 1> buckets{};
  std::atomic<uint64_t> sum_ns{0};

  void observe(Clock::duration d) {
    const int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
    const double s = ns > 0 ? ns / 1e9 : 0.0;
    size_t i = 0;
    while (i < kBounds.size() && s > kBounds[i]) ++i;
    buckets[i].fetch_add(1, std::memory_order_relaxed);
    sum_ns.fetch_add(ns > 0 ? static_cast<uint64_t>(ns) : 0, std::memory_order_relaxed);
  }
};

Histogram parse_time[kOperations], operation_time[kOperations], serialize_time[kOperations];

// What this thread's current request went through (every server model serves a request
// on one thread from its first byte to its last).
struct RequestClock {
  Clock::time_point begin, op_begin, op_end;
  int op = -1;  // no operation ran (a GET, a fault before dispatch)
};
thread_local RequestClock current;

void print_histogram(std::ostringstream &out, const char *name, const char *help, const Histogram *h) {
  out << "# HELP " << name << ' ' << help << "\n# TYPE " << name << " histogram\n";
  char bound[32];
  for (size_t op = 0; op < kOperations; ++op) {
    uint64_t cumulative = 0;
    for (size_t i = 0; i <= kBounds.size(); ++i) {
      cumulative += h[op].buckets[i].load(std::memory_order_relaxed);
      if (i < kBounds.size())
        std::snprintf(bound, sizeof bound, "%g", kBounds[i]);
      else
        std::snprintf(bound, sizeof bound, "+Inf");
      out << name << "_bucket{operation=\"" << kOperationNames[op] << "\",le=\"" << bound << "\"} "
          << cumulative << '\n';
    }
    char sum[40];
    std::snprintf(sum, sizeof sum, "%.9f", h[op].sum_ns.load(std::memory_order_relaxed) / 1e9);
    out << name << "_sum{operation=\"" << kOperationNames[op] << "\"} " << sum << '\n'
        << name << "_count{operation=\"" << kOperationNames[op] << "\"} " << cumulative << '\n';
  }
}

// Seconds since the epoch at which this process started (/proc/self/stat field 22, in
// clock ticks after boot, plus the boot time of /proc/stat); 0 when unreadable.
double start_time_seconds() {
  std::ifstream stat("/proc/self/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t paren = text.rfind(')');
  if (paren == std::string::npos) return 0;
  std::istringstream fields(text.substr(paren + 2));
  std::string field;
  unsigned long long ticks = 0;
  for (int i = 3; i <= 22 && fields >> field; ++i)
    if (i == 22) ticks = std::stoull(field);
  std::ifstream boot("/proc/stat");
  std::string key;
  unsigned long long btime = 0;
  while (boot >> key)
    if (key == "btime" && boot >> btime) break;
  const long hz = sysconf(_SC_CLK_TCK);
  return hz > 0 && btime ? btime + static_cast<double>(ticks) / hz : 0;
}

}  // namespace

void metrics_request_begin() {
  current = RequestClock{};
  current.begin = Clock::now();
}

void metrics_request_end(bool counted, bool ok) {
  if (!counted || current.op < 0) return;
  const auto end = Clock::now();
  const size_t op = static_cast<size_t>(current.op);
  parse_time[op].observe(current.op_begin - current.begin);
  operation_time[op].observe(current.op_end - current.op_begin);
  if (ok) serialize_time[op].observe(end - current.op_end);
}

OperationTimer::OperationTimer(Operation op) {
  current.op = static_cast<int>(op);
  current.op_begin = Clock::now();
}

OperationTimer::~OperationTimer() { current.op_end = Clock::now(); }

RequestPhases request_phases() { return {current.begin, current.op_begin, current.op_end, current.op}; }

const char *operation_name(int op) {
  return op >= 0 && static_cast<size_t>(op) < kOperations ? kOperationNames[op] : "none";
}

std::string metrics_text() {
  const ServedCounts served = served_counts();
  std::ostringstream out;
  out << "# HELP gsoap_requests_total SOAP requests served, by outcome (health checks and metrics "
         "scrapes left out)\n# TYPE gsoap_requests_total counter\n"
      << "gsoap_requests_total{outcome=\"ok\"} " << served.ok << '\n'
      << "gsoap_requests_total{outcome=\"error\"} " << served.errors << '\n'
      << "# HELP gsoap_requests_in_flight Requests being served now (this scrape left out)\n"
         "# TYPE gsoap_requests_in_flight gauge\n"
      << "gsoap_requests_in_flight " << (served.in_flight > 0 ? served.in_flight - 1 : 0) << '\n';
  print_histogram(out, "gsoap_request_parse_seconds",
                  "Time from a request's first bytes to its body parsed (HTTP read, XML parse, "
                  "deserialization)",
                  parse_time);
  print_histogram(out, "gsoap_operation_seconds",
                  "Time in the operation itself (the SERVICE demand knobs included)", operation_time);
  print_histogram(out, "gsoap_response_serialize_seconds",
                  "Time from the operation's end to the response sent (serialization and socket "
                  "writes); failed responses left out",
                  serialize_time);
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  const double cpu = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
                     (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  long pages = 0, resident = 0;
  std::ifstream("/proc/self/statm") >> pages >> resident;
  char line[200];
  std::snprintf(line, sizeof line,
                "# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.\n"
                "# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total %.6f\n",
                cpu);
  out << line;
  out << "# HELP process_resident_memory_bytes Resident memory size in bytes.\n"
         "# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes "
      << resident * sysconf(_SC_PAGESIZE) << '\n';
  static const double started = start_time_seconds();
  std::snprintf(line, sizeof line,
                "# HELP process_start_time_seconds Start time of the process since unix epoch in "
                "seconds.\n# TYPE process_start_time_seconds gauge\nprocess_start_time_seconds %.2f\n",
                started);
  out << line;
  return out.str();
}

}  // namespace tb
