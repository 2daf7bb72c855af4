// See served.hpp.
#include "served.hpp"

#include <atomic>
#include <nlohmann/json.hpp>

namespace tb {
namespace {
std::atomic<long> started{0}, ok_count{0}, errors{0}, in_flight{0};
}  // namespace

void served_begin() { in_flight.fetch_add(1); }

void served_end(bool counted, bool ok) {
  in_flight.fetch_sub(1);
  if (!counted) return;
  started.fetch_add(1);
  (ok ? ok_count : errors).fetch_add(1);
}

std::string served_json() {
  nlohmann::ordered_json j;
  j["started"] = started.load();
  j["ok"] = ok_count.load();
  j["errors"] = errors.load();
  j["in_flight"] = in_flight.load() - 1;  // minus this GET
  return j.dump() + "\n";
}

}  // namespace tb
