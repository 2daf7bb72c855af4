// The contract's seeded payload generator and checksum (services/contract/README.md),
// shared by the service and the client: SplitMix64 items and the 32-bit FNV-1a hash of the
// items' canonical (little-endian) bytes. Header-only; no gSOAP types.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace tb {

constexpr uint32_t kFnvOffset = 2166136261u;
constexpr uint32_t kFnvPrime = 16777619u;

// FNV-1a over raw bytes, continuing from h.
inline uint32_t fnv1a(const void *data, size_t len, uint32_t h = kFnvOffset) {
  const unsigned char *p = static_cast<const unsigned char *>(data);
  for (size_t i = 0; i < len; ++i) h = (h ^ p[i]) * kFnvPrime;
  return h;
}

// Canonical bytes of one item: its little-endian representation (bit pattern for floats).
template <typename T>
inline uint32_t fnv1a_item(T value, uint32_t h) {
  static_assert(sizeof(T) <= 8, "items are at most 8 bytes");
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  for (size_t i = 0; i < sizeof(T) / 2; ++i) std::swap(bytes[i], bytes[sizeof(T) - 1 - i]);
#endif
  return fnv1a(bytes, sizeof(T), h);
}

// Checksum of a sequence of items (int32, float, double or unsigned char).
template <typename T>
inline uint32_t checksum(const std::vector<T> &items) {
  uint32_t h = kFnvOffset;
  for (const T &v : items) h = fnv1a_item(v, h);
  return h;
}

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    state_ += 0x9E3779B97F4A7C15ull;
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

 private:
  uint64_t state_;
};

inline unsigned char item_byte(uint64_t r) { return static_cast<unsigned char>(r & 0xFF); }
inline int32_t item_int(uint64_t r) { return static_cast<int32_t>(static_cast<uint32_t>(r >> 32)); }
inline float item_float(uint64_t r) { return static_cast<float>(item_int(r)) / 1024.0f; }
inline double item_double(uint64_t r) {
  return static_cast<double>(static_cast<int64_t>(r)) / 1048576.0;
}

// The n items of one kind for this seed, e.g. generate<int32_t>(n, seed, item_int).
template <typename T, typename Make>
inline std::vector<T> generate(size_t n, uint64_t seed, Make make) {
  SplitMix64 rng(seed);
  std::vector<T> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.push_back(make(rng.next()));
  return out;
}

inline std::vector<unsigned char> bytes_items(size_t n, uint64_t seed) {
  return generate<unsigned char>(n, seed, item_byte);
}
inline std::vector<int32_t> int_items(size_t n, uint64_t seed) {
  return generate<int32_t>(n, seed, item_int);
}
inline std::vector<float> float_items(size_t n, uint64_t seed) {
  return generate<float>(n, seed, item_float);
}
inline std::vector<double> double_items(size_t n, uint64_t seed) {
  return generate<double>(n, seed, item_double);
}

// The int items packed as little-endian int32 (the sendIntBuffer payload).
inline std::vector<unsigned char> pack_ints(const std::vector<int32_t> &ints) {
  std::vector<unsigned char> out(ints.size() * 4);
  for (size_t i = 0; i < ints.size(); ++i) {
    uint32_t u = static_cast<uint32_t>(ints[i]);
    for (int b = 0; b < 4; ++b) out[4 * i + b] = static_cast<unsigned char>(u >> (8 * b));
  }
  return out;
}

}  // namespace tb
