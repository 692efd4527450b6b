// The tutorial waits for the player: each step is done when the state shows it was
// done, never on a timer; action steps hold the clock; passing requires doing every step.
#include <doctest/doctest.h>

#include <filesystem>

#include "sim/game/scoring.h"
#include "tests/advisor_test_util.h"

using namespace tycoon;
namespace fs = std::filesystem;

namespace {

game::Scenario tutorial() {
  return game::load_scenario(game::find_scenario("tutorial", TYCOON_SOURCE_DIR), test::catalog());
}

std::unique_ptr<game::Game> advised(const game::Scenario& s) {
  auto g = std::make_unique<game::Game>(s, test::catalog());
  g->set_advisor(std::make_shared<advisor::Chien>(test::catalog(), s,
                                                  advisor::load_code_change_catalog_from_root(TYCOON_SOURCE_DIR)));
  return g;
}

std::string step_id(const game::Game& g) {
  const auto& steps = g.scenario().tutorial_steps;
  const auto i = g.state().world.tutorial_step;
  return i < steps.size() ? steps[i].id : "complete";
}

// Runs the clock an hour at a time, as a front end does, while the step does not hold it.
void run_until_step_changes(game::Game& g, int max_hours = 48) {
  const auto before = g.state().world.tutorial_step;
  for (int h = 0; h < max_hours && g.state().world.tutorial_step == before && !g.finished(); ++h) {
    REQUIRE_FALSE(game::tutorial_holds_clock(g.scenario(), g.state()));
    g.step();
  }
}

const game::Advice& pending_proposal(const game::Game& g) {
  for (const auto& a : g.state().inbox) {
    if (a.status == game::AdviceStatus::kPending) return a;
  }
  FAIL("no pending proposal");
  return g.state().inbox.front();
}

bool tutorial_goal_met(const game::Game& g) {
  for (const auto& r : game::evaluate_goals(g.scenario(), g.state())) {
    if (r.goal.kind == game::GoalKind::kTutorialComplete) return r.met;
  }
  return false;
}

}  // namespace

TEST_CASE("tutorial: a scripted new player finishes it only by doing each step, in order") {
  const auto s = tutorial();
  REQUIRE(s.tutorial_steps.size() == 12);
  auto owned = advised(s);
  auto& g = *owned;

  // Hour 0: nothing done, the first step waits for a rented GPU and holds the clock.
  CHECK(step_id(g) == "rent");
  CHECK(game::tutorial_holds_clock(s, g.state()));
  // Something else (a price) does not count for it.
  REQUIRE(g.apply(game::SetPrices{"gpt-oss-120b", std::nullopt, std::nullopt, 0.66}).ok);
  CHECK(step_id(g) == "rent");

  REQUIRE(g.apply(game::RentGpus{"h200", Contract::kOnDemand, 1}).ok);
  CHECK(step_id(g) == "deploy");
  REQUIRE(g.apply(game::Deploy{"gpt-oss-120b", "h200", std::nullopt, 1, {}, {}}).ok);
  CHECK(step_id(g) == "serve");
  run_until_step_changes(g);
  CHECK(g.state().hour == 4);  // "watch for a few hours": done at hour 4, not before
  CHECK(step_id(g) == "profile");
  CHECK(game::tutorial_holds_clock(s, g.state()));
  REQUIRE(g.apply(game::ViewPanel{"pareto"}).ok);  // the wrong panel
  CHECK(step_id(g) == "profile");
  REQUIRE(g.apply(game::ViewPanel{"profiler"}).ok);
  // Prices were already set before this step: the step is done on arrival, and the advisor's
  // first proposal (posted at hour 2) is already in, so the next waiting step is the check.
  CHECK(step_id(g) == "check");
  const std::string id = pending_proposal(g).id;
  REQUIRE(g.apply(game::CheckAdvice{id, game::AdviceCheckKind::kBenchmark}).ok);
  CHECK(step_id(g) == "measure");
  run_until_step_changes(g);
  CHECK(step_id(g) == "decide");
  // Decide on the benchmark's verdict, as the step asks, by pressing the button the step rings.
  REQUIRE(pending_proposal(g).id == id);
  REQUIRE(game::current_step(s.tutorial_steps, g.state()) != nullptr);
  const auto& decide = *game::current_step(s.tutorial_steps, g.state());
  if (game::check_undecided(pending_proposal(g).checks.back())) {
    // The first benchmark cannot tell: the ring is on the longer one, then on the clock.
    CHECK(game::step_target(decide, g.state()) == "advisor.check.benchmark_more." + id);
    REQUIRE(g.apply(game::CheckAdvice{id, game::AdviceCheckKind::kBenchmark, 12}).ok);
    CHECK(game::step_target(decide, g.state()) == game::kRunClockTarget);
    while (!pending_proposal(g).checks.back().ready(g.state().hour)) g.advance(1);
  }
  const auto& checked = pending_proposal(g);
  const bool gain = checked.checks.back().verdict == game::CheckVerdict::kGain;
  CHECK(game::step_target(decide, g.state()) == (gain ? "advisor.accept." : "advisor.reject.") + id);
  if (gain) {
    REQUIRE(g.apply(game::AcceptAdvice{id}).ok);
  } else {
    REQUIRE(g.apply(game::RejectAdvice{id}).ok);
  }
  CHECK(step_id(g) == "grow");
  REQUIRE(g.apply(game::RentGpus{"h200", Contract::kOnDemand, 1}).ok);
  CHECK(step_id(g) == "scale");  // a GPU alone is not a replica: the next step rings the deployment's +
  REQUIRE(g.apply(game::ScaleReplicas{1, 2, {}}).ok);
  CHECK(step_id(g) == "finish");
  CHECK_FALSE(tutorial_goal_met(g));
  g.run_to_end();
  CHECK(step_id(g) == "complete");
  CHECK(tutorial_goal_met(g));

  // Every step the player had to wait on was announced as an alarm (front ends stop the clock and
  // show it): all 12 but the two already done on arrival (prices, the first proposal), and those
  // two were passed with a word, never silently.
  int announced = 0, passed = 0;
  for (const auto& n : g.state().news) {
    announced += n.alarm == game::AlarmKind::kTutorialStep;
    passed += n.text.find(" is already done: ") != std::string::npos;
  }
  CHECK(announced == 12 - 2);
  CHECK(passed == 2);
}

// A decide step at hour 10 with one pending proposal, Chien-1, whose one check of `kind` (ready at
// hour 9) measured x1.015 over x0.99-x1.04: no measurable change, yet a material gain (>= x1.01)
// is inside the interval.
namespace {
struct UndecidedCheck {
  game::TutorialStep decide;
  game::GameState state;
};
UndecidedCheck undecided_check(game::AdviceCheckKind kind, int repetitions) {
  UndecidedCheck u;
  u.decide.target = std::string(game::kDecideTarget);
  u.state.hour = 10;
  game::Advice a;
  a.id = "Chien-1";
  game::AdviceCheck c;
  c.kind = kind;
  c.repetitions = repetitions;
  c.ready_at_hour = 9;
  c.measured_speedup = 1.015;
  c.interval_low = 0.99;
  c.interval_high = 1.04;
  c.verdict = game::check_verdict(1.015, 0.99, 1.04, false, false);
  a.checks.push_back(c);
  u.state.inbox.push_back(a);
  return u;
}
}  // namespace

TEST_CASE("tutorial: where the first benchmark cannot tell, the ring is on the longer one, not on a coin toss") {
  // A ×1.02 change benchmarked at ×1.015 (×0.99–×1.04): no measurable change, yet a material gain
  // (≥ ×1.01) is inside the interval. Rejecting it would throw away a good proposal half the time;
  // the step rings the longer benchmark, the clock while it runs, then the call its verdict supports.
  auto u = undecided_check(game::AdviceCheckKind::kBenchmark, game::kDefaultBenchmarkRepetitions);
  const game::TutorialStep& decide = u.decide;
  game::GameState& s = u.state;
  const game::AdviceCheck four = s.inbox[0].checks[0];
  REQUIRE(four.verdict == game::CheckVerdict::kNoMeasurableChange);
  REQUIRE(game::check_undecided(four));
  CHECK(game::step_target(decide, s) == "advisor.check.benchmark_more.Chien-1");
  game::AdviceCheck twelve = four;
  twelve.ready_at_hour = 12;
  twelve.measured_speedup = 1.02;
  twelve.interval_low = 1.011;
  twelve.interval_high = 1.029;
  twelve.verdict = game::check_verdict(1.02, 1.011, 1.029, false, false);
  s.inbox[0].checks.push_back(twelve);
  CHECK(game::step_target(decide, s) == game::kRunClockTarget);  // hour 10: running until 12
  s.hour = 12;
  CHECK(game::step_target(decide, s) == "advisor.accept.Chien-1");
  // A first benchmark that tells (all of it under a material gain) is decided at once: reject.
  s.inbox[0].checks = {four};
  s.inbox[0].checks[0].interval_high = 1.005;
  s.inbox[0].checks[0].measured_speedup = 0.998;
  s.inbox[0].checks[0].verdict = game::check_verdict(0.998, 0.99, 1.005, false, false);
  CHECK_FALSE(game::check_undecided(s.inbox[0].checks[0]));
  CHECK(game::step_target(decide, s) == "advisor.reject.Chien-1");
}

TEST_CASE("tutorial: after an undecided canary the ring is on the longer canary") {
  // A canary of six hours at x1.015 (x0.99-x1.04) cannot tell either: the ring goes to the longer
  // canary (18 hours in all, pooled with these six), not to the benchmark the player did not buy.
  auto u = undecided_check(game::AdviceCheckKind::kCanary, 6);
  const game::TutorialStep& decide = u.decide;
  game::GameState& s = u.state;
  REQUIRE(game::check_undecided(s.inbox[0].checks[0]));
  CHECK(game::step_target(decide, s) == "advisor.check.canary_more.Chien-1");
  // A component test that cannot tell rings nothing longer: there is none; its verdict decides.
  s.inbox[0].checks[0].kind = game::AdviceCheckKind::kComponentTest;
  CHECK(game::step_target(decide, s) == "advisor.reject.Chien-1");
}

TEST_CASE("tutorial: renting, deploying and letting the clock run does not pass it") {
  // The old tutorial scored 300/300 and 3 stars for steps 1-2 alone.
  const auto s = tutorial();
  auto owned = advised(s);
  auto& g = *owned;
  REQUIRE(g.apply(game::RentGpus{"h200", Contract::kOnDemand, 1}).ok);
  REQUIRE(g.apply(game::Deploy{"gpt-oss-120b", "h200", std::nullopt, 1, {}, {}}).ok);
  g.run_to_end();  // a headless run can step past a held clock; the steps stay undone
  CHECK(step_id(g) == "profile");
  // The game has ended: no step is the player's to do any more, though "profile" was never done.
  CHECK(game::current_step(s.tutorial_steps, g.state()) == nullptr);
  CHECK_FALSE(tutorial_goal_met(g));
  const auto sc = game::score(s, g.state(), game::evaluate_goals(s, g.state()));
  CHECK_FALSE(sc.passed);
  CHECK(sc.stars <= 1);
}

TEST_CASE("tutorial steps: a bad step is refused with the file and the pointer") {
  auto j = game::to_json(tutorial());
  j["tutorial_steps"][2]["done_when"] = {{"hours_played", 4}};
  try {
    game::scenario_from_json(j, "tutorial.json", test::catalog());
    FAIL("accepted an unknown condition");
  } catch (const data::LoadError& e) {
    CHECK(e.pointer() == "/tutorial_steps/2/done_when/hours_played");
    CHECK(std::string(e.what()).find("unknown condition") != std::string::npos);
  }
  j["tutorial_steps"][2]["done_when"] = {{"panel_viewed", "spreadsheet"}};
  CHECK_THROWS_AS(game::scenario_from_json(j, "tutorial.json", test::catalog()), data::LoadError);
}

TEST_CASE("tutorial hints: the newest one shown so far is the one on screen") {
  std::vector<game::TutorialHint> hints(2);
  hints[0].text = "first";
  hints[1].text = "second";
  game::GameState s;
  CHECK(game::current_hint(hints, s) == nullptr);  // none shown yet
  s.world.next_hint = 1;
  CHECK(game::current_hint(hints, s) == &hints[0]);
  s.world.next_hint = 2;
  CHECK(game::current_hint(hints, s) == &hints[1]);
  s.world.next_hint = 5;  // past the end (a save of a scenario that lost hints): the last
  CHECK(game::current_hint(hints, s) == &hints[1]);
}
