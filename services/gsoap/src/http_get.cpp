// HTTP GET on the service's port (soap->fget): GET .../health answers 200 "ok" (404
// "draining" once the service was told to stop: drain.hpp); GET .../metrics its Prometheus
// metrics (metrics.hpp);
// GET <path>?wsdl answers the embedded contract WSDL whose soap:address is the URL the
// WSDL was fetched from (http://<Host header><path>), so behind HAProxy at
// http://127.0.0.1:8082/gsoap it names exactly that. Anything else: 404 with a reason.
#include <string>

#include "drain.hpp"
#include "metrics.hpp"
#include "served.hpp"
#include "service.hpp"
#include "wsdl_embed.hpp"

namespace tb {
namespace {

bool ends_with(const std::string &s, const std::string &tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string xml_escape(const std::string &s) {
  std::string out;
  for (char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += ch;
    }
  }
  return out;
}

// The WSDL with the location attribute of its soap:address replaced.
std::string wsdl_for(const std::string &location) {
  static const std::string wsdl(kContractWsdl, kContractWsdlSize);
  static const std::string marker = "<soap:address location=\"";
  std::string out = wsdl;
  size_t start = out.find(marker);
  if (start == std::string::npos) return out;
  start += marker.size();
  size_t end = out.find('"', start);
  if (end == std::string::npos) return out;
  return out.replace(start, end - start, xml_escape(location));
}

// One complete response with a Content-Length, so the connection can be kept alive.
int respond(struct soap *soap, int status, const char *type, const std::string &body) {
  const soap_mode omode = soap->omode;
  soap->omode = (soap->omode & ~SOAP_IO) | SOAP_IO_STORE;  // buffer: Content-Length known
  soap->http_content = type;
  int err = soap_response(soap, SOAP_FILE + status) ||
            soap_send_raw(soap, body.data(), body.size()) || soap_end_send(soap);
  soap->omode = omode;
  return err ? soap_closesock(soap) : SOAP_OK;
}

}  // namespace

int http_get(struct soap *soap) {
  ContextState &st = *static_cast<ContextState *>(soap->user);
  std::string path = soap->path, query;
  size_t q = path.find('?');
  if (q != std::string::npos) {
    query = path.substr(q + 1);
    path.resize(q);
  }
  if (ends_with(path, "/served")) {
    st.health_check = true;  // not counted itself
    return respond(soap, 200, "application/json", served_json());
  }
  if (ends_with(path, "/metrics")) {
    st.health_check = true;  // not counted itself
    return respond(soap, 200, "text/plain; version=0.0.4; charset=utf-8", metrics_text());
  }
  if (ends_with(path, "/health")) {
    st.health_check = true;
    return drain_health_checked() ? respond(soap, 404, "text/plain", "draining\n")
                                  : respond(soap, 200, "text/plain", "ok");
  }
  if (query == "wsdl" || query == "WSDL") {
    std::string host = st.host_header;
    if (host.empty()) host = st.config->bind + ":" + std::to_string(st.config->port);
    return respond(soap, 200, "text/xml; charset=utf-8", wsdl_for("http://" + host + path));
  }
  return respond(soap, 404, "text/plain",
                 "not found: GET serves /health, /metrics and <endpoint>?wsdl; SOAP calls are POSTs\n");
}

}  // namespace tb
