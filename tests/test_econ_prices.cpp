// Revenue is tokens × prices by token type; the ledger keeps totals by model and contract.
#include <doctest/doctest.h>

#include "sim/econ/gpu_market.h"
#include "sim/econ/ledger.h"
#include "sim/econ/prices.h"

using namespace tycoon;

namespace {
constexpr double kCentTol = 1e-9;  // exact arithmetic on small sums
}

TEST_CASE("revenue bills uncached input, cached input and output at their own prices") {
  // GPT-OSS-120B's card price: 0.15 in / 0.015 cached / 0.60 out per million tokens.
  econ::TokenPrices p{0.15, 0.015, 0.60};
  // 10M prompt tokens of which 8M cached, 2M output:
  // 2M × 0.15 + 8M × 0.015 + 2M × 0.60 = 0.30 + 0.12 + 1.20 = 1.62 USD.
  econ::TokenCounts t{10e6, 8e6, 2e6};
  CHECK(econ::revenue_usd(t, p) == doctest::Approx(1.62).epsilon(kCentTol));

  SUBCASE("nothing cached bills all input at the input price") {
    CHECK(econ::revenue_usd({10e6, 0, 0}, p) == doctest::Approx(1.50).epsilon(kCentTol));
  }
  SUBCASE("price per request blends the cached share") {
    // 1000 input tokens, 60% cached, 500 output: (400 × 0.15 + 600 × 0.015 + 500 × 0.60) / 1e6.
    CHECK(econ::price_per_request_usd(p, 1000, 0.6, 500) == doctest::Approx(369e-6).epsilon(kCentTol));
  }
}

TEST_CASE("gross margin is (revenue - GPU cost) / revenue; fixed costs count only toward profit") {
  econ::Ledger l;
  l.add_revenue("gpt-oss-120b", {10e6, 0, 2e6}, {0.15, 0.015, 0.60});  // 1.50 + 1.20 = 2.70
  l.add_gpu_cost(Contract::kOnDemand, 2.0);
  l.add_gpu_cost(Contract::kSpot, 0.43);
  l.add_fixed_cost(1.0);
  // Gross profit 2.70 - 2.43 = 0.27: a 10% gross margin. Profit after fixed costs: -0.73.
  CHECK(l.totals().gross_margin().value() == doctest::Approx(0.10).epsilon(kCentTol));
  CHECK(l.totals().profit_usd() == doctest::Approx(-0.73).epsilon(kCentTol));
  CHECK(l.by_model().at("gpt-oss-120b").tokens.output_tokens == 2e6);
  CHECK(l.gpu_cost_by_contract()[static_cast<std::size_t>(Contract::kSpot)] == doctest::Approx(0.43));
  SUBCASE("no revenue, no margin") { CHECK_FALSE(econ::Ledger{}.totals().gross_margin().has_value()); }
}

TEST_CASE("at a 10% gross margin, 10% more tokens from the same GPUs nearly doubles gross profit") {
  // The seed's arithmetic: revenue R, GPU cost 0.9 R. Serving 10% more with the same GPUs gives
  // 1.1 R - 0.9 R = 0.2 R of gross profit, twice the 0.1 R before; serving the same demand with
  // 10% fewer GPU-hours gives R - 0.9 R / 1.1 = 0.18 R, 1.8 times as much.
  const double R = 1000, cost = 900;
  double before = R - cost;
  double more_tokens = 1.1 * R - cost;
  double fewer_gpus = R - cost / 1.1;
  CHECK(more_tokens / before == doctest::Approx(2.0));
  CHECK(fewer_gpus / before == doctest::Approx(1.818).epsilon(1e-3));
}

TEST_CASE("the market quotes the catalog price times its multiplier; early release pays the rest of a term") {
  econ::GpuMarket m;
  m.offers.push_back({"h200", Contract::kReserved, 1.60, 1.25, 8, 48, 30 * 24, 0});
  const auto* o = m.find("h200", Contract::kReserved);
  REQUIRE(o);
  CHECK(o->price_usd_per_gpu_hour() == doctest::Approx(2.0));  // 1.60 × 1.25 (a shortage)
  CHECK(m.find("h200", Contract::kSpot) == nullptr);
  // 4 GPUs at 1.60 with 100 committed hours left: 4 × 1.60 × 100 = 640 USD.
  CHECK(econ::early_release_fee_usd(4, 1.60, 100) == doctest::Approx(640.0));
  CHECK(econ::early_release_fee_usd(4, 1.60, -5) == 0.0);
}
