// Revenue is tokens × prices by token type; the ledger keeps totals by model and contract.
#include <doctest/doctest.h>

#include "sim/econ/gpu_market.h"
#include "sim/econ/ledger.h"
#include "sim/econ/prices.h"

using namespace tycoon;

namespace {
constexpr double kPriceTol = 1e-9;  // exact arithmetic on small sums
}

TEST_CASE("revenue bills uncached input, cached input and output at their own prices") {
  // GPT-OSS-120B's card price: 0.15 in / 0.015 cached / 0.60 out per million tokens.
  econ::TokenPrices p{0.15, 0.015, 0.60};
  // 10M prompt tokens of which 8M cached, 2M output:
  // 2M × 0.15 + 8M × 0.015 + 2M × 0.60 = 0.30 + 0.12 + 1.20 = 1.62 USD.
  econ::TokenCounts t{10e6, 8e6, 2e6};
  CHECK(econ::revenue_usd(t, p) == doctest::Approx(1.62).epsilon(kPriceTol));

  SUBCASE("nothing cached bills all input at the input price") {
    CHECK(econ::revenue_usd({10e6, 0, 0}, p) == doctest::Approx(1.50).epsilon(kPriceTol));
  }
  SUBCASE("price per request blends the cached share") {
    // 1000 input tokens, 60% cached, 500 output: (400 × 0.15 + 600 × 0.015 + 500 × 0.60) / 1e6.
    CHECK(econ::price_per_request_usd(p, 1000, 0.6, 500) == doctest::Approx(369e-6).epsilon(kPriceTol));
  }
}

TEST_CASE("gross margin is (revenue - GPU cost) / revenue; fixed costs count only toward profit") {
  econ::Ledger l;
  l.add_revenue("gpt-oss-120b", {10e6, 0, 2e6}, {0.15, 0.015, 0.60});  // 1.50 + 1.20 = 2.70
  l.add_gpu_cost(Contract::kOnDemand, 2.0);
  l.add_gpu_cost(Contract::kSpot, 0.43);
  l.add_fixed_cost(1.0);
  // Gross profit 2.70 - 2.43 = 0.27: a 10% gross margin. Profit after fixed costs: -0.73.
  CHECK(l.totals().gross_margin().value() == doctest::Approx(0.10).epsilon(kPriceTol));
  CHECK(l.totals().profit_usd() == doctest::Approx(-0.73).epsilon(kPriceTol));
  CHECK(l.by_model().at("gpt-oss-120b").tokens.output_tokens == 2e6);
  CHECK(l.gpu_cost_by_contract()[static_cast<std::size_t>(Contract::kSpot)] == doctest::Approx(0.43));
  SUBCASE("no revenue, no margin") { CHECK_FALSE(econ::Ledger{}.totals().gross_margin().has_value()); }
}

TEST_CASE("gross margin of any period or rate: (revenue - GPU cost) / revenue, none without revenue") {
  // $12.78 earned on $3.60 of rent: (12.78 - 3.60) / 12.78 = 0.71831.
  CHECK(econ::gross_margin(12.78, 3.60).value() == doctest::Approx((12.78 - 3.60) / 12.78).epsilon(kPriceTol));
  // Rent above revenue: $1 earned on $3 of rent is a -200% margin.
  CHECK(econ::gross_margin(1.0, 3.0).value() == doctest::Approx(-2.0).epsilon(kPriceTol));
  // Nothing earned: no margin to show, whatever the rent.
  CHECK_FALSE(econ::gross_margin(0.0, 3.0).has_value());
  CHECK_FALSE(econ::gross_margin(0.0, 0.0).has_value());
  // The ledger's margin is the same function of its totals.
  const econ::LedgerTotals t{12.78, 3.60, 1.0};
  CHECK(t.gross_margin().value() == econ::gross_margin(12.78, 3.60).value());
}

TEST_CASE("at a 10% gross margin, 10% more tokens from the same GPUs nearly doubles gross profit") {
  // The seed's arithmetic on a ledger: 10M input and 2M output tokens of GPT-OSS-120B bill
  // 1.50 + 1.20 = $2.70; rent of $2.43 leaves $0.27, a 10% gross margin.
  const econ::TokenPrices p{0.15, 0.015, 0.60};
  const econ::TokenCounts tokens{10e6, 0, 2e6};
  econ::Ledger before;
  before.add_revenue("gpt-oss-120b", tokens, p);
  before.add_gpu_cost(Contract::kOnDemand, 2.43);
  REQUIRE(before.totals().gross_margin().value() == doctest::Approx(0.10).epsilon(kPriceTol));
  const double profit = before.totals().gross_profit_usd();

  SUBCASE("10% more tokens on the same GPUs: 2.97 - 2.43 = 0.54, twice the profit") {
    econ::Ledger more;
    more.add_revenue("gpt-oss-120b", tokens.scaled(1.1), p);
    more.add_gpu_cost(Contract::kOnDemand, 2.43);
    CHECK(more.totals().gross_profit_usd() / profit == doctest::Approx(2.0).epsilon(kPriceTol));
  }
  SUBCASE("the same tokens 10% faster: 2.70 - 2.43 / 1.1 = 0.4909, 1.818 times the profit") {
    const econ::LedgerTotals faster = before.totals().served_faster(1.1);
    CHECK(faster.revenue_usd == before.totals().revenue_usd);
    CHECK(faster.gpu_cost_usd == doctest::Approx(2.43 / 1.1).epsilon(kPriceTol));
    CHECK(faster.gross_profit_usd() / profit == doctest::Approx((2.70 - 2.43 / 1.1) / 0.27).epsilon(kPriceTol));
    CHECK(faster.gross_profit_usd() / profit == doctest::Approx(1.818).epsilon(1e-3));
    // The dashboard's sentence: profit (no fixed costs here) grows by 81.8%.
    CHECK(before.totals().profit_change_served_faster(econ::kLessonSpeedup).value() ==
          doctest::Approx(0.818).epsilon(1e-3));
  }
  SUBCASE("a loss shrinks: the change is a share of the loss's size, positive when it gets better") {
    econ::Ledger losing;
    losing.add_revenue("gpt-oss-120b", tokens, p);
    losing.add_gpu_cost(Contract::kOnDemand, 3.00);  // 2.70 - 3.00 = -0.30; faster: 2.70 - 2.7273 = -0.0273
    CHECK(losing.totals().profit_change_served_faster(1.1).value() ==
          doctest::Approx((-0.02727 + 0.30) / 0.30).epsilon(1e-3));
  }
  SUBCASE("no profit to compare with (an empty day): no share") {
    CHECK_FALSE(econ::LedgerTotals{}.profit_change_served_faster(1.1).has_value());
  }
}

TEST_CASE("tokens at an output rate keep the sample's input, cached and output proportions") {
  // A window counted 4000 prompt tokens (1000 from the prefix cache) for 1000 output tokens.
  // At 3.6M output tokens per hour that is 14.4M prompt tokens, 3.6M of them cached.
  const econ::TokenCounts sample{4000, 1000, 1000};
  const econ::TokenCounts hour = econ::at_output_rate(sample, 3.6e6);
  CHECK(hour.output_tokens == 3.6e6);
  CHECK(hour.input_tokens == doctest::Approx(14.4e6).epsilon(kPriceTol));
  CHECK(hour.cached_input_tokens == doctest::Approx(3.6e6).epsilon(kPriceTol));
  SUBCASE("a sample without output says nothing about input: output only") {
    const econ::TokenCounts none = econ::at_output_rate({4000, 1000, 0}, 3.6e6);
    CHECK(none.input_tokens == 0);
    CHECK(none.cached_input_tokens == 0);
    CHECK(none.output_tokens == 3.6e6);
  }
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
