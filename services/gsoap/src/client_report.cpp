// tb-gsoap-client's output (client_run.hpp): the JSON object of docs/tiers.md, or a few
// lines of text, and the exit status.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "client_run.hpp"
#include "json.hpp"

namespace tb {
namespace {

// Nearest-rank percentile of sorted values.
int64_t percentile(const std::vector<int64_t> &sorted, int p) {
  const size_t n = sorted.size();
  const size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(n)));
  return sorted[std::min(n - 1, rank > 0 ? rank - 1 : 0)];
}

JsonObject latency_ms(std::vector<int64_t> ns) {
  std::sort(ns.begin(), ns.end());
  double sum = 0;
  for (int64_t v : ns) sum += static_cast<double>(v);
  return JsonObject()
      .dbl("mean", sum / static_cast<double>(ns.size()) / 1e6)
      .dbl("p50", percentile(ns, 50) / 1e6)
      .dbl("p90", percentile(ns, 90) / 1e6)
      .dbl("p99", percentile(ns, 99) / 1e6)
      .dbl("max", ns.back() / 1e6);
}

JsonObject timings_ms(const Timings &t, int calls) {
  const double per = 1e6 * calls;
  return JsonObject()
      .dbl("serialize_ms", t.serialize / per, 4)
      .dbl("connect_ms", t.connect / per, 4)
      .dbl("send_ms", t.send / per, 4)
      .dbl("wait_ms", t.wait / per, 4)
      .dbl("receive_ms", t.receive / per, 4)
      .dbl("total_ms", t.total / per, 4);
}

JsonObject work_of(const Outcome &o) {
  return JsonObject().str("implementation", o.implementation).str("host", o.host).num("pid", o.pid);
}

}  // namespace

std::string report_json(const ClientOptions &o, const RunResult &r) {
  const Outcome none;
  const Outcome &s = r.sample ? *r.sample : none;
  JsonObject j;
  j.str("client", "gsoap").str("serializers", serializers_name(o.serializers));
  j.str("endpoint", o.endpoint).str("op", o.op).num("n", o.n);
  j.unum("seed", o.seed).num("calls", o.calls).num("connections", r.connections);
  j.num("ok", r.ok).num("errors", r.errors());
  j.opt_num("count", s.count).opt_num("checksum", s.checksum);
  j.opt_num("expected_checksum", s.expected_checksum);
  if (s.echo_equal) j.boolean("echo_equal", *s.echo_equal);
  else j.null("echo_equal");
  if (s.served) j.obj("work", work_of(s));
  else j.null("work");
  j.opt_num("request_bytes", r.request_bytes).opt_num("response_bytes", r.response_bytes);
  j.dbl("seconds", r.seconds, 6);
  if (r.seconds > 0) j.dbl("throughput_rps", o.calls / r.seconds);
  else j.null("throughput_rps");
  j.obj("latency_ms", latency_ms(r.latency_ns));
  if (r.first_fault.empty()) j.null("fault");
  else j.str("fault", r.first_fault);
  j.obj("timings", timings_ms(r.timings, o.calls));
  return j.text() + "\n";
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
  if (r.sample && r.sample->served) out << "served by: " << work_of(*r.sample).text() << "\n";
  if (r.request_bytes)
    out << "bodies: request " << *r.request_bytes << " bytes, response "
        << r.response_bytes.value_or(0) << " bytes\n";
  out << "latency ms: " << latency_ms(r.latency_ns).text() << "\n";
  out << "timings (mean ms per call): " << timings_ms(r.timings, o.calls).text() << "\n";
  if (!r.first_fault.empty()) out << "first fault: " << r.first_fault << "\n";
  return out.str();
}

std::string dry_run_json(const ClientOptions &o) {
  const PayloadDigest d = digest_payload(o.op, o.n, o.seed);
  JsonObject j;
  j.str("client", "gsoap").str("op", o.op).num("n", o.n).unum("seed", o.seed);
  if (d.kind.empty()) return j.null("kind").null("count").null("checksum").text() + "\n";
  j.str("kind", d.kind).num("count", d.count).unum("checksum", d.checksum);
  if (o.n <= 16) j.str("items_hex", d.items_hex);
  return j.text() + "\n";
}

int exit_status(const RunResult &r) {
  if (r.mismatches > 0) return 1;
  return r.faults > 0 ? 3 : 0;
}

}  // namespace tb
