// The gSOAP service's settings (docs/tiers.md "gSOAP service"): one struct, read from the
// environment once at start-up; command-line flags override the environment.
#pragma once

#include <cstdint>
#include <string>

#include "serializers.hpp"

namespace tb {

enum class Model { iterative, thread, pool };

// One demand point's synthetic demand (docs/tiers.md "Synthetic demand knobs").
struct Demand {
  int64_t cpu_us = 0;    // CPU busy time per request, µs of the thread's CPU time
  int64_t wait_us = 0;   // sleep per request, µs
  bool locked = false;   // take both while holding the one process-wide lock
};

struct ServerConfig {
  int port = 8080;
  std::string bind = "127.0.0.1";
  Model model = Model::pool;
  int pool_size = 16;             // workers of the pool model
  int backlog = 128;              // listen backlog
  int recv_timeout_s = 20;        // also the idle time of a kept-alive connection
  int send_timeout_s = 20;
  int transfer_timeout_s = 30;    // longest a whole request (or response) may take to transfer
  int keepalive_max = 10000;      // requests per kept-alive connection; 0 = unlimited
  uint64_t max_message_bytes = 67108864;   // larger request bodies get HTTP 413
  int max_xml_depth = 64;
  uint64_t max_xml_occurs = 10000000;
  int max_xml_attributes = 64;    // distinct attribute names in one request (attribute_limit.hpp)
  int max_header_bytes = 16384;   // HTTP header lines of one request; more gets HTTP 431
  bool accept_mtom = false;       // multipart/related (MTOM/XOP) requests; refused (415) when off
  Serializers serializers = kDefaultSerializers;  // the arrays' serializers (serializers.hpp)
  Demand demand;                  // DEMAND_SERVICE_*: every operation
};

const char *model_name(Model m);

// Environment first, then flags. Throws UsageError (exit 2). Sets *help when --help is given.
ServerConfig load_server_config(int argc, char **argv, bool *help);
std::string server_help();
// The one start-up line: every effective setting as name=value.
std::string describe(const ServerConfig &c);

}  // namespace tb
