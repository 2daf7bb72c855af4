// K calls over C connections (client_run.cpp) and their report (client_report.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "client_options.hpp"
#include "exchange.hpp"
#include "meter.hpp"

namespace tb {

struct RunResult {
  int ok = 0;          // succeeded and checked
  int mismatches = 0;  // answered, but count, checksum or echo wrong
  int faults = 0;      // SOAP fault or transport error
  std::string first_fault;
  std::optional<Outcome> sample;  // the first mismatch, else the first checked answer
  std::optional<uint64_t> request_bytes, response_bytes;  // of the first answered call
  double seconds = 0;
  std::vector<int64_t> latency_ns;  // per call
  Timings timings;                  // summed over calls
  int connections = 0;
  int errors() const { return mismatches + faults; }
};

// Runs the calls: each of min(C, K) threads owns a proxy and one kept-alive connection
// and takes call numbers from a shared counter until K calls were made.
RunResult run_calls(const ClientOptions &options, Exchange &exchange);

std::string report_json(const ClientOptions &options, const RunResult &r);
std::string report_text(const ClientOptions &options, const RunResult &r);
std::string dry_run_json(const ClientOptions &options);
// 0 all checked; 1 a mismatch (wins); 3 a fault or transport error
int exit_status(const RunResult &r);

}  // namespace tb
