#include "sim/metrics/sample_stats.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstring>

namespace tycoon::metrics {

namespace {
// std::bit_cast, which Emscripten 3.1.6's libc++ lacks.
std::uint64_t bits_of(double v) {
  std::uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}
double double_of(std::uint64_t b) {
  double v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}
}  // namespace

double percentile_of_sorted(std::span<const double> sorted, double q) {
  assert(!sorted.empty());
  const double rank = q / 100.0 * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(rank));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = rank - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

void sort_samples(std::vector<double>& values) {
  constexpr int kDigitBits = 11;
  constexpr int kPasses = 6;  // 66 bits >= 64
  constexpr std::size_t kBuckets = std::size_t{1} << kDigitBits;
  const std::size_t n = values.size();
  if (n < 2048) {
    std::sort(values.begin(), values.end());
    return;
  }
  std::vector<std::uint64_t> keys(n), tmp(n);
  std::vector<std::uint32_t> counts(kPasses * kBuckets, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const double v = values[i];
    const auto bits = bits_of(v);
    if (!(v >= 0) || (bits >> 63) != 0) {  // NaN, negative or -0.0: leave it to std::sort
      std::sort(values.begin(), values.end());
      return;
    }
    keys[i] = bits;
    for (int p = 0; p < kPasses; ++p) ++counts[p * kBuckets + ((bits >> (p * kDigitBits)) & (kBuckets - 1))];
  }
  for (int p = 0; p < kPasses; ++p) {
    std::uint32_t* c = &counts[p * kBuckets];
    const auto first = static_cast<std::size_t>((keys[0] >> (p * kDigitBits)) & (kBuckets - 1));
    if (c[first] == n) continue;  // every key has this digit: the pass would change nothing
    std::uint32_t sum = 0;
    for (std::size_t b = 0; b < kBuckets; ++b) {
      const std::uint32_t k = c[b];
      c[b] = sum;
      sum += k;
    }
    for (std::size_t i = 0; i < n; ++i) tmp[c[(keys[i] >> (p * kDigitBits)) & (kBuckets - 1)]++] = keys[i];
    keys.swap(tmp);
  }
  for (std::size_t i = 0; i < n; ++i) values[i] = double_of(keys[i]);
}

SampleSummary summarize(std::vector<double>& values) {
  SampleSummary s;
  if (values.empty()) return s;
  sort_samples(values);
  long double sum = 0;
  for (double v : values) sum += v;
  s.count = static_cast<std::int64_t>(values.size());
  s.mean = static_cast<double>(sum / static_cast<long double>(values.size()));
  s.p50 = percentile_of_sorted(values, 50);
  s.p90 = percentile_of_sorted(values, 90);
  s.p99 = percentile_of_sorted(values, 99);
  return s;
}

int LogHistogram::bucket_of(std::uint64_t v) {
  if (v < static_cast<std::uint64_t>(kSub)) return static_cast<int>(v);  // exact below 2^kSubBits
  const int msb = 63 - std::countl_zero(v);                              // >= kSubBits
  const int shift = msb - kSubBits;
  const int sub = static_cast<int>((v >> shift) & (kSub - 1));
  return (shift + 1) * kSub + sub;
}

double LogHistogram::bucket_low(int b) {
  if (b < kSub) return b;
  const int shift = b / kSub - 1;
  const int sub = b % kSub;
  return std::ldexp(static_cast<double>(kSub + sub), shift);
}

double LogHistogram::bucket_high(int b) {
  if (b < kSub) return b;
  const int shift = b / kSub - 1;
  return bucket_low(b) + std::ldexp(1.0, shift) - 1;
}

void LogHistogram::record(std::int64_t value, std::int64_t count) {
  if (value < 0) value = 0;
  counts_[static_cast<std::size_t>(bucket_of(static_cast<std::uint64_t>(value)))] += count;
  count_ += count;
  sum_ += value * count;
}

double LogHistogram::mean() const {
  return count_ == 0 ? 0.0 : static_cast<double>(sum_) / static_cast<double>(count_);
}

double LogHistogram::percentile(double q) const {
  if (count_ == 0) return 0;
  // The sample of 0-based rank floor(q/100 · (n-1)), as an order statistic.
  const auto rank = static_cast<std::int64_t>(std::floor(q / 100.0 * static_cast<double>(count_ - 1)));
  std::int64_t seen = 0;
  for (int b = 0; b < kNumBuckets; ++b) {
    seen += counts_[static_cast<std::size_t>(b)];
    if (seen > rank) return 0.5 * (bucket_low(b) + bucket_high(b));
  }
  return bucket_high(kNumBuckets - 1);
}

SampleSummary LogHistogram::summary() const {
  SampleSummary s;
  s.count = count_;
  s.mean = mean();
  s.p50 = percentile(50);
  s.p90 = percentile(90);
  s.p99 = percentile(99);
  return s;
}

}  // namespace tycoon::metrics
