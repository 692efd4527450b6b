// Open-loop arrival processes: long-run counts match the configured mean rate.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "sim/traffic/arrivals.h"

using namespace tycoon;
using traffic::ArrivalKind;
using traffic::ArrivalParams;
using traffic::ArrivalProcess;

namespace {

// Arrivals in [0, horizon_s).
std::int64_t count_until(ArrivalProcess& p, double horizon_s) {
  std::int64_t n = 0;
  while (core::to_seconds(p.next()) < horizon_s) ++n;
  return n;
}

}  // namespace

TEST_CASE("Poisson arrivals: the count over a window has mean and variance rate x window") {
  // 2 requests/s for 1000 s: mean 2000, variance 2000. Over 200 seeds the sample mean has
  // standard error sqrt(2000 / 200) = 3.2; we allow 5 of them.
  constexpr double kRate = 2.0, kWindowS = 1000.0, kExpected = kRate * kWindowS;
  constexpr int kSeeds = 200;
  constexpr double kMeanTol = 5 * 3.2;
  std::vector<double> counts;
  for (int seed = 1; seed <= kSeeds; ++seed) {
    ArrivalProcess p(ArrivalParams{ArrivalKind::kPoisson, kRate}, static_cast<std::uint64_t>(seed));
    counts.push_back(static_cast<double>(count_until(p, kWindowS)));
  }
  double mean = 0, var = 0;
  for (double c : counts) mean += c / kSeeds;
  for (double c : counts) var += (c - mean) * (c - mean) / (kSeeds - 1);
  CHECK(std::abs(mean - kExpected) < kMeanTol);
  // Dispersion index var/mean = 1 for Poisson; its sampling error over 200 seeds is ~0.1.
  CHECK(var / mean == doctest::Approx(1.0).epsilon(0.35));
}

TEST_CASE("bursty arrivals keep the mean rate but are over-dispersed") {
  // Bursts at 4x the mean for 1/8 of the time. Over 400,000 s (~5,000 burst cycles of 80 s)
  // the long-run rate is within a few percent of the mean.
  ArrivalParams a{ArrivalKind::kBursty, 1.0, 4.0};
  ArrivalProcess p(a, 11);
  constexpr double kWindowS = 400000;
  double n = static_cast<double>(count_until(p, kWindowS));
  CHECK(n / kWindowS == doctest::Approx(1.0).epsilon(0.05));

  // Counts per 10 s window vary far more than Poisson's (variance = mean = 10).
  ArrivalProcess q(a, 12);
  std::vector<int> per_window(20000, 0);
  for (;;) {
    double t = core::to_seconds(q.next());
    if (t >= 200000) break;
    ++per_window[static_cast<std::size_t>(t / 10)];
  }
  double mean = 0, var = 0;
  for (int c : per_window) mean += c / 20000.0;
  for (int c : per_window) var += (c - mean) * (c - mean) / 19999.0;
  CHECK(var / mean > 2.0);
}

TEST_CASE("diurnal arrivals average the mean rate over a day and peak at a quarter day") {
  // rate(t) = m (1 + A sin(2 pi t / 86400)): the sine integrates to zero over a day.
  constexpr double kRate = 0.5, kDay = 86400;
  ArrivalParams a{ArrivalKind::kDiurnal, kRate, 4.0, 0.8};
  double total = 0;
  constexpr int kSeeds = 10;
  for (int seed = 1; seed <= kSeeds; ++seed) {
    ArrivalProcess p(a, static_cast<std::uint64_t>(seed));
    total += static_cast<double>(count_until(p, kDay));
  }
  // 10 days' worth: expected 432,000 with standard deviation ~660 (0.15%).
  CHECK(total / kSeeds == doctest::Approx(kRate * kDay).epsilon(0.01));
  ArrivalProcess p(a, 1);
  CHECK(p.rate_at(core::Time{core::from_seconds(kDay / 4)}) == doctest::Approx(kRate * 1.8));
}

TEST_CASE("arrival parameters are validated") {
  CHECK_THROWS_AS(ArrivalProcess(ArrivalParams{ArrivalKind::kPoisson, 0.0}, 1), std::invalid_argument);
  CHECK_THROWS_AS(ArrivalProcess(ArrivalParams{ArrivalKind::kBursty, 1.0, 0.5}, 1), std::invalid_argument);
  CHECK_THROWS_AS(ArrivalProcess(ArrivalParams{ArrivalKind::kDiurnal, 1.0, 4.0, 1.5}, 1), std::invalid_argument);
}
