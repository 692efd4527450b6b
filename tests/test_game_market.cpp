// The market from the company's side (sim/game/market.h): GPUs an offer has left, why a rent is
// refused, the fleet's rent per hour and the early-release fee. The RentGpus and ReleaseGpus
// commands and the market panel share these rules, so each case also checks the command.
#include <doctest/doctest.h>

#include "sim/game/game.h"
#include "sim/game/market.h"
#include "tests/game_test_util.h"

using namespace tycoon;

namespace {

constexpr double kMarketCentTol = 1e-12;  // sums and products of a few prices

using test::contains;

// The flat scenario with `starting_cash_usd` and a credit line of `credit_usd`, nothing rented.
game::Game game_with_cash(double starting_cash_usd, double credit_usd) {
  auto j = test::flat_scenario_json();
  j["company"]["starting_cash_usd"] = starting_cash_usd;
  j["company"]["credit_line_usd"] = credit_usd;
  game::GameOptions o;
  o.windows = test::fixed_capacity_windows();
  return game::Game(test::scenario_from(j), test::catalog(), o);
}

double on_demand_price(const game::Game& g) {
  return g.state().world.market.find("h200", Contract::kOnDemand)->price_usd_per_gpu_hour();
}

}  // namespace

TEST_CASE("an offer has its available GPUs left less those the company rents of that chip and contract") {
  auto g = game_with_cash(1e6, 0);
  const auto& offer = *g.state().world.market.find("h200", Contract::kOnDemand);
  // The flat market offers 16 on-demand H200.
  CHECK(game::gpus_left(g.state().company, offer) == 16);
  REQUIRE(g.apply(game::RentGpus{"h200", Contract::kOnDemand, 5}).ok);
  REQUIRE(g.apply(game::RentGpus{"h200", Contract::kSpot, 4}).ok);  // another offer: not counted
  CHECK(game::gpus_left(g.state().company, offer) == 11);

  SUBCASE("asking for more than is left is refused, by the command with the same words") {
    const game::RentGpus rent{"h200", Contract::kOnDemand, 12};
    const auto why = game::rent_refusal(g.scenario(), g.state(), rent);
    REQUIRE(why.has_value());
    CHECK(contains(*why, "only 11 more"));
    const auto r = g.apply(rent);
    CHECK_FALSE(r.ok);
    CHECK(r.message == *why);
  }
  SUBCASE("exactly what is left rents") {
    CHECK_FALSE(game::rent_refusal(g.scenario(), g.state(), {"h200", Contract::kOnDemand, 11}).has_value());
    CHECK(g.apply(game::RentGpus{"h200", Contract::kOnDemand, 11}).ok);
  }
}

TEST_CASE("a rent is refused when cash plus the credit line does not cover its first day") {
  SUBCASE("$50 of cash, no credit: 1 H200 for a day costs 24 x its hourly price, more than $50") {
    auto g = game_with_cash(50, 0);
    REQUIRE(24 * on_demand_price(g) > 50);
    const game::RentGpus rent{"h200", Contract::kOnDemand, 1};
    const auto why = game::rent_refusal(g.scenario(), g.state(), rent);
    REQUIRE(why.has_value());
    CHECK(contains(*why, "Not enough cash to rent 1 x on_demand h200"));
    const auto r = g.apply(rent);
    CHECK_FALSE(r.ok);
    CHECK(r.message == *why);
    CHECK(g.state().company.contracts.empty());
  }
  SUBCASE("the same cash with a credit line that covers the rest: it rents") {
    auto g = game_with_cash(50, 24 * on_demand_price(game_with_cash(50, 0)));
    CHECK_FALSE(game::rent_refusal(g.scenario(), g.state(), {"h200", Contract::kOnDemand, 1}).has_value());
    CHECK(g.apply(game::RentGpus{"h200", Contract::kOnDemand, 1}).ok);
  }
  SUBCASE("the scenario's own starting fleet is not held to it") {
    auto g = game_with_cash(50, 0);
    CHECK_FALSE(game::rent_refusal(g.scenario(), g.state(), {"h200", Contract::kOnDemand, 1}, false).has_value());
  }
}

TEST_CASE("the fleet's rent per hour is what the next hour charges: ready contracts at today's prices") {
  auto g = test::flat_game(2.0, 2);  // 2 on-demand H200 ready at hour 0, one replica each
  const double price = on_demand_price(g);
  // Reserved GPUs in their 24-hour lead time are not paid yet.
  REQUIRE(g.apply(game::RentGpus{"h200", Contract::kReserved, 4}).ok);
  const double rent = game::fleet_rent_usd_per_hour(g.state());
  // 2 GPUs x the on-demand price.
  CHECK(rent == doctest::Approx(2 * price).epsilon(kMarketCentTol));
  const double gpu_cost_before = g.state().ledger.totals().gpu_cost_usd;
  g.step();
  CHECK(g.state().ledger.totals().gpu_cost_usd - gpu_cost_before == doctest::Approx(rent).epsilon(kMarketCentTol));
}

TEST_CASE("releasing reserved GPUs early pays the rest of the commitment from now, or from the ready hour") {
  game::GpuContract c;
  c.chip = "h200";
  c.contract = Contract::kReserved;
  c.num_gpus = 4;
  c.signed_price_usd_per_gpu_hour = 3.00;
  c.ready_at_hour = 24;
  c.term_ends_at_hour = 24 + 720;
  SUBCASE("before the GPUs arrive: all 720 committed hours; 2 GPUs x $3 x 720 h = $4,320") {
    CHECK(game::release_hours_left(c, 10) == 720);
    CHECK(game::release_fee_usd(c, 2, 10) == doctest::Approx(4320).epsilon(kMarketCentTol));
  }
  SUBCASE("at hour 100: 644 hours left; 2 x $3 x 644 = $3,864") {
    CHECK(game::release_hours_left(c, 100) == 644);
    CHECK(game::release_fee_usd(c, 2, 100) == doctest::Approx(3864).epsilon(kMarketCentTol));
  }
  SUBCASE("at the end of the term, or on-demand: nothing") {
    CHECK(game::release_fee_usd(c, 4, 744) == 0.0);
    c.contract = Contract::kOnDemand;
    CHECK(game::release_fee_usd(c, 4, 100) == 0.0);
  }
  SUBCASE("the release command charges the same fee") {
    auto g = game_with_cash(1e6, 0);
    REQUIRE(g.apply(game::RentGpus{"h200", Contract::kReserved, 4}).ok);
    const auto& k = g.state().company.contracts.front();
    const double fee = game::release_fee_usd(k, 2, g.state().hour);
    // Signed at the reserved price, 24 h lead time, 30-day term: 2 x price x 720 h.
    CHECK(fee == doctest::Approx(2 * k.signed_price_usd_per_gpu_hour * 720).epsilon(kMarketCentTol));
    const double cash = g.state().company.cash_usd;
    REQUIRE(g.apply(game::ReleaseGpus{k.id, 2}).ok);
    CHECK(cash - g.state().company.cash_usd == doctest::Approx(fee).epsilon(kMarketCentTol));
  }
}
