// tb-gsoap-client: calls a testbed SOAP service (gSOAP or Axis2, direct or through
// HAProxy) with the proxy generated from the contract, checks every answer, and reports
// count/checksum, throughput and latency (docs/tiers.md "Client command-line tools").
#include <csignal>
#include <iostream>

#include "TestbedSoapBinding.nsmap"  // the global namespace table gSOAP's runtime expects
#include "args.hpp"
#include "client_options.hpp"
#include "client_run.hpp"
#include "exchange.hpp"

int main(int argc, char **argv) {
  tb::ClientOptions options;
  try {
    bool help = false;
    options = tb::parse_client_options(argc, argv, &help);
    if (help) {
      std::cout << tb::client_usage();
      return 0;
    }
  } catch (const tb::UsageError &e) {
    std::cerr << "tb-gsoap-client: " << e.what() << "\n";
    return 2;
  }
  if (options.dry_run) {
    std::cout << tb::dry_run_json(options);
    return 0;
  }
  signal(SIGPIPE, SIG_IGN);  // a server that closed mid-request is an error, not a kill
  tb::Exchange exchange(options);
  tb::RunResult result = tb::run_calls(options, exchange);
  std::cout << (options.json ? tb::report_json(options, result) : tb::report_text(options, result));
  if (!result.first_fault.empty() && !options.json)
    std::cerr << "tb-gsoap-client: " << result.first_fault << "\n";
  return tb::exit_status(result);
}
