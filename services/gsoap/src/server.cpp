// tb-gsoap-server: the testbed's gSOAP service. Reads its settings (environment, then
// flags), prints them in one line, listens, and serves with the chosen server model until
// SIGTERM/SIGINT, after which it leaves the balancer's rotation (drain.hpp), stops
// accepting, finishes the requests in flight and exits 0.
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <thread>

#include "TestbedSoapBinding.nsmap"  // the global namespace table gSOAP's runtime expects
#include "args.hpp"
#include "config.hpp"
#include "connection.hpp"
#include "drain.hpp"
#include "models.hpp"
#include "tracing.hpp"

namespace {

void on_stop_signal(int) { tb::drain_begin_from_signal(); }

const auto kStopDeadline = std::chrono::milliseconds(9500);  // docs/tiers.md: stop within 10 s

// After a stop signal, requests still in flight get until the deadline; a client that
// trickles its request in slower than that does not hold the stop up.
void start_stop_watchdog() {
  std::thread([] {
    while (!tb::stopping.load()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::this_thread::sleep_for(kStopDeadline);
    std::fprintf(stderr, "tb-gsoap-server: requests still in flight at the stop deadline; exiting\n");
    std::fflush(nullptr);
    _exit(0);
  }).detach();
}

void install_signal_handlers() {
  struct sigaction sa = {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);  // a client that vanished mid-response is an error, not a kill
}

}  // namespace

int main(int argc, char **argv) {
  tb::ServerConfig config;
  try {
    bool help = false;
    config = tb::load_server_config(argc, argv, &help);
    if (help) {
      std::cout << tb::server_help();
      return 0;
    }
  } catch (const tb::UsageError &e) {
    std::cerr << "tb-gsoap-server: " << e.what() << "\n";
    return 2;
  }
  install_signal_handlers();
  tb::start_drain_watcher();
  start_stop_watchdog();
  int listen_fd = tb::listen_on(config);
  std::printf("tb-gsoap-server: gSOAP %d.%d.%d listening on http://%s:%d/ %s\n",
              GSOAP_VERSION / 100000, GSOAP_VERSION / 1000 % 100, GSOAP_VERSION % 1000,
              config.bind.c_str(), config.port, tb::describe(config).c_str());
  if (const std::string traced = tb::tracing_start(); !traced.empty())
    std::printf("tb-gsoap-server: %s\n", traced.c_str());
  std::fflush(stdout);
  switch (config.model) {
    case tb::Model::iterative: tb::run_iterative(config, listen_fd); break;
    case tb::Model::thread: tb::run_thread_per_connection(config, listen_fd); break;
    case tb::Model::pool: tb::run_pool(config, listen_fd); break;
  }
  std::printf("tb-gsoap-server: stopped\n");
  std::fflush(nullptr);
  _exit(0);  // threads of a thread-per-connection server may still be winding down
}
