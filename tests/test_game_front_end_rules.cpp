// Rules the front ends display, each written once in sim/ (the panels and the CLI call these and
// judge nothing themselves): when Undo is offered, how a price reads against the market's, how
// risky a spot offer is, which hour record a panel shows, and which advisor a front end attaches.
#include <doctest/doctest.h>

#include "sim/advisor/advisor.h"
#include "sim/econ/demand.h"
#include "sim/econ/gpu_market.h"
#include "sim/game/fleet.h"
#include "sim/game/game.h"
#include "sim/game/last_hours.h"
#include "tests/advisor_test_util.h"

using namespace tycoon;

TEST_CASE("Undo is offered exactly where RevertAdvice would undo, with the game's own reason otherwise") {
  game::GameOptions o;
  o.seed = 11;
  game::Game g(test::advisor_market(1), test::catalog(), o);
  auto opts = test::fast_advisor_options();
  g.set_advisor(std::make_shared<advisor::Chien>(test::catalog(), g.scenario(),
                                                 advisor::load_code_change_catalog_from_root(TYCOON_SOURCE_DIR), opts));
  g.advance(opts.first_proposal_hour);
  REQUIRE_FALSE(g.state().inbox.empty());
  const std::string id = g.state().inbox.front().id;
  auto advice = [&] { return g.state().inbox.front(); };
  // Pending: nothing to undo, and the game refuses for the same reason.
  const auto pending = game::revert_refusal(g.state(), advice());
  REQUIRE(pending.has_value());
  CHECK(game::decision_label(advice()) == "pending");
  const auto refused = g.apply(game::RevertAdvice{id});
  CHECK_FALSE(refused.ok);
  CHECK(refused.message == *pending);
  // Accepted: Undo is offered and works.
  REQUIRE(g.apply(game::AcceptAdvice{id}).ok);
  CHECK_FALSE(game::revert_refusal(g.state(), advice()).has_value());
  CHECK(game::decision_label(advice()) == "accepted");
  REQUIRE(g.apply(game::RevertAdvice{id}).ok);
  // Undone: not offered again, and the history says so (its change no longer serves).
  CHECK(game::decision_label(advice()) == "undone");
  const auto again = game::revert_refusal(g.state(), advice());
  REQUIRE(again.has_value());
  CHECK(again->find("already reverted") != std::string::npos);
}

TEST_CASE("a price within 5% of the market's reads as the market's price") {
  // At the scenarios' elasticities (under 1.5) 5% moves demand by under 8%: not worth a colour.
  CHECK(econ::price_standing(1.04, 1.0) == econ::PriceStanding::kAtMarket);
  CHECK(econ::price_standing(0.96, 1.0) == econ::PriceStanding::kAtMarket);
  CHECK(econ::price_standing(1.06, 1.0) == econ::PriceStanding::kAbove);
  CHECK(econ::price_standing(0.94, 1.0) == econ::PriceStanding::kBelow);
}

TEST_CASE("a spot offer is marked when a contract is more likely than not reclaimed within a day") {
  econ::GpuOffer spot;
  spot.contract = Contract::kSpot;
  spot.interruptions_per_hour = 0.05;  // 1 - 0.95^24 = 70.8% within a day
  CHECK(spot.reclaim_chance(24) == doctest::Approx(0.708).epsilon(1e-3));
  CHECK(spot.reclaimed_within_a_day_likely());
  spot.interruptions_per_hour = 0.02;  // 1 - 0.98^24 = 38.4%
  CHECK(spot.reclaim_chance(24) == doctest::Approx(0.384).epsilon(1e-3));
  CHECK_FALSE(spot.reclaimed_within_a_day_likely());
  econ::GpuOffer on_demand;
  on_demand.interruptions_per_hour = 0.5;  // an on-demand contract is never reclaimed
  CHECK(on_demand.reclaim_chance(24) == 0.0);
}

TEST_CASE("a panel's recent hour of a deployment: its newest record of the last two simulated hours") {
  game::GameState s;
  s.hour = 10;
  s.deployment_history = {
      {.hour = 7, .deployment_id = 1}, {.hour = 8, .deployment_id = 2}, {.hour = 9, .deployment_id = 2}};
  REQUIRE(game::last_hour_of(s, 2) != nullptr);
  CHECK(game::last_hour_of(s, 2)->hour == 9);
  CHECK(game::last_hour_of(s, 1) == nullptr);  // stopped serving three hours ago: no latencies shown
  CHECK(game::last_hour_of(s, 3) == nullptr);
}

TEST_CASE("every front end attaches the same advisor, and none where the level locks advice") {
  auto sc = test::advisor_market(1);
  CHECK(advisor::default_advisor(test::catalog(), sc, TYCOON_SOURCE_DIR) != nullptr);
  sc.locked_levers.push_back("accept_advice");
  CHECK(advisor::default_advisor(test::catalog(), sc, TYCOON_SOURCE_DIR) == nullptr);
}

TEST_CASE("a level's question is shown in play; its answer only once the game is over and the key is not kept back") {
  game::Scenario s;
  s.lesson = "A 10% speedup nearly doubles a thin margin's profit.";
  CHECK(s.lesson_in_play() == s.lesson);  // no question: the lesson is what play shows
  CHECK_FALSE(s.answer_shown(true, false));
  s.question = "Can a 10% speedup double your profit?";
  CHECK(s.lesson_in_play() == s.question);
  CHECK_FALSE(s.answer_shown(false, false));  // still playing
  CHECK_FALSE(s.answer_shown(true, true));    // a class before its deadline
  CHECK(s.answer_shown(true, false));
}

TEST_CASE("a control is greyed by the rule the game refuses by: the command's lever, and a rental's contract type") {
  auto sc = test::advisor_market(1);
  const game::RentGpus spot{"h200", tycoon::Contract::kSpot, 2};
  const game::RentGpus on_demand{"h200", tycoon::Contract::kOnDemand, 2};
  CHECK_FALSE(sc.command_locked(spot));
  sc.locked_levers.push_back("contract.spot");
  CHECK(sc.command_locked(spot));  // spot alone
  CHECK_FALSE(sc.command_locked(on_demand));
  game::Game g(sc, test::catalog());
  const auto r = g.apply(spot);
  CHECK_FALSE(r.ok);
  CHECK(g.apply(on_demand).ok);
  sc.locked_levers.push_back("rent_gpus");
  CHECK(sc.command_locked(on_demand));  // every rental
  CHECK_FALSE(sc.recipe_field_locked("max_num_seqs"));
  sc.locked_levers.push_back("recipe.max_num_seqs");
  CHECK(sc.recipe_field_locked("max_num_seqs"));
}

TEST_CASE("a deployment with no replica in a pool serves nothing, and no panel previews it as one replica") {
  // Scaled to 0 (ScaleReplicas allows it): the traffic, profiler and deploy previews say so
  // rather than simulate one replica at the whole segment's load.
  CHECK(game::serves_nothing(0, std::nullopt));
  CHECK_FALSE(game::serves_nothing(1, std::nullopt));
  game::DecodePoolState decode;
  decode.replicas = 0;
  CHECK(game::serves_nothing(2, decode));  // a split one whose decode pool was scaled to 0
  decode.replicas = 1;
  CHECK_FALSE(game::serves_nothing(2, decode));
}
