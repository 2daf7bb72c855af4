// One operation's request, built once from the contract's seeded generator, and one call
// of it through the generated proxy, checked against the request (one function per
// operation in exchange.cpp). The request objects are only read while a call serializes
// them, so every connection's thread shares one Exchange.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "client_options.hpp"
#include "soapTestbedSoapBindingProxy.h"

namespace tb {

// What one call returned, checked against the request; fields that do not apply to the
// operation stay empty.
struct Outcome {
  bool checked = false;                    // count, checksum or echo as expected
  std::optional<int64_t> count;            // send*: the service's count; echoInts: items echoed
  std::optional<uint32_t> checksum;        // send*: the service's checksum
  std::optional<uint32_t> expected_checksum;
  std::optional<bool> echo_equal;          // echoInts
  bool served = false;                     // work: who served it
  std::string implementation, host;
  int pid = 0;
};

// The payload's count and FNV-1a checksum as the contract defines them (no network).
struct PayloadDigest {
  std::string kind;                        // byte | int | float | double, "" for ping/work
  int64_t count = 0;
  uint32_t checksum = 0;
  std::string items_hex;                   // canonical bytes, for small n
};
PayloadDigest digest_payload(const std::string &op, int n, uint64_t seed);

class Exchange {
 public:
  explicit Exchange(const ClientOptions &options);
  // One call; SOAP_OK with *out filled, or the gSOAP error (the proxy holds the fault).
  int call(TestbedSoapBindingProxy &proxy, Outcome *out);

 private:
  int ping(TestbedSoapBindingProxy &proxy, Outcome *out);
  int send_bytes(TestbedSoapBindingProxy &proxy, Outcome *out);
  int send_ints(TestbedSoapBindingProxy &proxy, Outcome *out);
  int send_floats(TestbedSoapBindingProxy &proxy, Outcome *out);
  int send_doubles(TestbedSoapBindingProxy &proxy, Outcome *out);
  int send_int_buffer(TestbedSoapBindingProxy &proxy, Outcome *out);
  int echo_ints(TestbedSoapBindingProxy &proxy, Outcome *out);
  int work(TestbedSoapBindingProxy &proxy, Outcome *out);
  void expect_digest(const tb__Digest &got, Outcome *out) const;

  int (Exchange::*call_)(TestbedSoapBindingProxy &, Outcome *);
  int n_;
  uint32_t expected_ = 0;
  _tb__sendBytes bytes_;
  _tb__sendInts ints_;
  _tb__sendFloats floats_;
  _tb__sendDoubles doubles_;
  _tb__sendIntBuffer int_buffer_;
  std::vector<unsigned char> buffer_;      // int_buffer_'s bytes
  _tb__echoInts echo_;
  _tb__work work_;
};

}  // namespace tb
