// The testbed service: the generated gSOAP skeleton (soapcpp2 -j, from the contract) with
// one function per operation (operations.cpp), and one soap context that carries every
// limit and HTTP hook of the service (context.cpp). Every worker thread owns one Service.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "config.hpp"
#include "start_check.hpp"
#include "utf8_check.hpp"
#include "xml_guard.hpp"
#include "soapTestbedSoapBindingService.h"

namespace tb {

// What a soap context knows beyond gSOAP (soap->user points here), per request.
// The service's hooks own the connection's fd: gSOAP's close/shutdown only ask for a
// close, and serve_request (connection.cpp) closes -- after answering a request gSOAP gave
// up on without a word (cut-off body, garbage) with a Client fault of its own.
struct ContextState {
  static constexpr uint64_t kUnknown = ~uint64_t(0);
  const ServerConfig *config = nullptr;
  std::string host_header;           // Host of the current request: the WSDL's address
  uint64_t bytes_received = 0;       // of the current request, headers included
  uint64_t header_bytes = kUnknown;  // known once the HTTP headers are parsed
  uint64_t bytes_sent = 0;           // of the current response
  bool too_large = false;            // body over MAX_MESSAGE_BYTES: answer 413
  bool body_exhausted = false;       // the parser wanted more than the declared body
  bool close_wanted = false;         // gSOAP asked to close the connection
  bool health_check = false;         // the request was GET /health (not counted by the drain)
  bool too_many_attributes = false;  // over MAX_XML_ATTRIBUTES (attribute_limit.hpp)
  bool mime = false;                 // a multipart/related body (only with accept_mtom)
  uint64_t header_field_bytes = 0;   // HTTP header lines so far; over MAX_HEADER_BYTES: 431
  std::string bad_header;            // a header refused by header_check.hpp (400, 415)
  StartCheck request_start{StartCheck::Expect::http_method};  // not HTTP: refused
  StartCheck body_start{StartCheck::Expect::xml};             // MIME instead of XML: refused
  XmlGuard guard;
  Utf8Check utf8;
  std::string pending;               // bytes of a next (pipelined) request, read early
  // gSOAP's own callbacks, which ours wrap
  int (*gsoap_parse)(struct soap *) = nullptr;
  int (*gsoap_parsehdr)(struct soap *, const char *, const char *) = nullptr;
  // The byte movers under our receive/send hooks: the socket (context.cpp) unless a
  // program swaps in another transport (studies/rpc: a shared-memory ring)
  size_t (*gsoap_recv)(struct soap *, char *, size_t) = nullptr;
  int (*gsoap_send)(struct soap *, const char *, size_t) = nullptr;

  soap_mode imode = 0, omode = 0;    // as configured, restored before each request

  void begin_request(struct soap *soap);  // before each request on a connection
  // Why a request failed, for its fault: the guard's verdict, the size limit, a cut-off
  // body; nullptr when gSOAP's own description says it better.
  const char *failure_text(int error) const;
};

// Slack of gSOAP's own message-size backstop (recv_maxlength) over MAX_MESSAGE_BYTES: HTTP
// headers, chunk framing, and gSOAP counting the first buffer of a chunked body twice. The
// 413 check on the body itself (context.cpp) comes first.
constexpr uint64_t kHeaderAllowance = 4 * SOAP_BUFLEN;

// Sets the limits (timeouts, message size, depth, occurrences, keep-alive, no DTDs) and the
// HTTP hooks (GET /health and ?wsdl, HTTP 413, Client faults) on one soap context.
void configure_context(struct soap *soap, ContextState *state);

// GET handler (http_get.cpp): /health, <path>?wsdl, anything else 404.
int http_get(struct soap *soap);

class Service : public TestbedSoapBindingService {
 public:
  explicit Service(const ServerConfig &config);
  Service(const Service &) = delete;
  Service &operator=(const Service &) = delete;
  TestbedSoapBindingService *copy() override { return new Service(config_); }
  // The generated dispatch, after the SOAPAction check (soap_action.cpp).
  using TestbedSoapBindingService::dispatch;
  int dispatch() override;

  int ping(_tb__ping *req, _tb__pingResponse &resp) override;
  int sendBytes(_tb__sendBytes *req, tb__Digest &resp) override;
  int sendInts(_tb__sendInts *req, tb__Digest &resp) override;
  int sendFloats(_tb__sendFloats *req, tb__Digest &resp) override;
  int sendDoubles(_tb__sendDoubles *req, tb__Digest &resp) override;
  int sendIntBuffer(_tb__sendIntBuffer *req, tb__Digest &resp) override;
  int echoInts(_tb__echoInts *req, _tb__echoIntsResponse &resp) override;
  int work(_tb__work *req, _tb__workResponse &resp) override;

 private:
  const ServerConfig &config_;
  ContextState state_;
};

}  // namespace tb
