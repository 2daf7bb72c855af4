// The generated proxy with a byte count of everything it sends (HTTP headers, body, chunk
// framing, MIME parts) and a call that checks the service's Digest against the message.
#pragma once

#include <string>

#include "message.hpp"
#include "stdsoap2.h"

namespace tb {

class CountedProxy {
 public:
  explicit CountedProxy(soap_mode mode) : proxy(mode) {
    proxy.soap->user = this;
    proxy.soap->connect_timeout = 10;
    proxy.soap->send_timeout = proxy.soap->recv_timeout = 300;  // 9 MiB on a busy machine
    proxy.soap->maxoccurs = 100000001;
    gsoap_send_ = proxy.soap->fsend;
    proxy.soap->fsend = [](struct soap *soap, const char *buf, size_t len) {
      CountedProxy &self = *static_cast<CountedProxy *>(soap->user);
      self.bytes_sent += len;
      return self.gsoap_send_(soap, buf, len);
    };
  }
  // One call; true when it succeeded and the service's count and checksum are the message's.
  bool call(Message &m, const std::string &endpoint, std::string *error) {
    bytes_sent = 0;
    Digest got;
    const int err = m.send(proxy, endpoint.c_str()) ? proxy.soap->error : m.receive(proxy, &got);
    if (err) {
      const char **text = soap_faultstring(proxy.soap);
      *error = "gSOAP error " + std::to_string(err) + (text && *text ? std::string(": ") + *text : "");
    }
    soap_destroy(proxy.soap);
    soap_end(proxy.soap);
    if (err) return false;
    if (!(got == m.expected())) {
      *error = "the service answered count " + std::to_string(got.count) + ", checksum " +
               std::to_string(got.checksum) + "; expected " + std::to_string(m.expected().count) +
               ", " + std::to_string(m.expected().checksum);
      return false;
    }
    return true;
  }

  TestbedSoapBindingProxy proxy;
  uint64_t bytes_sent = 0;  // of the last call

 private:
  int (*gsoap_send_)(struct soap *, const char *, size_t) = nullptr;
};

}  // namespace tb
