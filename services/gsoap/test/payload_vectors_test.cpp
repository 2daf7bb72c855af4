// ctest: the C++ generator and checksum (src/payload.hpp) against the contract's test
// vectors (tests/contract/vectors.json): every case's checksum, and for small n the items'
// canonical bytes. Usage: payload_vectors_test path/to/vectors.json
#include <cstdio>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "payload.hpp"

namespace {

// The objects of the "cases" array: every {...} two levels deep.
std::vector<std::string> case_objects(const std::string &json) {
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < json.size(); ++i) {
    if (json[i] == '{' && ++depth == 2) start = i;
    if (json[i] == '}' && depth-- == 2) out.push_back(json.substr(start, i - start + 1));
  }
  return out;
}

std::string field(const std::string &obj, const std::string &name) {
  std::smatch m;
  std::regex re("\"" + name + "\"\\s*:\\s*\"?([0-9a-zA-Z]*)\"?");
  return std::regex_search(obj, m, re) ? m[1].str() : "";
}

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
  std::stringstream text;
  text << in.rdbuf();
  const std::string default_seed = field(text.str(), "seed");
  int cases = 0, failures = 0;
  for (const std::string &obj : case_objects(text.str())) {
    const std::string kind = field(obj, "kind");
    const size_t n = std::stoul(field(obj, "n"));
    const std::string seed_text = field(obj, "seed").empty() ? default_seed : field(obj, "seed");
    const uint64_t seed = std::stoull(seed_text);
    const uint32_t want = static_cast<uint32_t>(std::stoul(field(obj, "checksum")));
    const bool has_hex = obj.find("\"items_hex\"") != std::string::npos;
    const auto [got, hex] = generated(kind, n, seed);
    ++cases;
    if (got != want || (has_hex && hex != field(obj, "items_hex"))) {
      ++failures;
      std::cerr << "FAIL " << kind << " n=" << n << " seed=" << seed << ": checksum " << got
                << " want " << want << ", hex " << hex << "\n";
    }
  }
  std::cout << cases << " vectors, " << failures << " failures\n";
  return cases > 0 && failures == 0 ? 0 : 1;
}
