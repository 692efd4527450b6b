// The pricing panel's profit-versus-price curve is the game's: capped by what the
// fleet serves within the SLO, net of rent, from the same demand formula as Game::step.
#include <doctest/doctest.h>

#include "sim/econ/demand.h"
#include "sim/game/command.h"
#include "sim/game/price_response.h"
#include "tests/game_test_util.h"

using namespace tycoon;

TEST_CASE("campaign level 1 is saturated: the curve says raise the price, not cut it") {
  // Eight H200s serve about half of level 1's demand within the SLO at the starting prices, so
  // past the price where demand falls to capacity every extra dollar is margin: the most profit
  // lies above today's price. The old chart (revenue if all served) peaked below it.
  auto scenario =
      game::load_scenario(game::find_scenario("campaign-01-thin-margin", TYCOON_SOURCE_DIR), test::catalog());
  game::Game g(scenario, test::catalog());
  g.advance(12);
  const auto& s = g.state();
  const auto& prices = s.company.prices.at(scenario.segments[0].model);
  const auto curve = game::price_response(g.scenario(), s, 0, prices);
  REQUIRE(curve.capacity_per_s.has_value());
  REQUIRE(curve.best_ratio.has_value());
  CHECK(*curve.best_ratio > curve.now_ratio);
  for (const auto& p : curve.points) {
    CHECK(p.served_per_s <= *curve.capacity_per_s + 1e-12);
    CHECK(p.served_per_s <= p.offered_per_s + 1e-12);
    CHECK(p.profit_usd_per_hour ==
          doctest::Approx(p.revenue_usd_per_hour - curve.rent_usd_per_hour - curve.fixed_usd_per_hour));
  }
  // Demand at today's prices is the game's own: the formula of Game::step, without the hour's noise.
  const auto& seg = scenario.segments[0];
  const double isl = static_cast<double>(seg.workload.input_tokens),
               osl = static_cast<double>(seg.workload.output_tokens);
  const auto reference = scenario.reference_prices.at(seg.model);
  const double expected =
      econ::offered_requests_per_s(
          seg.demand, static_cast<double>(s.hour),
          econ::price_per_request_usd(prices, isl, s.world.segments[0].billed_cached_share, osl),
          econ::price_per_request_usd(reference, isl, seg.cached_input_share, osl), s.world.segments[0].reputation) *
      s.world.segments[0].demand_multiplier;
  CHECK(curve.now.offered_per_s == doctest::Approx(expected).epsilon(1e-12));
}

TEST_CASE("the capacity limit is the cheapest price on the curve whose demand the fleet can serve") {
  // Level 1 is saturated at today's price: demand falls with the price, and the chart's marker sits
  // where it first drops to what the fleet completes. Every cheaper point asks for more.
  auto scenario =
      game::load_scenario(game::find_scenario("campaign-01-thin-margin", TYCOON_SOURCE_DIR), test::catalog());
  game::Game g(scenario, test::catalog());
  g.advance(12);
  const auto curve =
      game::price_response(g.scenario(), g.state(), 0, g.state().company.prices.at(scenario.segments[0].model));
  REQUIRE(curve.capacity_per_s.has_value());
  REQUIRE(curve.capacity_limit.has_value());
  CHECK(curve.capacity_limit->offered_per_s <= *curve.capacity_per_s);
  for (const auto& p : curve.points) {
    if (p.price_ratio < curve.capacity_limit->price_ratio) CHECK(p.offered_per_s > *curve.capacity_per_s);
  }
  CHECK(curve.points.back().price_ratio == doctest::Approx(curve.x_max).epsilon(1e-9));
}

TEST_CASE("the pricing panel's demand at your price is Game::step's, with the cached share the game billed") {
  // The panel (price_response) and the game loop both price a request with game::request_prices,
  // so that they cannot disagree. Set the billed cached share far from the scenario's expected share
  // (0 billed as cached against campaign level 1's 0.6), switch the hour's noise off, and step the game once:
  // the requests per second it offered must equal the panel's "now" point. A panel that priced
  // with the scenario's share (the old UI rule) misses by the price difference of the cached
  // input: at elasticity > 0 that is far outside the tolerance.
  constexpr double kSameFormulaTol = 1e-12;  // the same doubles in the same order: only rounding
  auto scenario =
      game::load_scenario(game::find_scenario("campaign-01-thin-margin", TYCOON_SOURCE_DIR), test::catalog());
  for (auto& seg : scenario.segments) seg.demand_noise = 0;
  game::Game warm(scenario, test::catalog());
  warm.advance(6);
  game::GameState state = warm.state();
  const auto& seg = scenario.segments[0];
  REQUIRE(seg.cached_input_share > 0.3);  // the premise: 0 billed is far from what customers expect
  state.world.segments[0].billed_cached_share = 0.0;
  const auto& prices = state.company.prices.at(seg.model);
  REQUIRE(prices.cached_input_usd_per_mtok < prices.input_usd_per_mtok);  // so the share changes the bill
  const auto curve = game::price_response(scenario, state, 0, prices);

  game::Game g(scenario, state, test::catalog());
  g.step();
  const double game_offered = g.state().world.segments[0].last_offered_requests_per_s;
  CHECK(curve.now.offered_per_s == doctest::Approx(game_offered).epsilon(kSameFormulaTol));
  // And the panel's price ratio is the bill over the list price that request_prices gives.
  const auto bill = game::request_prices(scenario, state, 0, prices);
  CHECK(curve.now_ratio == doctest::Approx(bill.price_usd / bill.reference_usd).epsilon(kSameFormulaTol));
}

namespace {

// The reference strategy's commands up to `hour`, then the game to `hour`.
std::unique_ptr<game::Game> reference_to(const game::Scenario& scenario, std::int64_t hour) {
  auto g = std::make_unique<game::Game>(scenario, test::catalog());
  std::vector<game::LoggedCommand> before;
  if (scenario.reference_strategy) {
    for (const auto& c : scenario.reference_strategy->commands) {
      if (c.at_hour < hour) before.push_back(c);
    }
  }
  std::size_t next = 0;
  game::replay_until(*g, before, next, hour);
  return g;
}

}  // namespace

TEST_CASE("the pricing chart is the game's forecast: at the price played it books within 10% in steady state" *
          doctest::test_suite("whole-games")) {
  // Once the chart said -$0.40/h while the tutorial's hour booked +$7.5 (it priced the
  // nominal 1k-token request, not the history customers resend). On every campaign level, after
  // the reference strategy's first day, play six hours at each of three prices; the forecast at
  // the price played, averaged over those hours, must be within 10% of the profit they booked
  // (averaged: one hour's demand noise moves a thin margin more than that). Where the curve says it
  // cannot know (the price brings more customers than the fleet has been seen to serve), it is
  // not held to it, and says so.
  constexpr double kForecastTol = 0.10;
  constexpr double kNearBreakEvenShare = 0.06;
  constexpr int kSettleHours = 2, kHours = 6;
  int compared = 0;
  for (const char* id : {"campaign-01-thin-margin", "campaign-02-mi300x-vs-h200", "campaign-03-agentic-coding",
                         "campaign-04-spec-decode", "campaign-05-multi-gpu", "campaign-06-kimi-k3-tight-budget"}) {
    auto scenario = game::load_scenario(game::find_scenario(id, TYCOON_SOURCE_DIR), test::catalog());
    auto base = reference_to(scenario, 24);
    const auto& seg = scenario.segments[0];
    for (double factor : {0.9, 1.0, 1.1}) {
      CAPTURE(id);
      CAPTURE(factor);
      game::Game g(scenario, base->state(), test::catalog());
      const auto prices = econ::scaled(g.state().company.prices.at(seg.model), factor);
      REQUIRE(g.apply(game::SetPrices{seg.model, prices.input_usd_per_mtok, prices.cached_input_usd_per_mtok,
                                      prices.output_usd_per_mtok})
                  .ok);
      g.advance(kSettleHours);
      double forecast = 0, booked = 0, forecast_revenue = 0, booked_revenue = 0;
      bool unknown = false;
      for (int h = 0; h < kHours; ++h) {
        const auto curve = game::price_response(scenario, g.state(), 0, g.state().company.prices.at(seg.model));
        unknown = unknown || curve.now.beyond_known;
        forecast += curve.now.profit_usd_per_hour;
        forecast_revenue += curve.now.revenue_usd_per_hour;
        g.step();
        booked += g.state().history[game::Series::kProfitUsd].back();
        booked_revenue += g.state().history[game::Series::kRevenueUsd].back();
      }
      MESSAGE(std::string(id) << " " << factor << "x: forecast " << forecast / kHours << " $/h (revenue "
                              << forecast_revenue / kHours << "), booked " << booked / kHours << " $/h (revenue "
                              << booked_revenue / kHours << ")" << (unknown ? " beyond known" : ""));
      const auto curve = game::price_response(scenario, g.state(), 0, g.state().company.prices.at(seg.model));
      if (unknown || curve.approximate) {
        MESSAGE(std::string(id) << " at " << factor << "x: the curve says it cannot forecast this hour ("
                                << (unknown ? "beyond what the fleet has served" : curve.approximate_why) << ")");
        continue;
      }
      INFO("forecast " << forecast / kHours << " $/h, booked " << booked / kHours << " $/h");
      // Near break-even 10% of the profit is a few cents, far inside the hours' demand noise: there
      // the bar is 6% of the revenue (kNearBreakEvenShare), where the forecast's error comes from
      // (measured: 0.1-5.2% on the 15 cases; the old chart missed the tutorial's revenue by 70%).
      // The 5.2%: level 2 at 0.9x, whose MI300X (on its levels fitted to published results) runs
      // at capacity, where the forecast serves last hour's completions and the hour served more.
      const double tol = std::max(kForecastTol * std::abs(booked), kNearBreakEvenShare * booked_revenue);
      CHECK(std::abs(forecast - booked) <= tol);
      ++compared;
    }
  }
  CHECK(compared >= 12);  // most of the 18 cases can be forecast
}
