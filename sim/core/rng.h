// Seeded random streams, one per purpose (STYLE.md point 5). Each wraps a
// boost::random::mt19937_64 whose raw 64-bit outputs are the same on every platform; the
// sampling below is our own (never <random> distributions, whose algorithms differ between
// standard libraries), so the same seed gives the same draws natively and in the browser.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <string_view>

#include <boost/random/mersenne_twister.hpp>

namespace tycoon::core {

// What a stream is used for. Streams of different purposes are independent, so adding draws for
// one purpose never shifts another's sequence.
enum class RngPurpose { kArrivals, kLengths, kSessions, kAcceptance, kFailures, kAdvisor };
inline constexpr std::array<std::string_view, 6> kRngPurposeNames = {"arrivals",   "lengths",  "sessions",
                                                                     "acceptance", "failures", "advisor"};

// SplitMix64 finaliser: a bijective 64-bit mix with good avalanche (Steele et al., 2014).
constexpr std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Combines two 64-bit values into one well-mixed value (order matters).
constexpr std::uint64_t hash_combine(std::uint64_t a, std::uint64_t b) {
  return mix64(a ^ mix64(b + 0x632BE59BD9B4E019ull));
}

class RngStream {
 public:
  RngStream(std::uint64_t seed, RngPurpose purpose)
      : engine_(hash_combine(seed, static_cast<std::uint64_t>(purpose) + 1)) {}
  // A sub-stream: e.g. one per replica for the same purpose.
  RngStream(std::uint64_t seed, RngPurpose purpose, std::uint64_t index)
      : engine_(hash_combine(hash_combine(seed, static_cast<std::uint64_t>(purpose) + 1), index)) {}

  std::uint64_t next_u64() { return engine_(); }

  // Uniform in [0, 1) with 53 random bits.
  double uniform01() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

  // Uniform integer in [lo, hi] (inclusive), unbiased (Lemire's multiply-and-reject).
  std::int64_t uniform_int(std::int64_t lo, std::int64_t hi) {
    const std::uint64_t range = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
    if (range == ~std::uint64_t{0}) return static_cast<std::int64_t>(engine_());
    const std::uint64_t n = range + 1;
    for (;;) {
      unsigned __int128 m = static_cast<unsigned __int128>(engine_()) * n;
      auto low = static_cast<std::uint64_t>(m);
      if (low >= (-n) % n) return lo + static_cast<std::int64_t>(m >> 64);
    }
  }

  bool bernoulli(double p) { return uniform01() < p; }

  // Exponential with the given mean (inverse CDF; log1p keeps u = 0 finite).
  double exponential(double mean) { return -mean * std::log1p(-uniform01()); }

  // Standard normal (Box–Muller, one value per two uniforms; no cached state).
  double normal() {
    double u1 = 1.0 - uniform01();  // (0, 1]
    double u2 = uniform01();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

  // Lognormal with the given arithmetic mean and log-space standard deviation sigma.
  double lognormal_with_mean(double mean, double sigma) {
    return mean * std::exp(sigma * normal() - 0.5 * sigma * sigma);
  }

  // Lognormal with the given median and log-space standard deviation sigma.
  double lognormal_with_median(double median, double sigma) { return median * std::exp(sigma * normal()); }

 private:
  boost::random::mt19937_64 engine_;
};

}  // namespace tycoon::core
