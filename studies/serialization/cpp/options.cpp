// tb-serialization's command line (options.hpp).
#include "options.hpp"

#include "args.hpp"
#include "message.hpp"

namespace tb {
namespace {

double parse_seconds(const std::string &flag, const std::string &v) {
  size_t used = 0;
  double d = -1;
  try {
    d = std::stod(v, &used);
  } catch (const std::exception &) {
  }
  if (used != v.size() || !(d >= 0 && d <= 600))
    throw UsageError(flag + " '" + v + "': seconds, 0 to 600 (e.g. 0.2)");
  return d;
}

}  // namespace

const char *usage() {
  return R"(tb-serialization: the serialization study's gSOAP measurements (studies/serialization).
Every command prints one JSON object on stdout; exit 0 ok, 1 a check failed (wrong
count/checksum, bytes that differ), 2 a usage error, 3 a failure (network, gSOAP error).

  tb-serialization message  --op OP --n N [--seed S] [--socket] [--dump FILE] [--dump-http FILE]
      sizes of the request (items, XML envelope, whole HTTP request as the generated proxy
      sends it) and the times of gSOAP's generated serializer (data -> XML in memory) and
      deserializer (XML in memory -> data, count and checksum checked); --socket adds the
      whole write to a loopback socket and the whole read from one
  tb-serialization writers  --n N [--seed S]
      N ints written five ways into memory: printf-style, gSOAP's generated writer, the
      tuned writer (services/gsoap/custom), a hand-written digit writer, and a raw itoa
      loop (the lower bound)
  tb-serialization transmit --endpoint URL --op OP --n N [--io length|store|chunk]
                            [--keepalive 1|0] [--sndbuf B] [--rcvbuf B] [--calls K]
      end-to-end calls to a service with one set of transmit options; --sndbuf/--rcvbuf:
      -1 gSOAP's fixed SOAP_BUFLEN (64 KiB, its default), 0 the kernel's autotuning, or bytes
  tb-serialization mtom     --endpoint URL --n N [--form base64|mtom] [--calls K]
      sendIntBuffer with the ints as base64 in the body or as an MTOM/XOP attachment

--serializers generated|tuned (default tuned): the serializers of the arrays on every
gSOAP context of the command: soapcpp2's generated ones or the tuned custom ones
(services/gsoap/custom; writers always runs both).
Timing of every command: --warmup W (1) runs not kept, then at least --min-runs K (3) runs
and --min-seconds T (0.2) seconds, at most --max-runs M (100000).
Operations: )";
}

Options parse_options(int argc, char **argv, bool *help) {
  Options o;
  *help = false;
  if (argc < 2) throw UsageError("a command is required: message, writers, transmit or mtom (--help)");
  o.command = argv[1];
  if (o.command == "--help" || o.command == "-h") {
    *help = true;
    return o;
  }
  if (o.command != "message" && o.command != "writers" && o.command != "transmit" && o.command != "mtom")
    throw UsageError("unknown command '" + o.command + "': message, writers, transmit or mtom");
  ArgCursor args(argc - 1, argv + 1);
  while (!args.done()) {
    const std::string flag = args.next_flag();
    if (flag == "--help") {
      *help = true;
      return o;
    }
    const std::string v = args.value(flag);
    if (flag == "--op") o.op = v;
    else if (flag == "--n") o.n = parse_int(flag, v, 0, 100000000);
    else if (flag == "--seed") o.seed = parse_uint64(flag, v);
    else if (flag == "--warmup") o.timing.warmup = static_cast<int>(parse_int(flag, v, 0, 1000));
    else if (flag == "--min-runs") o.timing.min_runs = static_cast<int>(parse_int(flag, v, 1, 1000000));
    else if (flag == "--max-runs") o.timing.max_runs = static_cast<int>(parse_int(flag, v, 1, 10000000));
    else if (flag == "--min-seconds") o.timing.min_seconds = parse_seconds(flag, v);
    else if (flag == "--socket") o.socket = parse_bool(flag, v);
    else if (flag == "--dump") o.dump = v;
    else if (flag == "--dump-http") o.dump_http = v;
    else if (flag == "--endpoint") o.endpoint = v;
    else if (flag == "--io") o.io = v;
    else if (flag == "--keepalive") o.keepalive = parse_bool(flag, v);
    else if (flag == "--sndbuf") o.sndbuf = static_cast<int>(parse_int(flag, v, -1, 1 << 30));
    else if (flag == "--rcvbuf") o.rcvbuf = static_cast<int>(parse_int(flag, v, -1, 1 << 30));
    else if (flag == "--calls") o.calls = static_cast<int>(parse_int(flag, v, 1, 1000000));
    else if (flag == "--form") o.form = v;
    else if (flag == "--serializers") {
      if (!parse_serializers(v, &o.serializers))
        throw UsageError("--serializers '" + v + "': generated or tuned");
    }
    else throw UsageError("unknown flag " + flag + " (tb-serialization --help)");
  }
  if (o.command == "message" || o.command == "transmit") {
    if (!make_message(o.op, 0, o.seed)) throw UsageError("--op '" + o.op + "': one of " + message_operations());
  }
  if ((o.command == "transmit" || o.command == "mtom") && o.endpoint.rfind("http://", 0) != 0)
    throw UsageError("--endpoint must be an http:// URL of the service, e.g. http://127.0.0.1:8090/gsoap");
  if (o.io != "length" && o.io != "store" && o.io != "chunk")
    throw UsageError("--io '" + o.io + "': length (gSOAP's default: a counting pass, then Content-Length), "
                     "store (the message stored, then sent with Content-Length) or chunk");
  if (o.form != "base64" && o.form != "mtom") throw UsageError("--form '" + o.form + "': base64 or mtom");
  return o;
}

}  // namespace tb
