// libFuzzer harness: the bytes of one client connection through the gSOAP service's own
// request path -- serve_connection (connection.cpp), so HTTP parsing, keep-alive and
// pipelining, the size limit and 413, the XML guard, the attribute and UTF-8 checks, the
// SOAPAction check, gSOAP's deserializers of every contract operation via the generated
// dispatch, the operations, the serializers of the answer, faults and the canned faults.
//
// The connection's bytes come from memory and the answer into memory: the context's raw
// receive/send (which context.cpp's hooks wrap, as they wrap the socket's) are replaced.
// The fd the service polls and closes is one end of a socketpair whose other end has
// stopped writing, so every wait ends at once. One fresh Service per input, like a worker
// thread's, so an input reproduces on its own.
//
// Every input is served twice, with the generated and with the tuned serializers of the
// arrays (custom/serializers.hpp), and the two answers must be the same bytes: the tuned
// readers must accept, refuse, count and read exactly what the generated ones do. Not
// compared: the numbers of the service's counters (GET /served, /metrics), which the first
// serving moved on. The one difference the serializers are allowed: the checksum of sendFloats, where a float text within a
// double's precision of a midpoint between two floats is read correctly rounded by the
// tuned reader and rounded twice by gSOAP's ((float)strtod; custom/item_text.hpp).
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <regex>
#include <string>

#include "TestbedSoapBinding.nsmap"  // the global namespace table gSOAP's runtime expects
#include "connection.hpp"
#include "service.hpp"

namespace {

struct Input {
  const uint8_t *data;
  size_t size;
  size_t at;
  std::string answer;  // every byte the service sent
};
Input *current = nullptr;  // libFuzzer runs one input at a time

size_t receive_from_memory(struct soap *, char *buf, size_t len) {
  const size_t n = std::min(len, current->size - current->at);
  std::memcpy(buf, current->data + current->at, n);
  current->at += n;
  return n;
}

int send_to_memory(struct soap *, const char *buf, size_t len) {
  current->answer.append(buf, len);
  return SOAP_OK;
}

// Small limits, so that an input of a few KiB can cross each of them.
tb::ServerConfig fuzz_config(tb::Serializers serializers) {
  tb::ServerConfig c;
    c.recv_timeout_s = 1;
    c.send_timeout_s = 1;
    c.keepalive_max = 8;
    c.max_message_bytes = 32768;
    c.max_xml_depth = 16;
    c.max_xml_occurs = 256;
    c.max_xml_attributes = 16;
  c.max_header_bytes = 2048;
  c.serializers = serializers;
  return c;
}

// The whole connection through a fresh service: what it answered.
std::string serve(const uint8_t *data, size_t size, tb::Serializers serializers) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) std::abort();
  shutdown(fds[1], SHUT_WR);  // the service's end reads EOF: its input is in memory
  Input input{data, size, 0, {}};
  current = &input;
  {
    const tb::ServerConfig config = fuzz_config(serializers);
    tb::Service service(config);
    auto *state = static_cast<tb::ContextState *>(service.soap->user);
    state->gsoap_recv = receive_from_memory;
    state->gsoap_send = send_to_memory;
    tb::serve_connection(service, fds[0]);  // serves every request in the input, closes fds[0]
  }
  current = nullptr;
  close(fds[1]);
  return std::move(input.answer);
}

// The answers of the service's own counters (GET /served: JSON, GET /metrics: text) with
// their digits blanked: the counters are the process's, so the second serving of an input
// reads them one request further on.
std::string counters_blanked(const std::string &answer) {
  static const std::regex digits("[0-9]+");
  std::string out;
  size_t at = 0;
  while (at < answer.size()) {
    size_t next = answer.find("HTTP/1.1 ", at + 1);
    if (next == std::string::npos) next = answer.size();
    const std::string one = answer.substr(at, next - at);
    const size_t head_end = one.find("\r\n\r\n");
    const std::string head = one.substr(0, head_end);
    const bool counters = head.find("Content-Type: application/json") != std::string::npos ||
                          head.find("Content-Type: text/plain") != std::string::npos;
    out += counters ? std::regex_replace(one, digits, "#") : one;
    at = next;
  }
  return out;
}

// The answer with the checksums of sendFloats blanked (the allowed difference, above) and
// the counters' answers blanked.
std::string comparable(const std::string &answer) {
  const std::string blanked = counters_blanked(answer);
  if (blanked.find("sendFloatsResponse") == std::string::npos) return blanked;
  static const std::regex checksum(R"((sendFloatsResponse>[\s\S]*?checksum>)[0-9]+)");
  return std::regex_replace(blanked, checksum, "$1?");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string generated = serve(data, size, tb::Serializers::generated);
  const std::string tuned = serve(data, size, tb::Serializers::tuned);
  if (generated != tuned && comparable(generated) != comparable(tuned)) {
    std::fprintf(stderr, "tb-gsoap-fuzz: the tuned serializers answered otherwise than the "
                         "generated ones\n--- generated:\n%s\n--- tuned:\n%s\n",
                 generated.c_str(), tuned.c_str());
    std::abort();
  }
  return 0;
}
