// Summaries of latency samples: mean and percentiles (linear interpolation between order
// statistics, numpy's default — what vLLM's `bench serve` reports), plus a bounded log-bucket
// histogram for per-token samples too numerous to keep.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace tycoon::metrics {

struct SampleSummary {
  double mean = 0, p50 = 0, p90 = 0, p99 = 0;
  std::int64_t count = 0;
};

// q in [0, 100]; `sorted` ascending and non-empty.
double percentile_of_sorted(std::span<const double> sorted, double q);

// Sorts `values` ascending: the same result as std::sort (a radix sort on the bit patterns when
// every value is a non-negative number with a clear sign bit, where that order is the numeric
// one and equal values have equal bits; std::sort otherwise).
void sort_samples(std::vector<double>& values);

// Sorts `values` in place and summarises them; all zeros when empty (never NaN).
SampleSummary summarize(std::vector<double>& values);

// Non-negative integer samples (nanoseconds) in log-spaced buckets: 2^kSubBits buckets per
// power of two, so a reported percentile is within 2^-kSubBits (0.8%) of an exact one, relative,
// and the mean is exact. Fixed size: recording never allocates.
class LogHistogram {
 public:
  static constexpr int kSubBits = 7;
  static constexpr int kSub = 1 << kSubBits;
  static constexpr int kNumBuckets = (64 - kSubBits) * kSub + kSub;

  void record(std::int64_t value, std::int64_t count = 1);
  std::int64_t count() const { return count_; }
  // Mean of the recorded values (exact); 0 when empty.
  double mean() const;
  // The q-th percentile, q in [0, 100]: the midpoint of the bucket holding that rank; 0 when empty.
  double percentile(double q) const;
  SampleSummary summary() const;

  static int bucket_of(std::uint64_t v);
  static double bucket_low(int b);
  static double bucket_high(int b);

 private:
  std::vector<std::int64_t> counts_ = std::vector<std::int64_t>(kNumBuckets, 0);
  std::int64_t count_ = 0;
  std::int64_t sum_ = 0;  // exact: 2^63 ns is 292 years of summed gaps
};

}  // namespace tycoon::metrics
