// tb-serialization: the gSOAP side of the serialization study (docs/method.md, "Serialization cost"). Small
// main: parse the command line, run the command, map failures to exit codes (options.cpp).
#include <iostream>

#include "TestbedSoapBinding.nsmap"  // the global namespace table gSOAP's runtime expects
#include "args.hpp"
#include "message.hpp"
#include "options.hpp"

int main(int argc, char **argv) {
  tb::Options o;
  try {
    bool help = false;
    o = tb::parse_options(argc, argv, &help);
    if (help) {
      std::cout << tb::usage() << tb::message_operations() << "\n";
      return 0;
    }
  } catch (const tb::UsageError &e) {
    std::cerr << "tb-serialization: " << e.what() << "\n";
    return 2;
  }
  try {
    if (o.command == "message") return tb::run_message(o);
    if (o.command == "writers") return tb::run_writers(o);
    if (o.command == "transmit") return tb::run_transmit(o);
    return tb::run_mtom(o);
  } catch (const std::exception &e) {
    std::cerr << "tb-serialization " << o.command << ": " << e.what() << "\n";
    return 3;
  }
}
