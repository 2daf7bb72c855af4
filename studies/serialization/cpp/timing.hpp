// Repeated timing of one action, the same way in every command: one warm-up run (not
// kept: caches, page faults of fresh buffers, the allocator), then runs until at least
// `min_runs` were made and `min_seconds` passed, at most `max_runs`. Each run's time is
// kept; the JSON gives their median and quartiles in nanoseconds.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tb {

using Json = nlohmann::ordered_json;  // keys in the order they are set

struct TimingPolicy {
  int warmup = 1;
  int min_runs = 3;
  double min_seconds = 0.2;
  int max_runs = 100000;
};

class Samples {
 public:
  void add(int64_t ns) { ns_.push_back(ns); }
  bool empty() const { return ns_.empty(); }
  size_t size() const { return ns_.size(); }
  double quantile(double q) const {  // linear interpolation between closest ranks
    if (ns_.empty()) return 0;
    std::vector<int64_t> v(ns_);
    std::sort(v.begin(), v.end());
    const double pos = q * static_cast<double>(v.size() - 1);
    const size_t lo = static_cast<size_t>(pos);
    const size_t hi = std::min(lo + 1, v.size() - 1);
    return static_cast<double>(v[lo]) + (pos - static_cast<double>(lo)) * static_cast<double>(v[hi] - v[lo]);
  }
  double median() const { return quantile(0.5); }
  Json json() const {  // whole nanoseconds per run
    Json o;
    o["runs"] = static_cast<int64_t>(ns_.size());
    o["median"] = whole(median());
    o["min"] = whole(quantile(0.0));
    o["p25"] = whole(quantile(0.25));
    o["p75"] = whole(quantile(0.75));
    o["max"] = whole(quantile(1.0));
    return o;
  }

 private:
  static int64_t whole(double ns) { return static_cast<int64_t>(std::nearbyint(ns)); }
  std::vector<int64_t> ns_;
};

using Clock = std::chrono::steady_clock;
inline int64_t ns_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count();
}

// Runs fn() under the policy; fn returns the nanoseconds of the part it measures (its
// own set-up left out), or a negative number when the action failed (then throws).
template <typename Fn>
Samples time_runs(const TimingPolicy &p, Fn fn, const char *what) {
  for (int i = 0; i < p.warmup; ++i)
    if (fn() < 0) throw std::runtime_error(std::string(what) + " failed");
  Samples s;
  const auto start = Clock::now();
  while (static_cast<int>(s.size()) < p.max_runs) {
    const int64_t ns = fn();
    if (ns < 0) throw std::runtime_error(std::string(what) + " failed");
    s.add(ns);
    if (static_cast<int>(s.size()) >= p.min_runs &&
        std::chrono::duration<double>(Clock::now() - start).count() >= p.min_seconds)
      break;
  }
  return s;
}

// The same for several actions, interleaved: every round runs each once, in order, so a
// noisy neighbour slows them alike. The policy counts rounds.
inline std::vector<Samples> time_rounds(const TimingPolicy &p,
                                        const std::vector<std::function<int64_t()>> &fns,
                                        const std::vector<std::string> &what) {
  for (int i = 0; i < p.warmup; ++i)
    for (size_t k = 0; k < fns.size(); ++k)
      if (fns[k]() < 0) throw std::runtime_error(what[k] + " failed");
  std::vector<Samples> s(fns.size());
  const auto start = Clock::now();
  for (int round = 0; round < p.max_runs; ++round) {
    for (size_t k = 0; k < fns.size(); ++k) {
      const int64_t ns = fns[k]();
      if (ns < 0) throw std::runtime_error(what[k] + " failed");
      s[k].add(ns);
    }
    if (round + 1 >= p.min_runs && std::chrono::duration<double>(Clock::now() - start).count() >= p.min_seconds)
      break;
  }
  return s;
}

}  // namespace tb
