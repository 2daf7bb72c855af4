// The command line of tb-gsoap-client, the same as the Axis2 interop client's
// (docs/tiers.md "Client command-line tools"), plus --dry-run.
#pragma once

#include <cstdint>
#include <string>

#include "serializers.hpp"

namespace tb {

struct ClientOptions {
  std::string endpoint;      // http://host:port/path
  std::string op;            // a contract operation
  int n = 0;                 // payload items (seeded generator)
  uint64_t seed = 1;
  int calls = 1;
  int connections = 1;       // parallel keep-alive connections, one thread each
  int64_t cpu_us = 0;        // work: cpuMicros
  int64_t wait_us = 0;       // work: waitMicros
  bool json = false;
  bool dry_run = false;      // no network: the payload's count and checksum only
  Serializers serializers = kDefaultSerializers;  // of the arrays (GSOAP_SERIALIZERS)
};

constexpr int kMaxItems = 10000000;       // the service's default MAX_XML_OCCURS
constexpr int kMaxCalls = 100000000;
constexpr int kMaxConnections = 1024;
constexpr int64_t kMaxWorkMicros = 60000000;

// Throws UsageError; sets *help for -h/--help.
ClientOptions parse_client_options(int argc, char **argv, bool *help);
std::string client_usage();

}  // namespace tb
