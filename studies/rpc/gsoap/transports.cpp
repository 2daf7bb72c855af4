// gSOAP transport callbacks for Unix-domain sockets and the shared-memory rings
// (transports.hpp).
#include "transports.hpp"

#include <unistd.h>

#include <cerrno>

#include "sockets.h"

namespace rpcstudy {
namespace {

const char kPluginId[] = "rpc-study-transport";

struct TransportState {
  std::string path;
  shm_wait wait = SHM_FUTEX;
  shm_chan own{};              // client: the session this context opened
  shm_chan *chan = nullptr;    // the session in use
};

int plugin_init(struct soap *, struct soap_plugin *p, void *arg) {
  p->id = kPluginId;
  p->data = arg;
  p->fcopy = nullptr;  // a copied context starts without a transport state
  p->fdelete = [](struct soap *, struct soap_plugin *q) {
    auto *st = static_cast<TransportState *>(q->data);
    if (st->chan == &st->own) shm_close(&st->own);
    delete st;
  };
  return SOAP_OK;
}

TransportState &state(struct soap *soap) {
  void *data = soap_lookup_plugin(soap, kPluginId);
  if (data) return *static_cast<TransportState *>(data);
  auto *st = new TransportState;
  soap_register_plugin_arg(soap, plugin_init, st);
  return *st;
}

// gSOAP's timeouts: seconds when positive, microseconds when negative, 0 = none (60 s here:
// every wait is bounded).
int timeout_ms(int t) { return t > 0 ? t * 1000 : t < 0 ? (-t + 999) / 1000 : 60000; }

SOAP_SOCKET unix_open(struct soap *soap, const char *, const char *, int) {
  const TransportState &st = state(soap);
  int fd = unix_connect(st.path.c_str(), timeout_ms(soap->connect_timeout));
  if (fd < 0) {
    soap_set_receiver_error(soap, "cannot connect to the Unix socket", st.path.c_str(), SOAP_TCP_ERROR);
    return SOAP_INVALID_SOCKET;
  }
  return fd;
}

SOAP_SOCKET shm_open(struct soap *soap, const char *, const char *, int) {
  TransportState &st = state(soap);
  if (st.own.region) shm_close(&st.own);
  st.chan = &st.own;
  if (shm_connect(st.path.c_str(), &st.own, st.wait, timeout_ms(soap->connect_timeout)) != 0) {
    soap_set_receiver_error(soap, "cannot open a shared-memory session", st.path.c_str(), SOAP_TCP_ERROR);
    return SOAP_INVALID_SOCKET;
  }
  return st.own.ctl_fd;  // gSOAP keeps a connection alive only while soap->socket is valid
}

int shm_fclose(struct soap *soap) {
  TransportState &st = state(soap);
  if (st.chan) shm_close(st.chan);
  soap->socket = SOAP_INVALID_SOCKET;
  return SOAP_OK;
}

int shm_fclosesocket(struct soap *soap, SOAP_SOCKET fd) {
  TransportState &st = state(soap);
  if (st.chan && fd == st.chan->ctl_fd) shm_close(st.chan);
  else close(fd);
  return SOAP_OK;
}

int shm_fshutdownsocket(struct soap *, SOAP_SOCKET, int) { return SOAP_OK; }

// Before reusing a kept-alive connection: no system call, the peer's closed flag only (a
// peer that died is noticed by the next receive's liveness look).
int shm_fpoll(struct soap *soap) {
  const TransportState &st = state(soap);
  return st.chan && shm_peer_open(st.chan) ? SOAP_OK : SOAP_EOF;
}

}  // namespace

void use_unix_socket(struct soap *soap, const std::string &path) {
  state(soap).path = path;
  soap->fopen = unix_open;
}

void use_shm(struct soap *soap, const std::string &path, shm_wait wait) {
  TransportState &st = state(soap);
  st.path = path;
  st.wait = wait;
  soap->fopen = shm_open;
  soap->fclose = shm_fclose;
  soap->fclosesocket = shm_fclosesocket;
  soap->fshutdownsocket = shm_fshutdownsocket;
  soap->fpoll = shm_fpoll;
  soap->fsend = shm_fsend;
  soap->frecv = shm_frecv;
}

void attach_shm_session(struct soap *soap, shm_chan *session) { state(soap).chan = session; }

int shm_fsend(struct soap *soap, const char *buf, size_t len) {
  shm_chan *c = state(soap).chan;
  if (c && shm_send(c, buf, len, timeout_ms(soap->send_timeout)) == 0) return SOAP_OK;
  soap->errnum = errno;
  return SOAP_EOF;
}

// 0 is end of input to gSOAP: the peer went, or nothing came before the receive timeout.
size_t shm_frecv(struct soap *soap, char *buf, size_t len) {
  shm_chan *c = state(soap).chan;
  long k = c ? shm_recv(c, buf, len, timeout_ms(soap->recv_timeout)) : 0;
  if (k > 0) return static_cast<size_t>(k);
  soap->errnum = errno;
  return 0;
}

}  // namespace rpcstudy
