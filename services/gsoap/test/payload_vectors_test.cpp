// ctest: the C++ generator and checksum (src/payload.hpp) against the contract's test
// vectors (tests/contract/vectors.json): every case's checksum, and for small n the items'
// canonical bytes. Usage: payload_vectors_test path/to/vectors.json
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "payload.hpp"

namespace {

template <typename T>
std::string hex_of(const std::vector<T> &items) {
  std::string out;
  char buf[3];
  for (const T &v : items) {
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &v, sizeof(T));
    for (unsigned char b : bytes) {
      std::snprintf(buf, sizeof buf, "%02x", b);
      out += buf;
    }
  }
  return out;
}

// (checksum, canonical hex) of the generated items of one kind.
std::pair<uint32_t, std::string> generated(const std::string &kind, size_t n, uint64_t seed) {
  if (kind == "byte") {
    auto v = tb::bytes_items(n, seed);
    return {tb::checksum(v), hex_of(v)};
  }
  if (kind == "int") {
    auto v = tb::int_items(n, seed);
    uint32_t packed = [&] { auto b = tb::pack_ints(v); return tb::fnv1a(b.data(), b.size()); }();
    if (packed != tb::checksum(v)) return {0, "int buffer and int array disagree"};
    return {tb::checksum(v), hex_of(v)};
  }
  if (kind == "float") {
    auto v = tb::float_items(n, seed);
    return {tb::checksum(v), hex_of(v)};
  }
  auto v = tb::double_items(n, seed);
  return {tb::checksum(v), hex_of(v)};
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::cerr << "usage: payload_vectors_test tests/contract/vectors.json\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  const nlohmann::json vectors = nlohmann::json::parse(in);
  const uint64_t default_seed = vectors.at("seed").get<uint64_t>();
  int cases = 0, failures = 0;
  for (const nlohmann::json &obj : vectors.at("cases")) {
    const std::string kind = obj.at("kind").get<std::string>();
    const size_t n = obj.at("n").get<size_t>();
    const uint64_t seed = obj.value("seed", default_seed);
    const uint32_t want = obj.at("checksum").get<uint32_t>();
    const auto [got, hex] = generated(kind, n, seed);
    ++cases;
    if (got != want || (obj.contains("items_hex") && hex != obj["items_hex"].get<std::string>())) {
      ++failures;
      std::cerr << "FAIL " << kind << " n=" << n << " seed=" << seed << ": checksum " << got
                << " want " << want << ", hex " << hex << "\n";
    }
  }
  std::cout << cases << " vectors, " << failures << " failures\n";
  return cases > 0 && failures == 0 ? 0 : 1;
}
