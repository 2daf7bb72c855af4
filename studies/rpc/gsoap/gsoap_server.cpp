// rpc-gsoap-server: the testbed's gSOAP service -- the generated skeleton, tb::Service's
// operations, its context's limits and hooks, tb::serve_request (services/gsoap) -- over one
// of the study's transports, with the service code and the stubs unchanged:
//   tcp        127.0.0.1, an ephemeral port       ready tcp:127.0.0.1:PORT
//   unix       DIR/gsoap.sock                     ready unix:PATH
//   shm-spin   sessions started at DIR/gsoap-shm.sock, the rings' waits spin or sleep
//   shm-futex                                     ready shm:PATH
// The transport goes *under* the service's own receive/send hooks (ContextState::gsoap_recv
// and gsoap_send, which wrap "gSOAP's own" byte movers): for shm those are the rings.
//
// Iterative, one client at a time, the next after it leaves: a client that dies mid-call is
// noticed (the session socket hangs up), the request fails as a cut-off one does on TCP, the
// session is closed and unmapped, and the next client is served. Serves until SIGTERM/SIGINT
// or --deadline-s; then writes one line per answered request to --raw-out (span_ns: first
// byte read -> reply handed over; server_ns: the span minus the time in the byte movers) and
// prints a JSON line. --corrupt (tests) changes the count in every sendBytes reply.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "TestbedSoapBinding.nsmap"  // the namespace table gSOAP's runtime expects
#include "clock.h"
#include "connection.hpp"
#include "io_meter.hpp"
#include "service.hpp"
#include "shm_channel.h"
#include "sockets.h"
#include "transports.hpp"

namespace {

const int kSliceMs = 200;  // how often a wait looks at the stop flag

struct Options {
  std::string transport, dir, raw_out;
  int deadline_s = 600;
  bool corrupt = false;
};

struct Census {
  std::vector<int64_t> span, server;  // per answered request
  int failed = 0, sessions = 0, closed_in_order = 0, peer_died = 0, died_mid_request = 0;
};

Census census;
int (*send_after_corruption)(struct soap *, const char *, size_t) = nullptr;

void on_stop(int) { tb::stopping.store(true); }

// The session ended without the client's goodbye: it died (or was killed).
bool peer_died(const shm_chan *chan) { return !shm_peer_open(chan) && !shm_peer_closed_in_order(chan); }

// Tests: a reply whose count is one off, so that a client's check has something to catch.
int corrupting_send(struct soap *soap, const char *buf, size_t len) {
  std::string out(buf, len);
  size_t at = out.find("count>");
  if (at != std::string::npos && at + 6 < out.size() && out[at + 6] >= '0' && out[at + 6] <= '9')
    out[at + 6] = static_cast<char>('0' + (out[at + 6] - '0' + 1) % 10);
  return send_after_corruption(soap, out.data(), out.size());
}

// One request on a connection or session: serve it, note its times. false: closed.
bool serve_one(tb::Service &svc, int fd, int index, bool *failed) {
  const auto &st = *static_cast<const tb::ContextState *>(svc.soap->user);
  rpcstudy::io_meter.reset();
  bool open = tb::serve_request(svc, fd, index);
  const rpcstudy::IoMeter &m = rpcstudy::io_meter;
  *failed = m.bytes_out == 0 && st.bytes_received > 0;  // no reply went through the transport
  if (*failed) {
    census.failed++;
  } else if (m.bytes_out > 0) {
    census.span.push_back(m.last_send_end - m.first_recv_entry);
    census.server.push_back(m.last_send_end - m.first_recv_entry - m.ns);
  }
  return open;
}

void serve_socket(tb::Service &svc, int fd) {
  const int idle_ms = svc.soap->recv_timeout * 1000;
  bool failed = false;
  for (int index = 0;; ++index) {
    if (!tb::has_buffered_request(svc) && !tb::wait_readable(fd, idle_ms)) {
      close(fd);
      return;
    }
    if (!serve_one(svc, fd, index, &failed)) return;  // serve_request closed it
  }
}

void serve_session(tb::Service &svc, shm_chan *chan) {
  rpcstudy::attach_shm_session(svc.soap, chan);
  const int64_t idle_ns = static_cast<int64_t>(svc.soap->recv_timeout) * 1000000000;
  int64_t last = now_ns();
  bool failed = false;
  for (int index = 0;;) {
    const int r = shm_wait_readable(chan, kSliceMs);
    if (r > 0) {
      const bool open = serve_one(svc, chan->ctl_fd, index++, &failed);
      last = now_ns();
      if (open) continue;
      const bool died = failed && peer_died(chan);
      census.died_mid_request += died;
      census.peer_died += died;
      if (died)
        std::fprintf(stderr, "rpc-gsoap-server: session %d: the client vanished in the middle of a request; "
                             "session closed, segment unmapped\n", census.sessions);
      shm_forget(chan);  // serve_request closed the session socket
      return;
    }
    if (r < 0) {  // nothing left to read and the peer has gone
      const bool died = peer_died(chan);
      census.closed_in_order += !died;
      census.peer_died += died;
      if (died)
        std::fprintf(stderr, "rpc-gsoap-server: session %d: the client vanished between requests; "
                             "session closed, segment unmapped\n", census.sessions);
      shm_close(chan);
      return;
    }
    if (tb::stopping.load() || now_ns() - last > idle_ns) {  // stop, or idle past the receive timeout
      shm_close(chan);
      return;
    }
  }
}

int parse(int argc, char **argv, Options *o) {
  for (int i = 1; i < argc; i++) {
    std::string f = argv[i];
    if (f == "--corrupt") o->corrupt = true;
    else if (i + 1 < argc && f == "--transport") o->transport = argv[++i];
    else if (i + 1 < argc && f == "--dir") o->dir = argv[++i];
    else if (i + 1 < argc && f == "--raw-out") o->raw_out = argv[++i];
    else if (i + 1 < argc && f == "--deadline-s") o->deadline_s = std::atoi(argv[++i]);
    else return -1;
  }
  const bool known = o->transport == "tcp" || o->transport == "unix" || o->transport == "shm-spin" ||
                     o->transport == "shm-futex";
  return known && !o->dir.empty() && o->deadline_s > 0 ? 0 : -1;
}

void write_raw(const std::string &path) {
  FILE *f = path.empty() ? nullptr : std::fopen(path.c_str(), "w");
  if (!f) return;
  std::fprintf(f, "span_ns\tserver_ns\n");
  for (size_t i = 0; i < census.span.size(); i++)
    std::fprintf(f, "%lld\t%lld\n", static_cast<long long>(census.span[i]), static_cast<long long>(census.server[i]));
  std::fclose(f);
}

}  // namespace

int main(int argc, char **argv) {
  Options o;
  if (parse(argc, argv, &o) != 0) {
    std::fprintf(stderr, "usage: rpc-gsoap-server --transport tcp|unix|shm-spin|shm-futex --dir DIR "
                         "[--raw-out PATH] [--deadline-s N] [--corrupt]\n");
    return 2;
  }
  struct sigaction sa = {};
  sa.sa_handler = on_stop;
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);

  tb::ServerConfig config;    // the service's defaults (docs/tiers.md), no demand, except:
  config.keepalive_max = 0;   // unlimited: a measurement's calls all use one connection
  tb::Service svc(config);
  auto &st = *static_cast<tb::ContextState *>(svc.soap->user);
  const bool shm = o.transport.rfind("shm-", 0) == 0;
  if (shm) {  // the rings go where gSOAP's socket I/O was, under the service's hooks
    st.gsoap_recv = rpcstudy::shm_frecv;
    st.gsoap_send = rpcstudy::shm_fsend;
  }
  rpcstudy::meter_movers(&st.gsoap_recv, &st.gsoap_send);
  if (o.corrupt) {
    send_after_corruption = st.gsoap_send;
    st.gsoap_send = corrupting_send;
  }

  const std::string path = o.dir + (shm ? "/gsoap-shm.sock" : "/gsoap.sock");
  int port = 0;
  const int lfd = o.transport == "tcp" ? tcp_listen_loopback(&port) : unix_listen(path.c_str());
  if (lfd < 0) {
    std::perror("rpc-gsoap-server: cannot listen");
    return 1;
  }
  if (o.transport == "tcp") std::printf("ready tcp:127.0.0.1:%d\n", port);
  else std::printf("ready %s:%s\n", shm ? "shm" : "unix", path.c_str());
  std::fflush(stdout);

  const shm_wait wait = o.transport == "shm-spin" ? SHM_SPIN : SHM_FUTEX;
  const int64_t end = now_ns() + static_cast<int64_t>(o.deadline_s) * 1000000000;
  while (!tb::stopping.load() && now_ns() < end) {
    if (shm) {
      shm_chan chan;
      if (shm_accept(lfd, &chan, wait, kSliceMs) != 0) continue;
      census.sessions++;
      serve_session(svc, &chan);
    } else {
      const int fd = accept_within(lfd, kSliceMs);
      if (fd < 0) continue;
      census.sessions++;
      serve_socket(svc, fd);
    }
  }
  close(lfd);
  if (o.transport != "tcp") unlink(path.c_str());
  write_raw(o.raw_out);
  nlohmann::ordered_json j;
  j["program"] = "rpc-gsoap-server";
  j["transport"] = o.transport;
  j["requests"] = census.span.size();
  j["failed_requests"] = census.failed;
  j["sessions"] = census.sessions;
  j["sessions_closed_in_order"] = census.closed_in_order;
  j["sessions_peer_died"] = census.peer_died;
  j["sessions_peer_died_mid_request"] = census.died_mid_request;
  std::printf("%s\n", j.dump().c_str());
  std::fflush(stdout);
  return 0;
}
