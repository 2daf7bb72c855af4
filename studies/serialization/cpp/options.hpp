// tb-serialization's command line: one command and its flags (options.cpp has --help).
#pragma once

#include <cstdint>
#include <string>

#include "serializers.hpp"
#include "timing.hpp"

namespace tb {

struct Options {
  std::string command;             // message | writers | transmit | mtom
  std::string op = "sendInts";     // the contract operation of the message
  int64_t n = 1000;                // items
  uint64_t seed = 1;
  TimingPolicy timing;
  bool socket = false;             // message: also the whole write/read over loopback TCP
  std::string dump, dump_http;     // message: write the envelope / the HTTP request here
  std::string endpoint;            // transmit, mtom: the service
  std::string io = "length";       // transmit: length | store | chunk
  bool keepalive = true;           // transmit: one connection for every call, or one each
  int sndbuf = -1, rcvbuf = -1;    // transmit: client SO_SNDBUF/SO_RCVBUF; -1: gSOAP's
                                   // (SOAP_BUFLEN, 64 KiB), 0: the kernel's (autotuned)
  int calls = 3;                   // transmit, mtom: timed calls (after one warm-up call)
  std::string form = "base64";     // mtom: base64 | mtom
  Serializers serializers = kDefaultSerializers;  // of the arrays: generated | tuned
};

struct UsageError;
// Parses argv; throws UsageError naming the flag and the fix. *help: --help was given.
Options parse_options(int argc, char **argv, bool *help);
const char *usage();

// The commands (cmd_*.cpp): each prints one JSON object and returns the exit status.
int run_message(const Options &o);
int run_writers(const Options &o);
int run_transmit(const Options &o);
int run_mtom(const Options &o);

}  // namespace tb
