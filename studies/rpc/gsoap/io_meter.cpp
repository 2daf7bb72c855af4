// The byte movers' clock (io_meter.hpp).
#include "io_meter.hpp"

#include "clock.h"

namespace rpcstudy {

IoMeter io_meter;

namespace {

size_t (*inner_recv)(struct soap *, char *, size_t) = nullptr;
int (*inner_send)(struct soap *, const char *, size_t) = nullptr;

size_t timed_recv(struct soap *soap, char *buf, size_t len) {
  const int64_t t = now_ns();
  if (!io_meter.first_recv_entry) io_meter.first_recv_entry = t;
  size_t n = inner_recv(soap, buf, len);
  io_meter.ns += now_ns() - t;
  io_meter.bytes_in += static_cast<int64_t>(n);
  return n;
}

int timed_send(struct soap *soap, const char *buf, size_t len) {
  const int64_t t = now_ns();
  int err = inner_send(soap, buf, len);
  io_meter.last_send_end = now_ns();
  io_meter.ns += io_meter.last_send_end - t;
  if (err == SOAP_OK) io_meter.bytes_out += static_cast<int64_t>(len);
  return err;
}

}  // namespace

void meter_movers(size_t (**recv)(struct soap *, char *, size_t), int (**send)(struct soap *, const char *, size_t)) {
  inner_recv = *recv;
  inner_send = *send;
  *recv = timed_recv;
  *send = timed_send;
}

void meter_context(struct soap *soap) { meter_movers(&soap->frecv, &soap->fsend); }

}  // namespace rpcstudy
