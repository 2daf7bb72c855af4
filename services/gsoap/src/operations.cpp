// The contract's operations (services/contract/README.md), one short function each. The
// SERVICE demand knob is taken first in every operation; input errors are Client faults.
#include <unistd.h>

#include <cstdint>
#include <string>

#include "demand.hpp"
#include "payload.hpp"
#include "service.hpp"

namespace tb {
namespace {

const int64_t kMaxWorkMicros = 60000000;  // 60 s: anything larger is a client mistake

template <typename Items>
int digest(const Items &items, tb__Digest &resp) {
  resp.count = static_cast<int>(items.size());
  resp.checksum = checksum(items);
  return SOAP_OK;
}

// A SOAP 1.1 Client fault; the text is copied into the context's memory.
int client_fault(struct soap *soap, const std::string &text) {
  return soap_sender_fault(soap, soap_strdup(soap, text.c_str()), nullptr);
}

std::string host_name() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

}  // namespace

Service::Service(const ServerConfig &config) : config_(config) {
  state_.config = &config_;
  configure_context(soap, &state_);
  use_serializers(soap, config_.serializers);
}

int Service::ping(_tb__ping *, _tb__pingResponse &) {
  apply_demand(config_.demand);
  return SOAP_OK;
}

int Service::sendBytes(_tb__sendBytes *req, tb__Digest &resp) {
  apply_demand(config_.demand);
  if (!req) return client_fault(soap, "sendBytes: missing request element");
  return digest(req->items, resp);
}

int Service::sendInts(_tb__sendInts *req, tb__Digest &resp) {
  apply_demand(config_.demand);
  if (!req) return client_fault(soap, "sendInts: missing request element");
  return digest(req->items, resp);
}

int Service::sendFloats(_tb__sendFloats *req, tb__Digest &resp) {
  apply_demand(config_.demand);
  if (!req) return client_fault(soap, "sendFloats: missing request element");
  return digest(req->items, resp);
}

int Service::sendDoubles(_tb__sendDoubles *req, tb__Digest &resp) {
  apply_demand(config_.demand);
  if (!req) return client_fault(soap, "sendDoubles: missing request element");
  return digest(req->items, resp);
}

int Service::sendIntBuffer(_tb__sendIntBuffer *req, tb__Digest &resp) {
  apply_demand(config_.demand);
  if (!req) return client_fault(soap, "sendIntBuffer: missing request element");
  const int size = req->data.__size > 0 && req->data.__ptr ? req->data.__size : 0;
  if (size % 4 != 0)
    return client_fault(soap, "sendIntBuffer: data is " + std::to_string(size) +
                                  " bytes, not a multiple of 4 (little-endian int32s)");
  resp.count = size / 4;
  resp.checksum = fnv1a(req->data.__ptr, static_cast<size_t>(size));
  return SOAP_OK;
}

int Service::echoInts(_tb__echoInts *req, _tb__echoIntsResponse &resp) {
  apply_demand(config_.demand);
  if (!req) return client_fault(soap, "echoInts: missing request element");
  resp.items.swap(req->items);
  return SOAP_OK;
}

int Service::work(_tb__work *req, _tb__workResponse &resp) {
  apply_demand(config_.demand);
  if (!req) return client_fault(soap, "work: missing request element");
  if (req->cpuMicros < 0 || req->cpuMicros > kMaxWorkMicros || req->waitMicros < 0 ||
      req->waitMicros > kMaxWorkMicros)
    return client_fault(soap, "work: cpuMicros and waitMicros must be 0..60000000 (60 s)");
  burn_cpu_us(req->cpuMicros);
  sleep_us(req->waitMicros);
  static const std::string host = host_name();
  resp.implementation = "gsoap";
  resp.host = host;
  resp.pid = static_cast<int>(getpid());
  return SOAP_OK;
}

}  // namespace tb
