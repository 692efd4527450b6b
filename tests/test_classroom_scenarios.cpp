// The classroom scenarios that take a week of decisions: each loads, is a class (a seed, locks, a
// question), and its lesson is true on the class's own world — the good strategy beats doing
// nothing and the naive script, by the class's benchmarks (class report's: doing nothing and the
// reference, played as `class report` plays them) and by the score. The balance test holds the
// six strategies of every classroom scenario; docs/teaching.md quotes the figures.
#include <doctest/doctest.h>

#include <filesystem>

#include "sim/classroom/class_report.h"
#include "sim/classroom/class_spec.h"
#include "sim/classroom/submission.h"
#include "sim/game/command.h"
#include "sim/game/summary.h"
#include "tests/game_test_util.h"

using namespace tycoon;
namespace fs = std::filesystem;

namespace {

// "Beats": at least this much more profit (a week's difference, not noise).
constexpr double kBeatsUsd = 300;

classroom::ClassWorld class_of(const std::string& scenario_name) {
  auto scenario = game::load_scenario(game::find_scenario(scenario_name, TYCOON_SOURCE_DIR), test::catalog());
  classroom::ClassChoices c;
  c.class_id = "week-101";
  return classroom::class_world(classroom::make_class(scenario, c), "week-101.json", test::catalog(), TYCOON_SOURCE_DIR,
                                std::make_shared<game::ServingWindows>());
}

std::vector<game::LoggedCommand> naive_script(const classroom::ClassWorld& world) {
  return game::read_command_log(fs::path(TYCOON_SOURCE_DIR) / "scenarios" / "strategies" / world.scenario.id /
                                "naive.jsonl");
}

}  // namespace

TEST_CASE("demand shift: reserving ahead of the announced launch beats doing nothing and reacting late") {
  const auto world = class_of("demand-shift");
  CHECK(world.scenario.kind == game::ScenarioKind::kClassroom);
  CHECK(world.scenario.days == 7);
  CHECK_FALSE(world.spec.advisor);  // the scenario locks the advisor's levers
  // The shift is announced in play (a news event) before it comes (a demand event), more than
  // the reserved contract's lead time ahead: preparing is possible, and only just.
  std::int64_t announced = -1, shifted = -1;
  for (const auto& e : world.scenario.events) {
    if (std::holds_alternative<game::NewsEvent>(e.payload) && announced < 0) announced = e.at_hour;
    if (std::holds_alternative<game::DemandEvent>(e.payload)) shifted = e.at_hour;
  }
  REQUIRE(announced >= 0);
  REQUIRE(shifted > announced + 48);

  const auto benchmarks = classroom::play_class_benchmarks(world, test::catalog());
  const auto& cf = benchmarks.counterfactuals;
  REQUIRE(cf.reference);
  auto naive = classroom::play_class_game(world, test::catalog(), naive_script(world));
  const auto late = game::summarize(*naive, &cf);
  MESSAGE("doing nothing $" << cf.do_nothing.figures.profit_usd << " (" << cf.do_nothing.score->points
                            << "), reacting late $" << late.profit_usd << " (" << late.score.points
                            << "), the reference $" << cf.reference->figures.profit_usd << " ("
                            << cf.reference->score->points << ")");
  CHECK(cf.reference->figures.profit_usd > cf.do_nothing.figures.profit_usd + kBeatsUsd);
  CHECK(cf.reference->figures.profit_usd > late.profit_usd + kBeatsUsd);
  CHECK(cf.reference->score->points > cf.do_nothing.score->points);
  CHECK(cf.reference->score->points > late.score.points);
  // Doing nothing loses customers after the shift: its service suffers, not only its profit.
  CHECK(cf.do_nothing.figures.slo_attainment < cf.reference->figures.slo_attainment);
}

TEST_CASE("check the advisor: taking the real gains and refusing the rest beats ignoring the advisor" *
          doctest::test_suite("whole-games")) {
  const auto world = class_of("check-the-advisor");
  CHECK(world.scenario.kind == game::ScenarioKind::kClassroom);
  CHECK(world.spec.advisor);  // on by default: the scenario leaves the advisor's levers open
  const auto benchmarks = classroom::play_class_benchmarks(world, test::catalog());
  const auto& cf = benchmarks.counterfactuals;
  REQUIRE(cf.reference);
  MESSAGE("doing nothing $" << cf.do_nothing.figures.profit_usd << " (" << cf.do_nothing.score->points
                            << "), the reference $" << cf.reference->figures.profit_usd << " ("
                            << cf.reference->score->points << ")");
  CHECK(cf.reference->figures.profit_usd > cf.do_nothing.figures.profit_usd + kBeatsUsd);
  CHECK(cf.reference->score->points > cf.do_nothing.score->points);
  // The reference took advice: the proposals it accepted are what it earned the difference with.
  const auto& runs = benchmarks.runs;
  REQUIRE(runs.size() == 2);
  CHECK(runs[1].summary.score.stars == 3);
}
