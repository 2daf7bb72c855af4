// libFuzzer harness: the bytes of one client connection through the gSOAP service's own
// request path -- serve_connection (connection.cpp), so HTTP parsing, keep-alive and
// pipelining, the size limit and 413, the XML guard, the attribute and UTF-8 checks, the
// SOAPAction check, gSOAP's deserializers of every contract operation via the generated
// dispatch, the operations, the serializers of the answer, faults and the canned faults.
//
// The connection's bytes come from memory and the answer goes nowhere: the context's raw
// receive/send (which context.cpp's hooks wrap, as they wrap the socket's) are replaced.
// The fd the service polls and closes is one end of a socketpair whose other end has
// stopped writing, so every wait ends at once. One fresh Service per input, like a worker
// thread's, so an input reproduces on its own.
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "TestbedSoapBinding.nsmap"  // the global namespace table gSOAP's runtime expects
#include "connection.hpp"
#include "service.hpp"

namespace {

struct Input {
  const uint8_t *data;
  size_t size;
  size_t at;
};
Input *current = nullptr;  // libFuzzer runs one input at a time

size_t receive_from_memory(struct soap *, char *buf, size_t len) {
  const size_t n = std::min(len, current->size - current->at);
  std::memcpy(buf, current->data + current->at, n);
  current->at += n;
  return n;
}

int send_nowhere(struct soap *, const char *, size_t) { return SOAP_OK; }

// Small limits, so that an input of a few KiB can cross each of them.
const tb::ServerConfig &fuzz_config() {
  static const tb::ServerConfig config = [] {
    tb::ServerConfig c;
    c.recv_timeout_s = 1;
    c.send_timeout_s = 1;
    c.keepalive_max = 8;
    c.max_message_bytes = 32768;
    c.max_xml_depth = 16;
    c.max_xml_occurs = 256;
    c.max_xml_attributes = 16;
    c.max_header_bytes = 2048;
    return c;
  }();
  return config;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) std::abort();
  shutdown(fds[1], SHUT_WR);  // the service's end reads EOF: its input is in memory
  Input input{data, size, 0};
  current = &input;
  {
    tb::Service service(fuzz_config());
    auto *state = static_cast<tb::ContextState *>(service.soap->user);
    state->gsoap_recv = receive_from_memory;
    state->gsoap_send = send_nowhere;
    tb::serve_connection(service, fds[0]);  // serves every request in the input, closes fds[0]
  }
  current = nullptr;
  close(fds[1]);
  return 0;
}
