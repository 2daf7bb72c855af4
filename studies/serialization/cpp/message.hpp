// One request message of the contract -- sendBytes, sendInts, sendFloats, sendDoubles or
// sendIntBuffer with the seeded payload (services/contract/README.md) -- and what gSOAP's
// generated code does with it: serialize the SOAP envelope, deserialize it back (checking
// count and checksum), send it through the generated proxy and read the service's Digest.
// The generated functions differ by name per operation; message.cpp binds them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "soapTestbedSoapBindingProxy.h"

namespace tb {

struct Digest {
  int64_t count = 0;
  uint32_t checksum = 0;
  bool operator==(const Digest &o) const { return count == o.count && checksum == o.checksum; }
};

class Message {
 public:
  virtual ~Message() = default;
  const std::string &op() const { return op_; }
  int64_t n() const { return n_; }
  uint64_t raw_bytes() const { return raw_bytes_; }  // the items' own size: n x item size
  const Digest &expected() const { return expected_; }

  // The envelope, written with gSOAP's generated serializer between soap_begin_send and
  // soap_end_send of `soap` (whatever its fsend and mode are).
  virtual int write_envelope(struct soap *soap) const = 0;
  // Reads an envelope from `soap` (soap_begin_recv .. soap_end_recv, as the service does)
  // into freshly allocated objects and returns their digest in *got.
  virtual int read_envelope(struct soap *soap, Digest *got) const = 0;
  // The generated proxy's send_<op> (HTTP POST to endpoint) and recv_<op>.
  virtual int send(TestbedSoapBindingProxy &proxy, const char *endpoint) = 0;
  virtual int receive(TestbedSoapBindingProxy &proxy, Digest *got) = 0;

 protected:
  std::string op_;
  int64_t n_ = 0;
  uint64_t raw_bytes_ = 0;
  Digest expected_;
};

// The message of (op, n, seed); nullptr for an operation that is not one of the five.
// mtom: sendIntBuffer's data goes as an MTOM/XOP attachment (the context must be in
// SOAP_ENC_MTOM mode) instead of base64 in the body.
std::unique_ptr<Message> make_message(const std::string &op, int64_t n, uint64_t seed,
                                      bool mtom = false);

// The contract operations make_message knows, comma-separated (for usage errors).
const char *message_operations();

}  // namespace tb
