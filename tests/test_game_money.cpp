// The money a front end shows, computed once in sim/: the price each GPU contract pays, the price
// a preview charges for a chip, SLO attainment, the last 24 hours' figures from the history, and a
// preview's revenue, rent and margin per hour. The UI only formats these numbers.
#include <optional>
#include <vector>

#include <doctest/doctest.h>

#include "sim/game/fleet.h"
#include "sim/game/hourly_economics.h"
#include "sim/game/last_hours.h"
#include "sim/game/slo.h"

using namespace tycoon;

namespace {

constexpr double kMoneyCentTol = 1e-12;  // a few sums and products of small numbers

// A market with H200 on-demand at 4.00 × 1.25 = $5.00 and spot at $2.00 per GPU-hour, reserved at
// $3.00; B200 on-demand at $6.00.
game::GameState market_state() {
  game::GameState s;
  s.world.market.offers = {{"h200", Contract::kOnDemand, 4.00, 1.25, 64, 0, 0, 0},
                           {"h200", Contract::kSpot, 2.00, 1.0, 64, 0, 0, 0.01},
                           {"h200", Contract::kReserved, 3.00, 1.0, 64, 0, 720, 0},
                           {"b200", Contract::kOnDemand, 6.00, 1.0, 64, 0, 0, 0}};
  return s;
}

game::GpuContract contract(std::int64_t id, const char* chip, Contract kind, int gpus, double signed_price) {
  game::GpuContract c;
  c.id = id;
  c.chip = chip;
  c.contract = kind;
  c.num_gpus = gpus;
  c.signed_price_usd_per_gpu_hour = signed_price;
  return c;
}

// One history row: revenue, GPU cost, fixed cost, output tokens, requests offered, failed, and
// the hour's SLO attainment; the other series zero.
std::array<double, game::kNumSeries> hour_row(double revenue, double gpu, double fixed, double output, double offered,
                                              double failed, double slo) {
  std::array<double, game::kNumSeries> row{};
  auto set = [&](game::Series k, double v) { row[static_cast<std::size_t>(k)] = v; };
  set(game::Series::kRevenueUsd, revenue);
  set(game::Series::kGpuCostUsd, gpu);
  set(game::Series::kFixedCostUsd, fixed);
  set(game::Series::kProfitUsd, revenue - gpu - fixed);
  set(game::Series::kOutputTokens, output);
  set(game::Series::kRequestsOffered, offered);
  set(game::Series::kRequestsFailed, failed);
  set(game::Series::kSloAttainment, slo);
  return row;
}

}  // namespace

TEST_CASE("a contract pays its signed price when reserved, else today's market price for its type") {
  game::GameState s = market_state();
  // Reserved when the market was cheaper: it keeps paying the $2.50 it signed.
  CHECK(game::contract_price_usd_per_gpu_hour(contract(1, "h200", Contract::kReserved, 8, 2.50), s.world.market) ==
        2.50);
  // On-demand signed at $4.00 before a shortage: it pays today's $5.00.
  CHECK(game::contract_price_usd_per_gpu_hour(contract(2, "h200", Contract::kOnDemand, 8, 4.00), s.world.market) ==
        doctest::Approx(5.00).epsilon(kMoneyCentTol));
  // Spot pays the spot price, not the on-demand one.
  CHECK(game::contract_price_usd_per_gpu_hour(contract(3, "h200", Contract::kSpot, 8, 1.50), s.world.market) ==
        doctest::Approx(2.00).epsilon(kMoneyCentTol));
  // A contract type the market no longer offers keeps its signed price.
  CHECK(game::contract_price_usd_per_gpu_hour(contract(4, "b200", Contract::kSpot, 8, 3.25), s.world.market) == 3.25);
}

TEST_CASE("a preview prices a chip at its first contract's signed price when reserved, else on-demand") {
  game::GameState s = market_state();
  SUBCASE("no contract on the chip: today's on-demand price") {
    CHECK(game::chip_price_usd_per_gpu_hour(s, "h200") == doctest::Approx(5.00).epsilon(kMoneyCentTol));
  }
  SUBCASE("the first contract on the chip is reserved: its signed price") {
    s.company.contracts = {contract(1, "b200", Contract::kOnDemand, 8, 6.00),
                           contract(2, "h200", Contract::kReserved, 8, 2.50),
                           contract(3, "h200", Contract::kOnDemand, 8, 4.00)};
    CHECK(game::chip_price_usd_per_gpu_hour(s, "h200") == 2.50);
  }
  SUBCASE("the first contract on the chip is spot: the on-demand price, as for an on-demand one") {
    s.company.contracts = {contract(1, "h200", Contract::kSpot, 8, 2.00),
                           contract(2, "h200", Contract::kReserved, 8, 2.50)};
    CHECK(game::chip_price_usd_per_gpu_hour(s, "h200") == doctest::Approx(5.00).epsilon(kMoneyCentTol));
  }
  SUBCASE("a chip the market does not offer and no contract: free (nothing to quote)") {
    CHECK(game::chip_price_usd_per_gpu_hour(s, "mi300x") == 0.0);
  }
}

TEST_CASE("SLO attainment is requests within SLO over requests offered, 1 when none were offered") {
  // 72 of 90 offered requests within SLO (the failed ones count as missed): 0.8.
  CHECK(game::slo_attainment(72, 90) == doctest::Approx(0.8).epsilon(kMoneyCentTol));
  // A quiet hour lets no customer down.
  CHECK(game::slo_attainment(0, 0) == 1.0);
}

TEST_CASE("the last 24 hours: sums of the hourly series and the offered-weighted SLO") {
  game::History h;
  // 30 hours: the first 6 fall outside the window (a large revenue there must not count).
  for (int i = 0; i < 6; ++i) h.push(hour_row(1000, 0, 0, 1e6, 10, 0, 0.0));
  // 12 busy hours: $30 revenue, $20 rent, $1 fixed, 90 requests offered (9 failed), 80% in SLO;
  // 12 quiet hours: $3 revenue, $20 rent, $1 fixed, 10 requests offered, all in SLO.
  for (int i = 0; i < 12; ++i) h.push(hour_row(30, 20, 1, 5000, 90, 9, 0.8));
  for (int i = 0; i < 12; ++i) h.push(hour_row(3, 20, 1, 500, 10, 0, 1.0));
  const game::LastHours day = game::last_hours(h, 24);
  // Revenue 12 × 30 + 12 × 3 = $396; rent 24 × 20 = $480; fixed $24.
  CHECK(day.money.revenue_usd == doctest::Approx(396).epsilon(kMoneyCentTol));
  CHECK(day.money.gpu_cost_usd == doctest::Approx(480).epsilon(kMoneyCentTol));
  CHECK(day.money.fixed_cost_usd == doctest::Approx(24).epsilon(kMoneyCentTol));
  // Margin (396 − 480) / 396 = −21.2%; profit 396 − 480 − 24 = −$108.
  CHECK(day.money.gross_margin().value() == doctest::Approx((396.0 - 480.0) / 396.0).epsilon(kMoneyCentTol));
  CHECK(day.money.profit_usd() == doctest::Approx(-108).epsilon(kMoneyCentTol));
  CHECK(day.output_tokens == doctest::Approx(12 * 5500).epsilon(kMoneyCentTol));
  // Requests: 12 × 100 = 1200 offered, 108 failed (9%).
  CHECK(day.requests_offered == doctest::Approx(1200).epsilon(kMoneyCentTol));
  CHECK(day.failed_share() == doctest::Approx(108.0 / 1200.0).epsilon(kMoneyCentTol));
  // SLO weighted by requests: (1080 × 0.8 + 120 × 1.0) / 1200 = 0.82, not the hours' mean 0.9.
  CHECK(day.slo_attainment == doctest::Approx(0.82).epsilon(kMoneyCentTol));
  CHECK(game::sum_last(h, game::Series::kRevenueUsd, 24) == day.money.revenue_usd);

  SUBCASE("younger than the window: every hour counts") {
    game::History young;
    young.push(hour_row(30, 20, 1, 5000, 90, 9, 0.8));
    young.push(hour_row(3, 20, 1, 500, 10, 0, 1.0));
    const game::LastHours d = game::last_hours(young, 24);
    CHECK(d.money.revenue_usd == doctest::Approx(33).epsilon(kMoneyCentTol));
    CHECK(d.slo_attainment == doctest::Approx((72.0 + 10.0) / 100.0).epsilon(kMoneyCentTol));
  }
  SUBCASE("no requests and no revenue: SLO met by default, no margin, no failures") {
    game::History idle;
    idle.push(hour_row(0, 20, 1, 0, 0, 0, 1.0));
    const game::LastHours d = game::last_hours(idle, 24);
    CHECK(d.slo_attainment == 1.0);
    CHECK(d.failed_share() == 0.0);
    CHECK_FALSE(d.money.gross_margin().has_value());
  }
}

TEST_CASE("a preview's hour: the window's per-GPU rate on every GPU, at the company's prices and rents") {
  game::GameState s = market_state();
  s.company.prices["m"] = {0.50, 0.05, 2.00};
  // A window of 1000 output tok/s per GPU; it counted 4000 prompt tokens (1000 cached) per 1000
  // output tokens.
  serving::ServingSummary window;
  window.output_tok_per_s_per_gpu = 1000;
  window.input_tokens = 4000;
  window.cached_input_tokens = 1000;
  window.output_tokens = 1000;
  SUBCASE("one pool of 2 H200 at the on-demand $5.00") {
    const std::vector<game::PoolGpus> pools = {{"h200", 2}};
    const game::HourlyEconomics e = game::hourly_economics(s, "m", window, pools);
    // Output 2 × 1000 × 3600 = 7.2M tok/h; input 28.8M (7.2M cached):
    // 21.6 × 0.50 + 7.2 × 0.05 + 7.2 × 2.00 = 10.80 + 0.36 + 14.40 = $25.56 per hour.
    CHECK(e.revenue_usd == doctest::Approx(25.56).epsilon(kMoneyCentTol));
    CHECK(e.gpu_cost_usd == doctest::Approx(10.00).epsilon(kMoneyCentTol));
    CHECK(e.gross_margin().value() == doctest::Approx((25.56 - 10.00) / 25.56).epsilon(kMoneyCentTol));
  }
  SUBCASE("disaggregated: 2 H200 prefill on a reserved $2.50 and 2 B200 decode at $6.00") {
    s.company.contracts = {contract(1, "h200", Contract::kReserved, 8, 2.50)};
    const std::vector<game::PoolGpus> pools = {{"h200", 2}, {"b200", 2}};
    const game::HourlyEconomics e = game::hourly_economics(s, "m", window, pools);
    // Four GPUs at 1000 tok/s: twice the revenue above; rent 2 × 2.50 + 2 × 6.00 = $17.
    CHECK(e.revenue_usd == doctest::Approx(2 * 25.56).epsilon(kMoneyCentTol));
    CHECK(e.gpu_cost_usd == doctest::Approx(17.00).epsilon(kMoneyCentTol));
  }
  SUBCASE("a model the company does not price earns nothing, and still pays rent") {
    const std::vector<game::PoolGpus> pools = {{"h200", 2}};
    const game::HourlyEconomics e = game::hourly_economics(s, "other", window, pools);
    CHECK(e.revenue_usd == 0.0);
    CHECK(e.gpu_cost_usd == doctest::Approx(10.00).epsilon(kMoneyCentTol));
    CHECK_FALSE(e.gross_margin().has_value());
  }
}
