// Transports under the testbed's unchanged gSOAP proxy and service (services/gsoap), plugged
// in through gSOAP's transport callbacks only: the generated stubs, the serializers and the
// service's operations are the ones the testbed serves with.
//
//   tcp        gSOAP's own (tcp_connect, send/recv on the socket)
//   unix       soap->fopen connects a Unix-domain stream socket; gSOAP's own fsend/frecv
//              then work on it as on any socket
//   shm-spin   the shared-memory rings (shm/shm_channel.h): fopen starts a session,
//   shm-futex  fsend/frecv copy into and out of the rings, fpoll looks at the peer's flag,
//              fclose/fclosesocket end the session; the session's Unix socket stands in
//              for soap->socket (gSOAP needs a valid one to keep a connection alive)
//
// The state (socket path, the open session) lives in a gSOAP plugin on the context, so
// soap->user stays free for the service's own hooks.
#pragma once

#include <string>

#include "shm_channel.h"
#include "stdsoap2.h"

namespace rpcstudy {

// Client side: every connection the proxy opens goes to this path.
void use_unix_socket(struct soap *soap, const std::string &path);
void use_shm(struct soap *soap, const std::string &path, shm_wait wait);

// Server side: the byte movers for a session the server accepted. They go under the
// service's own receive/send hooks (ContextState::gsoap_recv / gsoap_send).
void attach_shm_session(struct soap *soap, shm_chan *session);
size_t shm_frecv(struct soap *soap, char *buf, size_t len);
int shm_fsend(struct soap *soap, const char *buf, size_t len);

}  // namespace rpcstudy
