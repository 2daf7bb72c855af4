// tb-gsoap-client's output (client_run.hpp): the JSON object of docs/tiers.md, or a few
// lines of text, and the exit status.
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "client_run.hpp"

namespace tb {
namespace {

using Json = nlohmann::ordered_json;  // keys in the order docs/tiers.md lists them

// v rounded to `digits` decimals for humans (NaN and infinities are written as null)
double rounded(double v, int digits) {
  const double scale = std::pow(10.0, digits);
  return std::isfinite(v) ? std::round(v * scale) / scale : v;
}

template <typename T>
Json or_null(const std::optional<T> &v) {
  return v ? Json(*v) : Json(nullptr);
}

// Nearest-rank percentile of sorted values.
int64_t percentile(const std::vector<int64_t> &sorted, int p) {
  const size_t n = sorted.size();
  const size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(n)));
  return sorted[std::min(n - 1, rank > 0 ? rank - 1 : 0)];
}

Json latency_ms(std::vector<int64_t> ns) {
  std::sort(ns.begin(), ns.end());
  double sum = 0;
  for (int64_t v : ns) sum += static_cast<double>(v);
  Json j;
  j["mean"] = rounded(sum / static_cast<double>(ns.size()) / 1e6, 3);
  j["p50"] = rounded(percentile(ns, 50) / 1e6, 3);
  j["p90"] = rounded(percentile(ns, 90) / 1e6, 3);
  j["p99"] = rounded(percentile(ns, 99) / 1e6, 3);
  j["max"] = rounded(ns.back() / 1e6, 3);
  return j;
}

Json timings_ms(const Timings &t, int calls) {
  const double per = 1e6 * calls;
  Json j;
  j["serialize_ms"] = rounded(t.serialize / per, 4);
  j["connect_ms"] = rounded(t.connect / per, 4);
  j["send_ms"] = rounded(t.send / per, 4);
  j["wait_ms"] = rounded(t.wait / per, 4);
  j["receive_ms"] = rounded(t.receive / per, 4);
  j["total_ms"] = rounded(t.total / per, 4);
  return j;
}

Json work_of(const Outcome &o) {
  Json j;
  j["implementation"] = o.implementation;
  j["host"] = o.host;
  j["pid"] = o.pid;
  return j;
}

}  // namespace

std::string report_json(const ClientOptions &o, const RunResult &r) {
  const Outcome none;
  const Outcome &s = r.sample ? *r.sample : none;
  Json j;
  j["client"] = "gsoap";
  j["serializers"] = serializers_name(o.serializers);
  j["endpoint"] = o.endpoint;
  j["op"] = o.op;
  j["n"] = o.n;
  j["seed"] = o.seed;
  j["calls"] = o.calls;
  j["connections"] = r.connections;
  j["ok"] = r.ok;
  j["errors"] = r.errors();
  j["count"] = or_null(s.count);
  j["checksum"] = or_null(s.checksum);
  j["expected_checksum"] = or_null(s.expected_checksum);
  j["echo_equal"] = or_null(s.echo_equal);
  j["work"] = s.served ? work_of(s) : Json(nullptr);
  j["request_bytes"] = or_null(r.request_bytes);
  j["response_bytes"] = or_null(r.response_bytes);
  j["seconds"] = rounded(r.seconds, 6);
  j["throughput_rps"] = r.seconds > 0 ? Json(rounded(o.calls / r.seconds, 3)) : Json(nullptr);
  j["latency_ms"] = latency_ms(r.latency_ns);
  j["fault"] = r.first_fault.empty() ? Json(nullptr) : Json(r.first_fault);
  j["timings"] = timings_ms(r.timings, o.calls);
  return j.dump() + "\n";
}

std::string report_text(const ClientOptions &o, const RunResult &r) {
  std::ostringstream out;
  out << "gsoap client: " << o.op << " n=" << o.n << " seed=" << o.seed << " -> " << o.endpoint
      << "\n";
  out << o.calls << " calls over " << r.connections << " connections in " << r.seconds << " s = "
      << (r.seconds > 0 ? o.calls / r.seconds : 0) << " calls/s; ok " << r.ok << ", errors "
      << r.errors() << "\n";
  if (r.sample && r.sample->checksum)
    out << "count " << *r.sample->count << " checksum " << *r.sample->checksum << " (expected "
        << *r.sample->expected_checksum << ")\n";
  if (r.sample && r.sample->echo_equal)
    out << "echo equal: " << (*r.sample->echo_equal ? "true" : "false") << "\n";
  if (r.sample && r.sample->served) out << "served by: " << work_of(*r.sample).dump() << "\n";
  if (r.request_bytes)
    out << "bodies: request " << *r.request_bytes << " bytes, response "
        << r.response_bytes.value_or(0) << " bytes\n";
  out << "latency ms: " << latency_ms(r.latency_ns).dump() << "\n";
  out << "timings (mean ms per call): " << timings_ms(r.timings, o.calls).dump() << "\n";
  if (!r.first_fault.empty()) out << "first fault: " << r.first_fault << "\n";
  return out.str();
}

std::string dry_run_json(const ClientOptions &o) {
  const PayloadDigest d = digest_payload(o.op, o.n, o.seed);
  Json j;
  j["client"] = "gsoap";
  j["op"] = o.op;
  j["n"] = o.n;
  j["seed"] = o.seed;
  if (d.kind.empty()) {
    j["kind"] = nullptr;
    j["count"] = nullptr;
    j["checksum"] = nullptr;
    return j.dump() + "\n";
  }
  j["kind"] = d.kind;
  j["count"] = d.count;
  j["checksum"] = d.checksum;
  if (o.n <= 16) j["items_hex"] = d.items_hex;
  return j.dump() + "\n";
}

int exit_status(const RunResult &r) {
  if (r.mismatches > 0) return 1;
  return r.faults > 0 ? 3 : 0;
}

}  // namespace tb
