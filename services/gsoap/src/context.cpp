// Limits and hooks of every soap context the service serves with (service.hpp):
//  - keep-alive on, recv/send timeouts, XML depth and occurrence limits;
//  - a request body over MAX_MESSAGE_BYTES gets HTTP 413: decided from Content-Length
//    before the body is read; chunked bodies are cut off at the limit;
//  - reads stop at the end of the body (Content-Length), so a truncated message is a
//    fault at once, not a wait for bytes that never come;
//  - a DTD or nesting deeper than MAX_XML_DEPTH is refused before the parser sees it (in
//    a multipart/related body -- MTOM, accepted only with GSOAP_ACCEPT_MTOM=1 -- in the
//    XML root part; attachments are binary and skip the body-start and UTF-8 checks);
//  - the parser is handed at most kParseSliceBytes per read and stopped once it holds more
//    than MAX_XML_ATTRIBUTES attribute names (bounded parse time); invalid UTF-8 and header
//    lines over MAX_HEADER_BYTES (HTTP 431) are refused;
//  - faults caused by the request say Client (SOAP-ENV:Client), never Server;
//  - socket reads and writes try the socket first and wait (poll) only when it is not
//    ready: gSOAP's own frecv/fsend select() before every recv/send when a timeout is set,
//    two system calls per request that nearly never wait (the pool hands a worker a
//    connection whose request has arrived).
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "attribute_limit.hpp"
#include "header_check.hpp"
#include "service.hpp"

namespace tb {
namespace {

ContextState &state_of(struct soap *soap) { return *static_cast<ContextState *>(soap->user); }

// A gSOAP timeout (s when > 0, -us when < 0, 0 = none) in poll's milliseconds.
int poll_ms(int timeout) { return timeout > 0 ? timeout * 1000 : timeout < 0 ? -timeout / 1000 : -1; }

// Bytes from the socket: what is there, else waits up to the receive timeout. 0 = EOF,
// error or timeout (gSOAP's frecv contract).
size_t socket_recv(struct soap *soap, char *buf, size_t len) {
  for (;;) {
    ssize_t n = recv(soap->socket, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n >= 0) return static_cast<size_t>(n);
    if (errno == EINTR) continue;
    if (errno != EAGAIN) break;
    pollfd p{soap->socket, POLLIN, 0};
    if (poll(&p, 1, poll_ms(soap->recv_timeout)) <= 0) break;  // timeout: give up
  }
  soap->errnum = errno;
  return 0;
}

// All of buf to the socket, waiting while its send buffer is full, each wait at most the
// send timeout.
int socket_send(struct soap *soap, const char *buf, size_t len) {
  while (len > 0) {
    ssize_t n = send(soap->socket, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) {
      buf += n;
      len -= static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN) break;
    pollfd p{soap->socket, POLLOUT, 0};
    if (poll(&p, 1, poll_ms(soap->send_timeout)) <= 0) break;
  }
  if (len == 0) return SOAP_OK;
  soap->errnum = errno;
  return SOAP_EOF;
}

// Transfer-Encoding: chunked (imode while the headers are parsed, mode while reading)
bool chunked(struct soap *soap) {
  return (soap->imode & SOAP_IO) == SOAP_IO_CHUNK || (soap->mode & SOAP_IO) == SOAP_IO_CHUNK;
}

int check_body(struct soap *soap, const char *buf, size_t len) {
  switch (state_of(soap).guard.feed(buf, len)) {
    case XmlGuard::Verdict::ok: return SOAP_OK;
    case XmlGuard::Verdict::doctype: return soap->error = SOAP_SYNTAX_ERROR;
    case XmlGuard::Verdict::too_deep: return soap->error = SOAP_LEVEL;
  }
  return SOAP_OK;
}

// After the HTTP headers: a declared body over the limit is refused unread. (gSOAP then
// hands the body bytes that came with the headers to fpreparerecv again, so the XML guard
// sees every body byte exactly once, chunked bodies decoded.)
int parse_http(struct soap *soap) {
  ContextState &st = state_of(soap);
  int err = st.gsoap_parse(soap);
  if (err) return err;
  st.header_bytes = st.bytes_received - (soap->buflen - soap->bufidx);
  if (soap->length > st.config->max_message_bytes) {
    st.too_large = true;
    return soap->error = 413;
  }
  st.mime = soap->imode & SOAP_ENC_MIME;  // only with accept_mtom (header_check)
  if (st.mime) st.guard.expect_mime();    // MTOM: attachments are not XML
  return SOAP_OK;
}

int parse_header(struct soap *soap, const char *key, const char *val) {
  ContextState &st = state_of(soap);
  st.header_field_bytes += std::strlen(key) + std::strlen(val) + 4;  // "key: val\r\n"
  if (st.header_field_bytes > static_cast<uint64_t>(st.config->max_header_bytes))
    return soap->error = 431;  // Request Header Fields Too Large
  switch (check_header(key, val, st.config->accept_mtom)) {
    case HeaderCheck::pass: break;
    case HeaderCheck::skip: return SOAP_OK;
    case HeaderCheck::refuse: st.bad_header = key; return soap->error = 400;
    case HeaderCheck::unsupported_media: st.bad_header = key; return soap->error = 415;
  }
  if (!soap_tag_cmp(key, "Host")) st.host_header = val;
  return st.gsoap_parsehdr(soap, key, val);
}

// What the parser holds after everything before this read: over MAX_XML_ATTRIBUTES names
// stops it (attribute_limit.hpp).
int check_attributes(struct soap *soap) {
  ContextState &st = state_of(soap);
  if (!attribute_names_over(soap, st.config->max_xml_attributes)) return SOAP_OK;
  st.too_many_attributes = true;
  return soap->error = SOAP_SYNTAX_ERROR;
}

int prepare_received(struct soap *soap, const char *buf, size_t len) {
  ContextState &st = state_of(soap);
  if (st.header_bytes == ContextState::kUnknown)  // no HTTP headers: no checks (start_check.hpp)
    return st.request_start.feed(buf, len) ? SOAP_OK : soap->error = SOAP_SYNTAX_ERROR;
  if (st.too_large) return soap->error = 413;  // the read that crossed MAX_MESSAGE_BYTES
  if (!st.mime && !st.body_start.feed(buf, len)) return soap->error = SOAP_SYNTAX_ERROR;
  if (check_body(soap, buf, len) || check_attributes(soap)) return soap->error;
  if (!st.mime && !st.utf8.feed(buf, len)) return soap->error = SOAP_UTF_ERROR;
  return SOAP_OK;
}

// Raw reads from the socket: never past the declared body, never past the size limit;
// bytes of this request that came with the previous one first.
size_t receive(struct soap *soap, char *buf, size_t len) {
  ContextState &st = state_of(soap);
  len = std::min(len, kParseSliceBytes);  // the parser is checked between reads
  if (!st.pending.empty()) {
    const size_t n = std::min(len, st.pending.size());
    std::memcpy(buf, st.pending.data(), n);
    st.pending.erase(0, n);
    st.bytes_received += n;
    return n;
  }
  if (st.header_bytes != ContextState::kUnknown) {
    const uint64_t body = st.bytes_received - st.header_bytes;
    if (!chunked(soap) && soap->length > 0) {
      if (body >= soap->length) {  // the body is complete: nothing more to wait for
        st.body_exhausted = true;
        return 0;
      }
      len = static_cast<size_t>(std::min<uint64_t>(len, soap->length - body));
    } else if (body > st.config->max_message_bytes) {
      st.too_large = true;  // chunked (or until-close) body over the limit: cut off here
      return 0;
    }
  }
  size_t n = st.gsoap_recv(soap, buf, len);
  st.bytes_received += n;
  if (st.header_bytes != ContextState::kUnknown &&
      st.bytes_received - st.header_bytes > st.config->max_message_bytes)
    st.too_large = true;  // whichever stops the read next, the answer is 413
  return n;
}

// The answer declares only the namespaces a document/literal answer or fault uses. gSOAP
// declares every namespace of its table on the answer's first element; SOAP-ENC, xsi and
// xsd are for SOAP encoding and xsi:type, which these answers never write -- and each
// declaration costs an snprintf and an attribute, twice (counting pass and real pass): 7 %
// of a ping's instructions, 170 of its 409 bytes. The request was read with the whole table
// (soap_begin_recv copies it for each request); an entry the request matched by a pattern
// (`out` set, e.g. SOAP 1.2) is left as it is.
void declare_only_used_namespaces(struct soap *soap) {
  for (struct Namespace *ns = soap->local_namespaces; ns && ns->id; ++ns)
    if (!ns->out && (!std::strcmp(ns->id, "SOAP-ENC") || !std::strcmp(ns->id, "xsi") ||
                     !std::strcmp(ns->id, "xsd")))
      ns->ns = "";
}

// The message is parsed. What the parser left of the declared body (the CRLF gSOAP and
// others write after </Envelope>) is consumed here, so that the connection is clean for
// the next request; bytes read past the body belong to a next (pipelined) request and are
// kept for it before gSOAP reuses its buffer for the response.
int end_of_request(struct soap *soap) {
  ContextState &st = state_of(soap);
  if (check_attributes(soap)) return soap->error;
  if (!st.mime && !st.utf8.finish()) return soap->error = SOAP_UTF_ERROR;
  declare_only_used_namespaces(soap);
  if (chunked(soap) || st.header_bytes == ContextState::kUnknown || soap->length == 0)
    return SOAP_OK;
  const uint64_t body_read = st.bytes_received - st.header_bytes;
  if (body_read > soap->length) {
    const size_t extra = static_cast<size_t>(body_read - soap->length);
    if (extra <= soap->buflen - soap->bufidx)
      st.pending.append(soap->buf + soap->buflen - extra, extra);
    return SOAP_OK;
  }
  char sink[4096];
  for (uint64_t left = soap->length - body_read; left > 0;) {
    size_t n = st.gsoap_recv(soap, sink, static_cast<size_t>(std::min<uint64_t>(left, sizeof sink)));
    if (n == 0) break;
    st.bytes_received += n;
    left -= n;
  }
  return SOAP_OK;
}

int send_bytes(struct soap *soap, const char *buf, size_t len) {
  ContextState &st = state_of(soap);
  st.bytes_sent += len;
  return st.gsoap_send(soap, buf, len);
}

// gSOAP's close and shutdown only record the wish; serve_request closes the fd.
int close_wanted(struct soap *soap) {
  state_of(soap).close_wanted = true;
  return SOAP_OK;
}
int close_socket_wanted(struct soap *soap, SOAP_SOCKET) { return close_wanted(soap); }
int shutdown_socket_wanted(struct soap *soap, SOAP_SOCKET, int) { return close_wanted(soap); }

bool server_side_error(int error) {
  return error == SOAP_EOM || error == SOAP_SVR_FAULT || error == SOAP_FATAL_ERROR ||
         error == SOAP_PLUGIN_ERROR;
}

// A fault caused by the request is the client's: code Client, as a SOAP 1.1 envelope even
// when the request never got as far as naming a SOAP version.
void set_error(struct soap *soap, const char **code, const char **text) {
  ContextState &st = state_of(soap);
  if (soap->version == 0) soap->version = 1;
  if (!*text) *text = st.failure_text(soap->error);
  if (!*code) *code = server_side_error(soap->error) ? "SOAP-ENV:Server" : "SOAP-ENV:Client";
}

}  // namespace

void configure_context(struct soap *soap, ContextState *state) {
  const ServerConfig &c = *state->config;
  soap_set_imode(soap, SOAP_IO_KEEPALIVE);
  soap_set_omode(soap, SOAP_IO_KEEPALIVE);
  soap->recv_timeout = c.recv_timeout_s;
  soap->send_timeout = c.send_timeout_s;
  soap->transfer_timeout = c.transfer_timeout_s;  // the whole message: a trickled body is cut
  soap->recv_maxlength = c.max_message_bytes + kHeaderAllowance;  // backstop of the 413 check
  soap->maxlevel = static_cast<unsigned>(c.max_xml_depth);
  // gSOAP refuses an item when the container already holds more than maxoccurs, so it
  // accepts maxoccurs + 1: one less makes MAX_XML_OCCURS the most accepted
  soap->maxoccurs = static_cast<size_t>(c.max_xml_occurs > 1 ? c.max_xml_occurs - 1 : 1);
  soap->max_keep_alive = c.keepalive_max;
  soap->socket_flags = MSG_NOSIGNAL;  // a vanished client is an error, not a SIGPIPE
  soap->user = state;
  state->guard = XmlGuard(c.max_xml_depth);
  state->imode = soap->imode;
  state->omode = soap->omode;
  state->gsoap_parse = soap->fparse;
  state->gsoap_parsehdr = soap->fparsehdr;
  state->gsoap_recv = socket_recv;
  state->gsoap_send = socket_send;
  soap->fparse = parse_http;
  soap->fparsehdr = parse_header;
  soap->frecv = receive;
  soap->fsend = send_bytes;
  soap->fpreparerecv = prepare_received;
  soap->fpreparefinalrecv = end_of_request;
  soap->fclose = close_wanted;
  soap->fclosesocket = close_socket_wanted;
  soap->fshutdownsocket = shutdown_socket_wanted;
  soap->fget = http_get;
  soap->fseterror = set_error;
}

const char *ContextState::failure_text(int error) const {
  if (guard.verdict() == XmlGuard::Verdict::doctype)
    return "DOCTYPE (DTD) not allowed in SOAP messages";
  if (guard.verdict() == XmlGuard::Verdict::too_deep) return "XML nesting deeper than MAX_XML_DEPTH";
  if (too_large) return "request body over MAX_MESSAGE_BYTES";
  if (!bad_header.empty())
    return "Content-Type: a malformed %-escape, or MIME/DIME attachments (not in the contract)";
  if (request_start.refused()) return "not an HTTP request: this service speaks SOAP over HTTP";
  if (body_start.refused())
    return "the body does not start like XML (MIME and DIME attachments are not in the contract)";
  if (too_many_attributes) return "more distinct XML attribute names than MAX_XML_ATTRIBUTES";
  if (utf8.invalid()) return "the request body is not well-formed UTF-8";
  if (header_field_bytes > static_cast<uint64_t>(config->max_header_bytes))
    return "HTTP header lines over MAX_HEADER_BYTES";
  if (body_exhausted || error == SOAP_EOF || error > SOAP_STOP)
    return "the request body is not a complete SOAP message (truncated, cut off, or not XML)";
  return nullptr;
}

void ContextState::begin_request(struct soap *soap) {
  // a failed request may leave a context mid-message: start every request from scratch
  soap->bufidx = soap->buflen = 0;
  soap->chunksize = soap->chunkbuflen = 0;
  soap->ahead = 0;
  soap->imode = imode;
  soap->omode = omode;
  host_header.clear();
  bytes_received = 0;
  header_bytes = kUnknown;
  bytes_sent = 0;
  too_large = false;
  body_exhausted = false;
  health_check = false;
  close_wanted = false;
  too_many_attributes = false;
  mime = false;
  header_field_bytes = 0;
  bad_header.clear();
  guard = XmlGuard(config->max_xml_depth);
  utf8.reset();
  request_start.reset();
  body_start.reset();
}

}  // namespace tb
