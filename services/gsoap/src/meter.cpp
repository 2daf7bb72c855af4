// CallMeter (meter.hpp): gSOAP callbacks that note times and byte counts, then call
// gSOAP's own.
#include "meter.hpp"

#include <cstdlib>
#include <cstring>

namespace tb {
namespace {

int64_t ns(CallMeter::Clock::duration d) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
}

}  // namespace

void Timings::add(const Timings &t) {
  serialize += t.serialize;
  connect += t.connect;
  send += t.send;
  wait += t.wait;
  receive += t.receive;
  total += t.total;
}

void CallMeter::install(struct soap *soap) {
  soap->user = this;
  gsoap_open_ = soap->fopen;
  gsoap_post_header_ = soap->fposthdr;
  gsoap_send_ = soap->fsend;
  gsoap_parse_ = soap->fparse;
  soap->fopen = open;
  soap->fposthdr = post_header;
  soap->fsend = send;
  soap->fparse = parse;
  soap->fpreparerecv = prepare_received;
}

void CallMeter::begin() {
  start_ = header_out_ = last_send_ = header_in_ = Clock::now();
  connect_ns_ = 0;
  header_started_ = in_body_ = false;
  request_bytes_.reset();
  response_bytes_.reset();
}

Timings CallMeter::end() {
  const Clock::time_point now = Clock::now();
  Timings t;
  t.connect = connect_ns_;
  t.serialize = header_started_ ? ns(header_out_ - start_) - connect_ns_ : 0;
  t.send = header_started_ ? ns(last_send_ - header_out_) : 0;
  t.wait = in_body_ ? ns(header_in_ - last_send_) : 0;
  t.receive = in_body_ ? ns(now - header_in_) : 0;
  t.total = ns(now - start_);
  return t;
}

SOAP_SOCKET CallMeter::open(struct soap *soap, const char *endpoint, const char *host, int port) {
  CallMeter &m = of(soap);
  const Clock::time_point t0 = Clock::now();
  SOAP_SOCKET s = m.gsoap_open_(soap, endpoint, host, port);
  m.connect_ns_ += ns(Clock::now() - t0);
  return s;
}

int CallMeter::post_header(struct soap *soap, const char *key, const char *val) {
  CallMeter &m = of(soap);
  if (!m.header_started_) {
    m.header_started_ = true;
    m.header_out_ = Clock::now();
  }
  if (key && val && !soap_tag_cmp(key, "Content-Length"))
    m.request_bytes_ = std::strtoull(val, nullptr, 10);
  return m.gsoap_post_header_(soap, key, val);
}

int CallMeter::send(struct soap *soap, const char *buf, size_t len) {
  CallMeter &m = of(soap);
  int err = m.gsoap_send_(soap, buf, len);
  m.last_send_ = Clock::now();
  return err;
}

// Response headers parsed. gSOAP hands the body bytes that came with the headers to
// prepare_received again, so from here on every body byte is counted once (decoded).
int CallMeter::parse(struct soap *soap) {
  CallMeter &m = of(soap);
  int err = m.gsoap_parse_(soap);
  m.header_in_ = Clock::now();
  m.in_body_ = true;
  m.response_bytes_ = 0;
  return err;
}

int CallMeter::prepare_received(struct soap *soap, const char *, size_t len) {
  CallMeter &m = of(soap);
  if (m.in_body_) *m.response_bytes_ += len;
  return SOAP_OK;
}

}  // namespace tb
