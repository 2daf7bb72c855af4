// `transmit` and `mtom`: end-to-end calls through the generated proxy to a running service,
// with one set of options, the service's count and checksum checked on every call.
//   transmit --io length   gSOAP's default: a counting pass over the message, then the
//                          HTTP headers with Content-Length and a second, real pass
//            --io store    the message stored in memory, sent with its Content-Length
//            --io chunk    HTTP/1.1 chunked transfer: one pass, no length needed up front
//            --keepalive 0 a new connection (Connection: close) for every call
//            --sndbuf/--rcvbuf  the client socket's buffers (see options.hpp)
//   mtom     --form base64 sendIntBuffer's ints as base64 in the SOAP body
//            --form mtom   the same bytes as an MTOM/XOP attachment (multipart/related)
#include <iostream>

#include "counted_proxy.hpp"
#include "options.hpp"
#include "payload.hpp"

namespace tb {
namespace {

soap_mode io_mode(const std::string &io) {
  if (io == "store") return SOAP_IO_STORE;
  if (io == "chunk") return SOAP_IO_CHUNK;
  return SOAP_IO_DEFAULT;  // length
}

// Warm-up call(s), then the timed calls; prints the JSON. Exit 0 all ok, 1 a wrong answer, 3 a failure.
int timed_calls(const Options &o, CountedProxy &cp, Message &msg, Json &out) {
  TimingPolicy policy = o.timing;
  policy.min_runs = o.calls;
  policy.max_runs = o.calls;
  policy.min_seconds = 0;
  std::string error;
  bool wrong = false;
  try {
    Samples ns = time_runs(policy, [&] {
      const auto t0 = Clock::now();
      if (!cp.call(msg, o.endpoint, &error)) {
        wrong = error.rfind("the service answered", 0) == 0;
        return int64_t{-1};
      }
      return ns_between(t0, Clock::now());
    }, "a call");
    out["request_bytes"] = cp.bytes_sent;
    out["valid"] = true;
    out["call_ns"] = ns.json();
    std::cout << out.dump() << std::endl;
    return 0;
  } catch (const std::runtime_error &) {
    out["valid"] = false;
    out["invalid_reason"] = error;
    std::cout << out.dump() << std::endl;
    return wrong ? 1 : 3;
  }
}

}  // namespace

int run_transmit(const Options &o) {
  auto msg = make_message(o.op, o.n, o.seed);
  const soap_mode keep = o.keepalive ? SOAP_IO_KEEPALIVE : 0;
  CountedProxy cp(io_mode(o.io) | keep);
  use_serializers(cp.proxy.soap, o.serializers);
  if (o.sndbuf >= 0) cp.proxy.soap->sndbuf = o.sndbuf;
  if (o.rcvbuf >= 0) cp.proxy.soap->rcvbuf = o.rcvbuf;
  Json out = {{"impl", "gsoap"}, {"serializers", serializers_name(o.serializers)}, {"command", "transmit"},
              {"op", o.op}, {"n", o.n}, {"seed", o.seed}, {"raw_bytes", msg->raw_bytes()}, {"io", o.io},
              {"keepalive", o.keepalive}, {"sndbuf", o.sndbuf}, {"rcvbuf", o.rcvbuf},
              {"expected_count", msg->expected().count}, {"expected_checksum", msg->expected().checksum}};
  return timed_calls(o, cp, *msg, out);
}

int run_mtom(const Options &o) {
  const bool mtom = o.form == "mtom";
  auto msg = make_message("sendIntBuffer", o.n, o.seed, mtom);
  CountedProxy cp(SOAP_IO_KEEPALIVE | (mtom ? SOAP_ENC_MTOM : 0));
  use_serializers(cp.proxy.soap, o.serializers);  // sendIntBuffer is not an array: no difference
  // the array form of the same ints: what both forms must decode to
  const uint32_t array_checksum = checksum(int_items(static_cast<size_t>(o.n), o.seed));
  Json out = {{"impl", "gsoap"}, {"command", "mtom"}, {"form", o.form}, {"n", o.n}, {"seed", o.seed},
              {"raw_bytes", msg->raw_bytes()}, {"expected_count", msg->expected().count},
              {"expected_checksum", msg->expected().checksum}, {"int_array_checksum", array_checksum}};
  return timed_calls(o, cp, *msg, out);
}

}  // namespace tb
