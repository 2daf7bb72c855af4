// rpc-gsoap-client: measures calls of the testbed's generated gSOAP proxy on one transport
// and argument size: `ping` (--size null, the null RPC) or `sendBytes` with --size bytes
// (the reply is the count and the contract's FNV-1a checksum of the bytes). It starts
// rpc-gsoap-server pinned to --server-cpu (or uses a running one: --connect ADDRESS), puts
// the transport under the proxy (transports.hpp; the proxy and its stubs are unchanged),
// makes --warmup, then --calls calls, each checked: count exact, checksum equal (each call's
// bytes differ). Per timed call it writes total_ns and client_ns (the call minus the time
// inside fsend/frecv, io_meter.hpp) to --raw-out. Prints one JSON line; exit 0 when every
// call was answered and checked, 1 on a wrong answer, 3 on a failed call.
// --abort-after N (tests) kills this process once N bytes of the first timed request are out.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "TestbedSoapBinding.nsmap"  // the namespace table gSOAP's runtime expects
#include "clock.h"
#include "harness.h"
#include "io_meter.hpp"
#include "payload.hpp"
#include "soapTestbedSoapBindingProxy.h"
#include "transports.hpp"

namespace {

const char *const kTransports[] = {"tcp", "unix", "shm-spin", "shm-futex", nullptr};
const int kIoTimeoutS = 10;
const int kStartTimeoutMs = 10000;
const uint64_t kSeed = 12;  // the contract's seeded generator (services/contract/README.md)

// --abort-after: the outermost fsend, armed for the first timed call.
int (*send_inner)(struct soap *, const char *, size_t) = nullptr;
long abort_after = -1, sent_in_call = 0;
bool armed = false;

int send_then_die(struct soap *soap, const char *buf, size_t len) {
  if (armed && sent_in_call + static_cast<long>(len) >= abort_after) {  // sent_in_call <= abort_after here
    send_inner(soap, buf, static_cast<size_t>(abort_after - sent_in_call));
    _exit(9);  // as if killed: no goodbye, nothing closed in order
  }
  sent_in_call += static_cast<long>(len);
  return send_inner(soap, buf, len);
}

// The proxy's endpoint (kept by the caller: the proxy holds only the pointer) and transport
// for a server's "ready" address.
bool set_transport(TestbedSoapBindingProxy &proxy, const std::string &transport, const std::string &address,
                   std::string *endpoint) {
  if (address.rfind("tcp:", 0) == 0) {
    *endpoint = "http://" + address.substr(4) + "/gsoap";
    proxy.soap_endpoint = endpoint->c_str();
    return transport == "tcp";
  }
  *endpoint = "http://localhost/gsoap";  // host and port unused: the transport knows where
  proxy.soap_endpoint = endpoint->c_str();
  if (address.rfind("unix:", 0) == 0 && transport == "unix") {
    rpcstudy::use_unix_socket(proxy.soap, address.substr(5));
    return true;
  }
  if (address.rfind("shm:", 0) == 0 && transport.rfind("shm-", 0) == 0) {
    rpcstudy::use_shm(proxy.soap, address.substr(4), transport == "shm-spin" ? SHM_SPIN : SHM_FUTEX);
    return true;
  }
  return false;
}

std::string fault_text(struct soap *soap) {
  const char **s = soap_faultstring(soap);
  return "gSOAP error " + std::to_string(soap->error) + (s && *s ? std::string(": ") + *s : "");
}

}  // namespace

int main(int argc, char **argv) {
  bench_opts o;
  char err[256] = "";
  if (argc == 2 && !std::strcmp(argv[1], "--help")) {
    std::printf("rpc-gsoap-client --transport tcp|unix|shm-spin|shm-futex --size null|N "
                "(--server PATH | --connect ADDRESS) --dir D [...]\n%s", bench_usage());
    return 0;
  }
  if (bench_parse(argc, argv, &o, kTransports, err, sizeof err) != 0 || (!o.server && !o.connect)) {
    std::fprintf(stderr, "rpc-gsoap-client: %s\n", err[0] ? err : "--server PATH or --connect ADDRESS is required");
    return 2;
  }
  alarm(static_cast<unsigned>(o.timeout_s));  // bounded: SIGALRM ends a run that hangs
  server_proc srv{};
  std::string address = o.connect ? o.connect : "";
  if (!o.connect) {
    std::string deadline = std::to_string(o.timeout_s);
    std::vector<const char *> args = {o.server, "--transport", o.transport, "--dir", o.dir, "--deadline-s", deadline.c_str()};
    if (o.server_raw_out) args.insert(args.end(), {"--raw-out", o.server_raw_out});
    if (o.server_extra) args.push_back(o.server_extra);
    args.push_back(nullptr);
    if (server_start(&srv, const_cast<char *const *>(args.data()), o.server_cpu, kStartTimeoutMs, err, sizeof err) != 0) {
      std::fprintf(stderr, "rpc-gsoap-client: %s\n", err);
      return 1;
    }
    address = srv.ready;
  }
  pin_to_cpu(o.client_cpu);

  TestbedSoapBindingProxy proxy(SOAP_IO_KEEPALIVE);
  struct soap *soap = proxy.soap;
  soap->connect_timeout = soap->recv_timeout = soap->send_timeout = kIoTimeoutS;
  std::string endpoint;
  if (!set_transport(proxy, o.transport, address, &endpoint)) {
    std::fprintf(stderr, "rpc-gsoap-client: the address %s does not serve --transport %s\n", address.c_str(), o.transport);
    return 2;
  }
  rpcstudy::meter_context(soap);
  if (o.abort_after >= 0) {
    abort_after = o.abort_after;
    send_inner = soap->fsend;
    soap->fsend = send_then_die;
  }

  const bool ping = o.size < 0;
  _tb__ping ping_req;
  _tb__pingResponse ping_resp;
  _tb__sendBytes req;
  tb__Digest digest;
  req.items = tb::bytes_items(ping ? 0 : static_cast<size_t>(o.size), kSeed);
  std::vector<int64_t> total(static_cast<size_t>(o.calls)), client(static_cast<size_t>(o.calls));
  const size_t stamp = std::min(req.items.size(), sizeof(int));
  int mismatches = 0;
  std::string failure;
  int64_t req_bytes = -1, resp_bytes = -1, cpu0 = 0, srv0 = 0, t0 = 0;
  for (int i = -o.warmup; i < o.calls; i++) {
    if (i == 0) {
      cpu0 = process_cpu_ns(0);
      srv0 = srv.pid ? process_cpu_ns(srv.pid) : 0;
      t0 = now_ns();
      armed = o.abort_after >= 0;
      sent_in_call = 0;
    }
    std::memcpy(req.items.data(), &i, stamp);  // every call's bytes differ
    const uint32_t expected = ping ? 0 : tb::checksum(req.items);
    rpcstudy::io_meter.reset();
    const int64_t a = now_ns();
    const int rc = ping ? proxy.ping(&ping_req, ping_resp) : proxy.sendBytes(&req, digest);
    const int64_t b = now_ns();
    if (rc != SOAP_OK) {
      failure = fault_text(soap);
      break;
    }
    if (!ping && (digest.count != o.size || digest.checksum != expected)) mismatches++;
    if (i >= 0) {
      total[static_cast<size_t>(i)] = b - a;
      client[static_cast<size_t>(i)] = b - a - rpcstudy::io_meter.ns;
    }
    if (i == 0) {
      req_bytes = rpcstudy::io_meter.bytes_out;
      resp_bytes = rpcstudy::io_meter.bytes_in;
    }
    proxy.destroy();  // the reply's memory, outside the timed call
  }
  const int64_t wall = now_ns() - t0, cpu = process_cpu_ns(0) - cpu0;
  const int64_t srv_cpu = srv.pid ? process_cpu_ns(srv.pid) - srv0 : -1;
  idle_use idle = failure.empty() && srv.pid ? measure_idle(srv.pid, o.idle_ms) : idle_use{-1, -1};
  proxy.soap_force_close_socket();  // the shm session says goodbye; a socket is closed
  char sjson[1024] = "";
  const int sstatus = srv.pid ? server_stop(&srv, sjson, sizeof sjson, 5000) : -1;
  if (!failure.empty()) {
    std::fprintf(stderr, "rpc-gsoap-client: %s\n", failure.c_str());
    return 3;
  }
  if (o.raw_out && write_pairs(o.raw_out, "total_ns", "client_ns", total.data(), client.data(), total.size()) != 0) {
    std::fprintf(stderr, "rpc-gsoap-client: cannot write %s\n", o.raw_out);
    return 1;
  }
  // the same keys as the C programs' line (onc, raw), decimals rounded as they print them
  const auto rounded = [](double v, double scale) { return std::round(v * scale) / scale; };
  nlohmann::ordered_json j;
  j["program"] = "gsoap";
  j["transport"] = o.transport;
  j["size"] = o.size;
  j["calls"] = o.calls;
  j["warmup"] = o.warmup;
  j["checked"] = o.warmup + o.calls;
  j["ok"] = o.warmup + o.calls - mismatches;
  j["mismatches"] = mismatches;
  j["request_bytes"] = req_bytes;
  j["response_bytes"] = resp_bytes;
  j["client_cpu"] = o.client_cpu;
  j["server_cpu"] = o.server_cpu;
  j["client_cpu_us_per_call"] = rounded(cpu / 1e3 / o.calls, 1e3);
  j["server_cpu_us_per_call"] = srv_cpu < 0 ? -1.0 : rounded(srv_cpu / 1e3 / o.calls, 1e3);
  j["wall_us_per_call"] = rounded(wall / 1e3 / o.calls, 1e3);
  j["server_idle_cpu_pct"] = rounded(idle.cpu_pct, 10);
  j["server_idle_runnable_pct"] = rounded(idle.runnable_pct, 10);
  j["server_address"] = address;
  j["server_exit"] = sstatus;
  // the server's own last line (a JSON object), kept as it is; null when it printed none
  j["server"] = sjson[0] ? nlohmann::ordered_json::parse(sjson, nullptr, false) : nullptr;
  if (j["server"].is_discarded()) j["server"] = std::string(sjson);
  std::printf("%s\n", j.dump().c_str());
  return mismatches ? 1 : 0;
}
