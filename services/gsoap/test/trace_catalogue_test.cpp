// ctest: the shared catalogue of adversarial traceparent headers
// (tests/hostile_observability/traceparents.py, its JSON export given as argv[1]) through
// gSOAP's rule (src/tracing.hpp): each case's header lines as the header hook sees them, the
// request traced or not; and the rate cap of sampled requests.
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "tracing.hpp"

namespace {

int failures = 0;

void fail(const std::string &label, const std::string &what) {
  std::cerr << "FAIL " << label << ": " << what << "\n";
  ++failures;
}

// The header's bytes as a client sends them: code points below 256 as one byte (ISO-8859-1,
// HTTP's historical header charset), so "\u00e9" is the byte 0xE9.
std::string latin1(const std::string &utf8) {
  std::string out;
  for (size_t i = 0; i < utf8.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(utf8[i]);
    if ((c == 0xC2 || c == 0xC3) && i + 1 < utf8.size()) {
      out += static_cast<char>(((c & 0x03) << 6) | (static_cast<unsigned char>(utf8[++i]) & 0x3F));
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

void catalogue(const char *path) {
  std::ifstream in(path);
  if (!in) {
    fail("catalogue", std::string("cannot read ") + path);
    return;
  }
  const nlohmann::json cases = nlohmann::json::parse(in);
  if (cases.size() < 40) fail("catalogue", "fewer than 40 cases");
  const char *names[] = {"traceparent", "TraceParent", "TRACEPARENT"};
  for (const auto &c : cases) {
    const std::string label = c["label"], expected = c["expected"];
    tb::trace_request_begin();
    size_t i = 0;
    for (const auto &h : c["headers"]) {
      const std::string value = latin1(h.get<std::string>());
      tb::trace_header(names[i++ % 3], value.c_str());
    }
    const bool sampled = tb::trace_sampled_now();
    if (sampled != (expected == "sampled")) fail(label, std::string("traced: ") + (sampled ? "yes" : "no"));
    if (c["headers"].size() == 1) {
      std::string t, p;
      const std::string value = latin1(c["headers"][0].get<std::string>());
      const tb::TraceContext got = tb::parse_trace_context(value.c_str(), t, p);
      const tb::TraceContext want = expected == "sampled"     ? tb::TraceContext::sampled
                                    : expected == "unsampled" ? tb::TraceContext::unsampled
                                                              : tb::TraceContext::invalid;
      if (got != want) fail(label, "parse_trace_context disagrees");
      if (got != tb::TraceContext::invalid && (t != value.substr(3, 32) || p != value.substr(36, 16)))
        fail(label, "ids " + t + " " + p);
    }
    tb::trace_request_end(false, true);  // not counted: nothing is queued
  }
}

void rate_cap() {
  tb::RateCap none(0.001);  // one token, then one per 1000 s
  if (!none.try_acquire()) fail("rate cap", "the first token");
  for (int i = 0; i < 5; ++i)
    if (none.try_acquire()) fail("rate cap", "a token beyond the cap");
  tb::RateCap many(1e9);
  for (int i = 0; i < 1000; ++i)
    if (!many.try_acquire()) fail("rate cap", "refused under the cap");
  setenv("TRACING_MAX_PER_S", "50", 1);
  if (tb::RateCap::from_env() != 50) fail("rate cap", "TRACING_MAX_PER_S=50");
  for (const char *bad : {"", "x", "-5", "0", "nan", "inf", "5x"}) {
    setenv("TRACING_MAX_PER_S", bad, 1);
    if (tb::RateCap::from_env() != 1000) fail("rate cap", std::string("TRACING_MAX_PER_S=") + bad);
  }
  unsetenv("TRACING_MAX_PER_S");
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::cerr << "usage: trace_catalogue_test tests/hostile_observability/traceparents.json\n";
    return 2;
  }
  // tracing on, towards a port where nothing listens: the header hook reads traceparent only then
  setenv("ZIPKIN_URL", "http://127.0.0.1:9", 1);
  unsetenv("TRACING");
  if (tb::tracing_start("gsoap").find("tracing on") != 0 || !tb::tracing_on()) {
    std::cerr << "trace_catalogue_test: tracing did not start\n";
    return 1;
  }
  catalogue(argv[1]);
  rate_cap();
  std::cout << (failures ? "trace_catalogue_test: FAILED\n" : "trace_catalogue_test: ok\n");
  return failures ? 1 : 0;
}
