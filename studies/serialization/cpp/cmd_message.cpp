// `message`: one request's sizes and gSOAP's (de)serialization times (options.cpp --help),
// with the serializers --serializers names (generated or tuned) on every context.
//   xml_bytes    the SOAP envelope as gSOAP's serializer writes it
//   http_bytes   the whole HTTP request the generated proxy sends (headers + that envelope;
//                gSOAP's default: a counting pass, then Content-Length), as a loopback
//                sink received it
//   ser_ns       data -> envelope in memory (gSOAP's 64 KiB output buffer, flushed to memory)
//   deser_ns     envelope in memory -> data, then the objects freed (as a service does)
//   write_ns     --socket: the proxy's whole send to a loopback socket, connect excluded
//   read_ns      --socket: HTTP request read from a loopback socket and deserialized
#include <fstream>
#include <iostream>

#include "memio.hpp"
#include "message.hpp"
#include "options.hpp"

namespace tb {
namespace {

const int kSinkTimeoutMs = 120000;

// A proxy whose connects are timed: connected_at is when the TCP connection was made.
struct TimedProxy {
  TestbedSoapBindingProxy proxy{SOAP_IO_KEEPALIVE};  // as tb-gsoap-client
  SOAP_SOCKET (*gsoap_open)(struct soap *, const char *, const char *, int) = nullptr;
  Clock::time_point connected_at;

  explicit TimedProxy(Serializers serializers) {
    use_serializers(proxy.soap, serializers);
    proxy.soap->user = this;
    proxy.soap->connect_timeout = 10;
    proxy.soap->send_timeout = proxy.soap->recv_timeout = 120;
    gsoap_open = proxy.soap->fopen;
    proxy.soap->fopen = [](struct soap *soap, const char *endpoint, const char *host, int port) {
      TimedProxy &self = *static_cast<TimedProxy *>(soap->user);
      SOAP_SOCKET s = self.gsoap_open(soap, endpoint, host, port);
      self.connected_at = Clock::now();
      return s;
    };
  }
  // Sends the message to the sink and closes the connection: ns from connected to sent.
  int64_t send_to(Message &m, const std::string &endpoint) {
    const int err = m.send(proxy, endpoint.c_str());
    const auto sent = Clock::now();
    soap_force_closesock(proxy.soap);
    soap_destroy(proxy.soap);
    soap_end(proxy.soap);
    return err ? -1 : ns_between(connected_at, sent);
  }
};

// A context that reads requests as the service does, its item limit as high as the
// study's largest message (gSOAP's default, SOAP_MAXOCCURS, is 100 000 items).
struct soap *new_reader(Serializers serializers) {
  struct soap *soap = soap_new();
  soap->maxoccurs = 100000001;
  use_serializers(soap, serializers);
  return soap;
}

void write_file(const std::string &path, const std::string &bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw std::runtime_error("cannot write " + path);
}

}  // namespace

int run_message(const Options &o) {
  auto msg = make_message(o.op, o.n, o.seed);
  Json out = {{"impl", "gsoap"}, {"serializers", serializers_name(o.serializers)}, {"command", "message"},
              {"op", o.op}, {"n", o.n}, {"seed", o.seed}, {"raw_bytes", msg->raw_bytes()}};

  // the envelope, in memory
  struct soap *ser = soap_new1(SOAP_IO_BUFFER);
  use_serializers(ser, o.serializers);
  MemoryIo ser_io;
  ser_io.sink(ser, true);
  soap_begin(ser);
  if (msg->write_envelope(ser)) throw std::runtime_error("serializing the envelope failed");
  soap_end(ser);
  const std::string xml = ser_io.out();
  out["xml_bytes"] = xml.size();

  // the whole HTTP request, from the generated proxy to a loopback sink
  std::string http;
  {
    LoopbackSink sink(true);
    TimedProxy tp(o.serializers);
    const std::string endpoint = "http://127.0.0.1:" + std::to_string(sink.port()) + "/gsoap";
    const uint64_t mark = sink.mark();
    if (tp.send_to(*msg, endpoint) < 0) throw std::runtime_error("the proxy's send failed");
    out["http_bytes"] = sink.wait_bytes(mark, kSinkTimeoutMs);
    http = sink.bytes();
  }
  const bool body_is_envelope =
      http.size() >= xml.size() && http.compare(http.size() - xml.size(), xml.size(), xml) == 0;
  out["http_header_bytes"] = http.size() - std::min(http.size(), xml.size());
  out["http_body_is_envelope"] = body_is_envelope;
  if (!o.dump.empty()) write_file(o.dump, xml);
  if (!o.dump_http.empty()) write_file(o.dump_http, http);

  // deserialized back: the same items?
  struct soap *deser = new_reader(o.serializers);
  MemoryIo deser_io;
  deser_io.source(deser, xml);
  Digest got;
  const int err = msg->read_envelope(deser, &got);
  soap_destroy(deser);
  soap_end(deser);
  const bool valid = err == SOAP_OK && got == msg->expected() && body_is_envelope;
  out["count"] = got.count;
  out["checksum"] = got.checksum;
  out["expected_count"] = msg->expected().count;
  out["expected_checksum"] = msg->expected().checksum;
  out["valid"] = valid;
  if (!valid) {
    out["invalid_reason"] = err ? "gSOAP could not read its own envelope (error " + std::to_string(err) + ")"
                            : !body_is_envelope ? "the proxy's HTTP body differs from the envelope"
                                                : "the envelope read back has another count or checksum";
    std::cout << out.dump() << std::endl;
    return 1;
  }

  // serialization and deserialization, interleaved (time_rounds)
  const std::vector<Samples> mem = time_rounds(o.timing, {
      [&] {
        ser_io.clear_out();
        const auto t0 = Clock::now();
        soap_begin(ser);
        const int e = msg->write_envelope(ser);
        soap_end(ser);
        const auto t1 = Clock::now();
        return e || ser_io.count() != xml.size() ? int64_t{-1} : ns_between(t0, t1);
      },
      [&] {
        deser_io.rewind();
        Digest d;
        const auto t0 = Clock::now();
        const int e = msg->read_envelope(deser, &d);
        soap_destroy(deser);
        soap_end(deser);
        const auto t1 = Clock::now();
        return e || !(d == msg->expected()) ? int64_t{-1} : ns_between(t0, t1);
      }}, {"serialization", "deserialization"});
  out["ser_ns"] = mem[0].json();
  out["deser_ns"] = mem[1].json();

  if (o.socket) {  // the whole write to, and read from, a loopback socket, interleaved
    LoopbackSink sink(false);
    TimedProxy tp(o.serializers);
    const std::string endpoint = "http://127.0.0.1:" + std::to_string(sink.port()) + "/gsoap";
    struct soap *reader = new_reader(o.serializers);
    const std::vector<Samples> net = time_rounds(o.timing, {
        [&] {
          const uint64_t mark = sink.mark();
          const int64_t ns = tp.send_to(*msg, endpoint);
          return sink.wait_bytes(mark, kSinkTimeoutMs) == http.size() ? ns : int64_t{-1};
        },
        [&] {
          LoopbackFeeder feeder(http);
          reader->socket = feeder.fd();
          Digest d;
          const auto t0 = Clock::now();
          const int e = msg->read_envelope(reader, &d);
          reader->socket = SOAP_INVALID_SOCKET;  // the feeder's, not soap_end's to close
          soap_destroy(reader);
          soap_end(reader);
          const auto t1 = Clock::now();
          feeder.join();
          return e || !(d == msg->expected()) ? int64_t{-1} : ns_between(t0, t1);
        }}, {"the write to a loopback socket", "the read from a loopback socket"});
    soap_free(reader);
    out["write_ns"] = net[0].json();
    out["read_ns"] = net[1].json();
  } else {
    out["write_ns"] = nullptr;
    out["read_ns"] = nullptr;
  }
  soap_free(ser);
  soap_free(deser);
  std::cout << out.dump() << std::endl;
  return 0;
}

}  // namespace tb
