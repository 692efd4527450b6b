// Demand responds to the hour of day, growth, price against the market and reputation.
#include <doctest/doctest.h>

#include <cmath>

#include "sim/econ/demand.h"

using namespace tycoon;

namespace {
constexpr double kTol = 1e-12;  // closed-form expressions
}

TEST_CASE("the diurnal curve peaks at the peak hour and bottoms out 12 hours later") {
  CHECK(econ::diurnal_factor(0.4, 15, 15) == doctest::Approx(1.4).epsilon(kTol));
  CHECK(econ::diurnal_factor(0.4, 15, 3) == doctest::Approx(0.6).epsilon(kTol));
  // Six hours from the peak the cosine is zero: the daily mean.
  CHECK(econ::diurnal_factor(0.4, 15, 21) == doctest::Approx(1.0).epsilon(kTol));
}

TEST_CASE("growth compounds daily") {
  // 5% a day for 10 days: 1.05^10 = 1.62889.
  CHECK(econ::growth_factor(0.05, 10) == doctest::Approx(1.628894627).epsilon(1e-9));
}

TEST_CASE("price elasticity: demand ∝ (price / market)^-elasticity, capped") {
  SUBCASE("at the market price demand is unchanged") { CHECK(econ::price_factor(2.0, 2.0, 3.0) == 1.0); }
  SUBCASE("10% above the market with elasticity 3 loses 1 - 1.1^-3 = 24.9% of demand") {
    CHECK(econ::price_factor(1.1, 1.0, 3.0) == doctest::Approx(0.7513148).epsilon(1e-6));
  }
  SUBCASE("a deep discount cannot multiply demand beyond the cap") {
    CHECK(econ::price_factor(0.01, 1.0, 3.0) == econ::kMaxPriceBoost);
    CHECK(econ::price_factor(0.0, 1.0, 3.0) == econ::kMaxPriceBoost);
  }
  SUBCASE("inelastic customers do not care") { CHECK(econ::price_factor(5.0, 1.0, 0.0) == 1.0); }
}

TEST_CASE("reputation scales demand by its sensitivity and moves toward SLO attainment") {
  CHECK(econ::reputation_factor(0.5, 1.0) == doctest::Approx(0.5));
  CHECK(econ::reputation_factor(0.5, 0.3) == doctest::Approx(0.85));
  CHECK(econ::reputation_factor(0.0, 0.0) == 1.0);
  SUBCASE("after one half-life it is halfway to the attainment") {
    double r = 1.0;
    for (int h = 0; h < 24; ++h) r = econ::next_reputation(r, 0.5, 24);
    CHECK(r == doctest::Approx(0.75).epsilon(1e-12));
  }
}

TEST_CASE("offered load multiplies the factors, using the hour's midpoint") {
  econ::DemandCurve c{10.0, 0.5, 12.5, 0.0, 2.0, 1.0};
  // Hour 12 has its midpoint at 12:30, the peak: 10 × 1.5; price 20% below market with elasticity
  // 2: × 0.8^-2 = 1.5625; reputation 0.9 with sensitivity 1: × 0.9.
  CHECK(econ::offered_requests_per_s(c, 12, 0.8, 1.0, 0.9) == doctest::Approx(10 * 1.5 * 1.5625 * 0.9).epsilon(kTol));
  // The same hour on day 2 (hour 36).
  CHECK(econ::offered_requests_per_s(c, 36, 1.0, 1.0, 1.0) == doctest::Approx(15.0).epsilon(kTol));
}
