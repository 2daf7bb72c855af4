// Where a gSOAP call's time goes: the time spent inside a context's byte movers (fsend,
// frecv: gSOAP's socket I/O or the shared-memory rings, waiting for the peer included) is
// transport; everything else in the call is the SOAP layer (serialization, HTTP, parsing,
// the stubs; on the server the service's hooks, dispatch and the operation). One meter per
// process: the study's clients and servers have one context each. Cost: two clock reads
// per fsend/frecv (~40 ns).
#pragma once

#include <cstdint>

#include "stdsoap2.h"

namespace rpcstudy {

struct IoMeter {
  int64_t ns = 0;                // inside fsend/frecv since reset()
  int64_t bytes_in = 0, bytes_out = 0;
  int64_t first_recv_entry = 0;  // the first frecv of a request began (server: its start)
  int64_t last_send_end = 0;     // the last fsend returned (server: its reply is out)
  void reset() { *this = IoMeter(); }
};

extern IoMeter io_meter;

// Wraps the fsend/frecv a transport installed on this context (client side).
void meter_context(struct soap *soap);
// Wraps a pair of byte movers and returns the metering ones in their place (server side:
// under the service's own receive/send hooks).
void meter_movers(size_t (**recv)(struct soap *, char *, size_t), int (**send)(struct soap *, const char *, size_t));

}  // namespace rpcstudy
