// Reads ServerConfig from the environment and the command line. Each setting is one row
// of kSettings: its flag, its variable, what it means, and how to parse it -- so --help,
// the environment and the flags can never disagree.
#include "config.hpp"

#include <cstdlib>
#include <functional>
#include <sstream>
#include <vector>

#include "args.hpp"

namespace tb {
namespace {

struct Setting {
  const char *flag;
  const char *env;
  const char *help;
  std::function<void(ServerConfig &, const std::string &what, const std::string &text)> set;
  std::function<std::string(const ServerConfig &)> show;
};

Model parse_model(const std::string &what, const std::string &text) {
  if (text == "iterative") return Model::iterative;
  if (text == "thread") return Model::thread;
  if (text == "pool") return Model::pool;
  throw UsageError(what + " must be iterative, thread or pool, got '" + text + "'");
}

template <typename T>
Setting int_setting(const char *flag, const char *env, const char *help, T ServerConfig::*field,
                    int64_t lo, int64_t hi) {
  return {flag, env, help,
          [=](ServerConfig &c, const std::string &what, const std::string &text) {
            c.*field = static_cast<T>(parse_int(what, text, lo, hi));
          },
          [=](const ServerConfig &c) { return std::to_string(c.*field); }};
}

template <typename T>
Setting demand_setting(const char *flag, const char *env, const char *help, T Demand::*field,
                       int64_t hi) {
  return {flag, env, help,
          [=](ServerConfig &c, const std::string &what, const std::string &text) {
            c.demand.*field = static_cast<T>(parse_int(what, text, 0, hi));
          },
          [=](const ServerConfig &c) { return std::to_string(c.demand.*field); }};
}

const int64_t k60s = 60000000;  // the largest demand: one minute

const std::vector<Setting> &settings() {
  static const std::vector<Setting> table = {
      int_setting("--port", "PORT", "HTTP port to listen on (default 8080)", &ServerConfig::port, 1,
                  65535),
      {"--bind", "BIND", "address to listen on (default 127.0.0.1; 0.0.0.0 in containers)",
       [](ServerConfig &c, const std::string &what, const std::string &text) {
         if (text.empty()) throw UsageError(what + " must be an address, e.g. 127.0.0.1");
         c.bind = text;
       },
       [](const ServerConfig &c) { return c.bind; }},
      {"--model", "GSOAP_SERVER_MODEL",
       "iterative (one request at a time) | thread (a thread per connection) | "
       "pool (acceptor + bounded queue + workers; default)",
       [](ServerConfig &c, const std::string &what, const std::string &text) {
         c.model = parse_model(what, text);
       },
       [](const ServerConfig &c) { return std::string(model_name(c.model)); }},
      int_setting("--pool-size", "GSOAP_POOL_SIZE", "workers of the pool model (default 16)",
                  &ServerConfig::pool_size, 1, 4096),
      int_setting("--backlog", "GSOAP_BACKLOG", "listen backlog (default 128)",
                  &ServerConfig::backlog, 1, 65535),
      int_setting("--recv-timeout", "GSOAP_RECV_TIMEOUT_S",
                  "socket receive timeout and keep-alive idle time, s (default 20)",
                  &ServerConfig::recv_timeout_s, 1, 3600),
      int_setting("--send-timeout", "GSOAP_SEND_TIMEOUT_S", "socket send timeout, s (default 20)",
                  &ServerConfig::send_timeout_s, 1, 3600),
      int_setting("--transfer-timeout", "GSOAP_TRANSFER_TIMEOUT_S",
                  "longest a whole message may take to arrive or leave, s: a client that trickles "
                  "its body never trips the per-receive timeout (default 30)",
                  &ServerConfig::transfer_timeout_s, 1, 3600),
      int_setting("--keepalive-max", "GSOAP_KEEPALIVE_MAX",
                  "requests per kept-alive connection, 0 = unlimited (default 10000)",
                  &ServerConfig::keepalive_max, 0, 1000000000),
      {"--max-message-bytes", "MAX_MESSAGE_BYTES",
       "largest request body; larger gets HTTP 413 (default 67108864)",
       [](ServerConfig &c, const std::string &what, const std::string &text) {
         c.max_message_bytes = static_cast<uint64_t>(parse_int(what, text, 1, int64_t(1) << 40));
       },
       [](const ServerConfig &c) { return std::to_string(c.max_message_bytes); }},
      int_setting("--max-xml-depth", "MAX_XML_DEPTH", "deepest XML nesting accepted (default 64)",
                  &ServerConfig::max_xml_depth, 4, 10000),
      {"--max-xml-occurs", "MAX_XML_OCCURS",
       "most repeated elements (array items) accepted (default 10000000)",
       [](ServerConfig &c, const std::string &what, const std::string &text) {
         c.max_xml_occurs = static_cast<uint64_t>(parse_int(what, text, 1, int64_t(1) << 40));
       },
       [](const ServerConfig &c) { return std::to_string(c.max_xml_occurs); }},
      int_setting("--max-xml-attributes", "MAX_XML_ATTRIBUTES",
                  "most distinct attribute names (xmlns included) in one request (default 64)",
                  &ServerConfig::max_xml_attributes, 1, 100000),
      int_setting("--max-header-bytes", "MAX_HEADER_BYTES",
                  "most bytes of HTTP header lines in one request; more gets HTTP 431 "
                  "(default 16384)",
                  &ServerConfig::max_header_bytes, 1024, 1 << 20),
      {"--accept-mtom", "GSOAP_ACCEPT_MTOM",
       "1: accept multipart/related (MTOM/XOP) requests, XML checks on the root part only; "
       "gSOAP's MIME parser has undefined behaviour on hostile part headers (docs/fuzzing.md), "
       "so leave it 0 (415) where strangers send requests (default 0)",
       [](ServerConfig &c, const std::string &what, const std::string &text) {
         c.accept_mtom = parse_bool(what, text);
       },
       [](const ServerConfig &c) { return std::string(c.accept_mtom ? "1" : "0"); }},
      {"--serializers", "GSOAP_SERIALIZERS",
       "generated (soapcpp2's serializers as generated) | tuned (custom serializers of the "
       "arrays: items straight to and from gSOAP's buffers; default); same WSDL and wire format",
       [](ServerConfig &c, const std::string &what, const std::string &text) {
         if (!parse_serializers(text, &c.serializers))
           throw UsageError(what + " must be generated or tuned, got '" + text + "'");
       },
       [](const ServerConfig &c) { return std::string(serializers_name(c.serializers)); }},
      demand_setting("--demand-cpu-us", "DEMAND_SERVICE_CPU_US",
                     "CPU time added to every operation, µs (default 0)", &Demand::cpu_us, k60s),
      demand_setting("--demand-wait-us", "DEMAND_SERVICE_WAIT_US",
                     "sleep added to every operation, µs (default 0)", &Demand::wait_us, k60s),
      {"--demand-locked", "DEMAND_SERVICE_LOCKED",
       "1: take the demand while holding the one process-wide lock (default 0)",
       [](ServerConfig &c, const std::string &what, const std::string &text) {
         c.demand.locked = parse_bool(what, text);
       },
       [](const ServerConfig &c) { return std::string(c.demand.locked ? "1" : "0"); }},
  };
  return table;
}

}  // namespace

const char *model_name(Model m) {
  switch (m) {
    case Model::iterative: return "iterative";
    case Model::thread: return "thread";
    case Model::pool: return "pool";
  }
  return "?";
}

ServerConfig load_server_config(int argc, char **argv, bool *help) {
  ServerConfig c;
  *help = false;
  for (const Setting &s : settings()) {
    const char *v = std::getenv(s.env);
    if (v) s.set(c, std::string("environment variable ") + s.env, v);
  }
  ArgCursor args(argc, argv);
  while (!args.done()) {
    std::string flag = args.next_flag();
    if (flag == "--help") {
      *help = true;
      return c;
    }
    const Setting *found = nullptr;
    for (const Setting &s : settings())
      if (flag == s.flag) found = &s;
    if (!found) throw UsageError("unknown flag " + flag + " (see --help)");
    found->set(c, flag, args.value(flag));
  }
  return c;
}

std::string server_help() {
  std::ostringstream out;
  out << "usage: tb-gsoap-server [--flag VALUE ...]\n\n"
         "The testbed's gSOAP 2.8 SOAP service (services/contract/testbed.wsdl).\n"
         "POST <any path>: SOAP 1.1 calls; GET /health: 200 ok; GET <path>?wsdl: the WSDL.\n"
         "Every setting is read from its environment variable; a flag overrides it.\n\n";
  for (const Setting &s : settings()) {
    std::string left = std::string("  ") + s.flag + " / " + s.env;
    out << left << "\n      " << s.help << "\n";
  }
  out << "  --help\n      this text\n";
  return out.str();
}

std::string describe(const ServerConfig &c) {
  std::ostringstream out;
  bool first = true;
  for (const Setting &s : settings()) {
    out << (first ? "" : " ") << s.env << "=" << s.show(c);
    first = false;
  }
  return out.str();
}

}  // namespace tb
