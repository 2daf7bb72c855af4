// The run of tb-gsoap-client (client_run.hpp): proxies and connections-to-be are set up
// before the clock starts; then every worker makes calls until K were made.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "client_run.hpp"

namespace tb {
namespace {

using Clock = std::chrono::steady_clock;

const int kConnectTimeoutS = 10;
const int kIoTimeoutS = 120;  // a 10-million-item call on a busy machine

// "Client: reason" for a SOAP fault, "HTTP 404: reason" for an HTTP error, "transport:
// reason" for anything else.
std::string describe_fault(struct soap *soap) {
  const char **code = soap_faultcode(soap);
  const char **text = soap_faultstring(soap);
  const char **detail = soap_faultdetail(soap);
  const std::string c = code && *code ? *code : "";
  const std::string t = text && *text ? *text : "";
  const std::string d = detail && *detail ? std::string(" (") + *detail + ")" : "";
  if (soap->error == SOAP_FAULT && !c.empty()) {
    size_t colon = c.rfind(':');
    return (colon == std::string::npos ? c : c.substr(colon + 1)) + ": " + t;
  }
  if (soap->error >= 100 && soap->error < 600)
    return "HTTP " + std::to_string(soap->error) + ": " + (t.empty() ? "error" : t) + d;
  if (soap->error == SOAP_EOF)
    return "transport: the connection closed or timed out before a complete response";
  return "transport: " + (t.empty() ? "gSOAP error " + std::to_string(soap->error) : t) + d;
}

struct Shared {
  Shared(const ClientOptions &o, Exchange &e, RunResult &r) : options(o), exchange(e), result(r) {}
  const ClientOptions &options;
  Exchange &exchange;
  RunResult &result;
  std::atomic<int> next_call{0};
  std::mutex m;             // guards result's counters and samples
  std::condition_variable go;
  bool started = false;
  bool have_bytes = false;
  std::optional<Outcome> first_ok, first_mismatch;
};

class Worker {
 public:
  explicit Worker(Shared &shared)
      : shared_(shared), proxy_(shared.options.endpoint.c_str(), SOAP_IO_KEEPALIVE) {
    struct soap *soap = proxy_.soap;
    soap->connect_timeout = kConnectTimeoutS;
    soap->recv_timeout = soap->send_timeout = kIoTimeoutS;
    soap->maxoccurs = static_cast<size_t>(kMaxItems) + 1;  // echoInts of the largest payload
    use_serializers(soap, shared.options.serializers);
    meter_.install(soap);
  }

  void run() {
    {
      std::unique_lock<std::mutex> lock(shared_.m);
      shared_.go.wait(lock, [&] { return shared_.started; });
    }
    RunResult &r = shared_.result;
    Timings sum;
    for (int i = shared_.next_call++; i < shared_.options.calls; i = shared_.next_call++) {
      Outcome out;
      meter_.begin();
      const int err = shared_.exchange.call(proxy_, &out);
      const Timings t = meter_.end();
      r.latency_ns[static_cast<size_t>(i)] = t.total;
      sum.add(t);
      record(err, out);
      proxy_.destroy();  // the response's memory
    }
    // done: close now, so that a one-request-at-a-time server gets to the other connections
    proxy_.soap_force_close_socket();
    std::lock_guard<std::mutex> hold(shared_.m);
    r.timings.add(sum);
  }

 private:
  void record(int err, const Outcome &out) {
    RunResult &r = shared_.result;
    std::lock_guard<std::mutex> hold(shared_.m);
    if (err) {
      ++r.faults;
      if (r.first_fault.empty()) r.first_fault = describe_fault(proxy_.soap);
      return;
    }
    if (!shared_.have_bytes) {
      shared_.have_bytes = true;
      r.request_bytes = meter_.request_bytes();
      r.response_bytes = meter_.response_bytes();
    }
    if (out.checked) {
      ++r.ok;
      if (!shared_.first_ok) shared_.first_ok = out;
    } else {
      ++r.mismatches;
      if (!shared_.first_mismatch) shared_.first_mismatch = out;
    }
  }

  Shared &shared_;
  TestbedSoapBindingProxy proxy_;
  CallMeter meter_;
};

}  // namespace

RunResult run_calls(const ClientOptions &options, Exchange &exchange) {
  RunResult result;
  result.connections = std::min(options.connections, options.calls);
  result.latency_ns.assign(static_cast<size_t>(options.calls), 0);
  Shared shared(options, exchange, result);
  std::vector<std::unique_ptr<Worker>> workers;
  std::vector<std::thread> threads;
  for (int i = 0; i < result.connections; ++i) {
    workers.push_back(std::make_unique<Worker>(shared));
    threads.emplace_back(&Worker::run, workers.back().get());
  }
  const Clock::time_point t0 = Clock::now();
  {
    std::lock_guard<std::mutex> hold(shared.m);
    shared.started = true;
  }
  shared.go.notify_all();
  for (std::thread &t : threads) t.join();
  result.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  result.sample = shared.first_mismatch ? shared.first_mismatch : shared.first_ok;
  return result;
}

}  // namespace tb
