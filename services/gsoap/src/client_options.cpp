// Parsing of tb-gsoap-client's command line (client_options.hpp).
#include "client_options.hpp"

#include <cstdlib>

#include "args.hpp"

namespace tb {
namespace {

const char *const kOperations[] = {"ping",        "sendBytes",     "sendInts", "sendFloats",
                                   "sendDoubles", "sendIntBuffer", "echoInts", "work"};

bool is_operation(const std::string &op) {
  for (const char *o : kOperations)
    if (op == o) return true;
  return false;
}

std::string operation_list() {
  std::string out;
  for (const char *o : kOperations) out += (out.empty() ? "" : ", ") + std::string(o);
  return out;
}

void check_endpoint(const std::string &endpoint) {
  const std::string scheme = "http://";
  if (endpoint.compare(0, scheme.size(), scheme) != 0 || endpoint.size() == scheme.size() ||
      endpoint[scheme.size()] == '/')
    throw UsageError("--endpoint '" + endpoint +
                     "' must be an http:// URL with a host, e.g. http://127.0.0.1:8082/gsoap");
}

Serializers serializers_from(const std::string &what, const std::string &text) {
  Serializers s;
  if (!parse_serializers(text, &s))
    throw UsageError(what + " must be generated or tuned, got '" + text + "'");
  return s;
}

}  // namespace

ClientOptions parse_client_options(int argc, char **argv, bool *help) {
  ClientOptions o;
  *help = false;
  if (const char *env = std::getenv("GSOAP_SERIALIZERS"))
    o.serializers = serializers_from("environment variable GSOAP_SERIALIZERS", env);
  ArgCursor args(argc, argv);
  while (!args.done()) {
    std::string flag = args.next_flag();
    if (flag == "--help") {
      *help = true;
      return o;
    }
    if (flag == "--json") o.json = true;
    else if (flag == "--dry-run") o.dry_run = true;
    else if (flag == "--endpoint") o.endpoint = args.value(flag);
    else if (flag == "--op") o.op = args.value(flag);
    else if (flag == "--n") o.n = static_cast<int>(parse_int(flag, args.value(flag), 0, kMaxItems));
    else if (flag == "--seed") o.seed = parse_uint64(flag, args.value(flag));
    else if (flag == "--calls")
      o.calls = static_cast<int>(parse_int(flag, args.value(flag), 1, kMaxCalls));
    else if (flag == "--connections")
      o.connections = static_cast<int>(parse_int(flag, args.value(flag), 1, kMaxConnections));
    else if (flag == "--cpu-us") o.cpu_us = parse_int(flag, args.value(flag), 0, kMaxWorkMicros);
    else if (flag == "--wait-us") o.wait_us = parse_int(flag, args.value(flag), 0, kMaxWorkMicros);
    else if (flag == "--serializers") o.serializers = serializers_from(flag, args.value(flag));
    else throw UsageError("unknown argument " + flag + "; see --help for the arguments");
  }
  if (o.op.empty()) throw UsageError("--op is required: one of " + operation_list());
  if (!is_operation(o.op))
    throw UsageError("--op '" + o.op + "' is not a contract operation; use one of " +
                     operation_list());
  if (o.dry_run) return o;
  if (o.endpoint.empty())
    throw UsageError("--endpoint is required, e.g. --endpoint http://127.0.0.1:8082/gsoap");
  check_endpoint(o.endpoint);
  return o;
}

std::string client_usage() {
  return "usage: tb-gsoap-client --endpoint URL --op OP [--n N] [--seed S] [--calls K]\n"
         "                       [--connections C] [--cpu-us X] [--wait-us Y] [--json]\n"
         "                       [--serializers generated|tuned]\n"
         "       tb-gsoap-client --dry-run --op OP [--n N] [--seed S] [--json]\n"
         "\n"
         "Calls a testbed SOAP service with the gSOAP proxy generated from the contract and\n"
         "checks every answer (send*: count and FNV-1a checksum; echoInts: the echo).\n"
         "\n"
         "  --endpoint URL    service endpoint, e.g. http://127.0.0.1:8082/gsoap (required)\n"
         "  --op OP           " + operation_list() + " (required)\n"
         "  --n N             items from the seeded generator (default 0, at most " +
         std::to_string(kMaxItems) + ")\n"
         "  --seed S          generator seed, unsigned 64-bit (default 1)\n"
         "  --calls K         calls to make (default 1)\n"
         "  --connections C   parallel keep-alive connections, one thread each (default 1)\n"
         "  --cpu-us X        work: cpuMicros (default 0)\n"
         "  --wait-us Y       work: waitMicros (default 0)\n"
         "  --json            print one JSON object (keys: docs/tiers.md, plus gSOAP-only\n"
         "                    \"timings\": mean ms per call of serialize, connect, send, wait\n"
         "                    (for the response header) and receive)\n"
         "  --serializers S   the arrays' serializers: generated (soapcpp2's, as generated) or\n"
         "                    tuned (custom: items straight to and from gSOAP's buffers);\n"
         "                    default GSOAP_SERIALIZERS, else " + std::string(serializers_name(kDefaultSerializers)) + "\n"
         "  --dry-run         no network: print the payload's count and checksum (and, for\n"
         "                    n <= 16, its canonical bytes in hex)\n"
         "\n"
         "exit status: 0 every call succeeded and checked; 1 a checksum, count or echo\n"
         "mismatch; 2 usage error; 3 a fault or transport error (1 wins over 3).\n";
}

}  // namespace tb
