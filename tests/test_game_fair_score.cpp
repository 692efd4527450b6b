// Fair standings: the score ranks what the debrief says, a game handed in unfinished is scored on
// the share of it played, the profit curve has no kink at the reference, and a class's answer key
// stays back from students until the deadline (sim/game/scoring.h, counterfactual.h,
// sim/classroom/answer_key.h).
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "sim/classroom/answer_key.h"
#include "sim/classroom/class_charts.h"
#include "sim/classroom/class_report.h"
#include "sim/classroom/class_spec.h"
#include "sim/classroom/submission.h"
#include "sim/data/json_reader.h"
#include "sim/game/save.h"
#include "sim/game/summary.h"
#include "tests/advisor_test_util.h"
#include "tests/game_test_util.h"

using namespace tycoon;
namespace fs = std::filesystem;

namespace {

// The pricing class cut to two days (as the class report's tests): seconds, not minutes.
constexpr int kFairClassDays = 2;
constexpr std::uint64_t kFairClassSeed = 4242;
// A score shown at one decimal: two computations of the same game agree far closer.
constexpr double kScoreTol = 1e-9;

classroom::ClassWorld pricing_class(std::shared_ptr<game::ServingWindows> windows) {
  auto scenario = game::load_scenario(game::find_scenario("classroom-prices-only", TYCOON_SOURCE_DIR), test::catalog());
  classroom::ClassChoices c;
  c.class_id = "fair-101";
  c.seed = kFairClassSeed;
  c.days = kFairClassDays;
  return classroom::class_world(classroom::make_class(scenario, c), "fair-101.json", test::catalog(), TYCOON_SOURCE_DIR,
                                std::move(windows));
}

game::Counterfactuals fair_class_counterfactuals(const classroom::ClassWorld& world) {
  auto probe = world.new_game(test::catalog());
  return game::run_counterfactuals(probe->scenario(), probe->state(), test::catalog(), world.options.windows,
                                   probe->advisor());
}

std::string one_decimal(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", x);
  return buf;
}

}  // namespace

TEST_CASE("the profit curve's slope is the same on both sides of the reference: no squeeze at the top") {
  // Doing nothing earns $0 and the reference $100: a dollar is 0.4 points below the reference
  // (40 points over $100) and, at first, 10 × 4 × e^0 / 100 = 0.4 points above it. Before, it was
  // 0.1 above: every strategy that beat the reference fitted into a few points.
  game::Scenario sc = test::advisor_market(1);
  std::vector<game::GoalResult> goals;
  auto profit_points = [&](double profit) {
    game::GameState s;
    s.ledger.restore(econ::LedgerTotals{profit, 0, 0}, {}, {});
    game::ScoreInputs in;
    in.do_nothing_profit_usd = 0;
    in.reference_profit_usd = 100;
    for (const auto& c : game::score(sc, s, goals, in).components) {
      if (c.id == "profit") return c.points;
    }
    return -100.0;
  };
  constexpr double kSlopeTol = 0.01;  // points per dollar: the curve over $1 is nearly straight
  const double below = profit_points(100) - profit_points(99), above = profit_points(101) - profit_points(100);
  CHECK(below == doctest::Approx(0.4).epsilon(kSlopeTol));
  CHECK(above == doctest::Approx(0.4).epsilon(kSlopeTol));
  // Beyond the reference it still approaches 50: doubling the reference's profit gives
  // 40 + 10 × (1 − e^−4) = 49.82.
  CHECK(profit_points(200) == doctest::Approx(40 + 10 * (1 - std::exp(-4.0))).epsilon(kScoreTol));
  CHECK(profit_points(1e6) <= game::kProfitPointsMax);
}

TEST_CASE("a game handed in unfinished scores its points times the share played, and one star at most") {
  // The same state scored twice: played to its end, and stopped at hour 12 of 48 (then run to the
  // end without another command): a quarter of the points, and at most one star.
  game::Scenario sc = test::advisor_market(1);
  game::GameState s;
  s.end_hour = 48;
  s.hour = 48;
  s.ledger.restore(econ::LedgerTotals{100, 0, 0}, {}, {});
  std::vector<game::GoalResult> goals;  // none: every goal met
  game::ScoreInputs in;
  in.do_nothing_profit_usd = 0;
  in.reference_profit_usd = 100;
  in.judgement = game::AdviceJudgement{};  // known, with nothing to judge: every part is final
  const auto played = game::score(sc, s, goals, in);
  in.stopped_at_hour = 12;
  const auto stopped = game::score(sc, s, goals, in);
  REQUIRE(played.stars == 3);
  CHECK(stopped.played_share == doctest::Approx(0.25));
  CHECK(stopped.points == doctest::Approx(played.points * 0.25).epsilon(kScoreTol));
  CHECK(stopped.stars == 1);
  // Stopped at the last hour is a finished game.
  in.stopped_at_hour = 48;
  CHECK(game::score(sc, s, goals, in).points == doctest::Approx(played.points).epsilon(kScoreTol));
}

TEST_CASE("in a class, an abandoned game ranks below every played one and the debrief says so by the score") {
  auto windows = std::make_shared<game::ServingWindows>();
  const auto world = pricing_class(windows);
  const auto cf = fair_class_counterfactuals(world);
  REQUIRE(cf.reference);
  REQUIRE(cf.reference->score);
  REQUIRE(cf.do_nothing.score);
  const auto& reference = world.scenario.reference_strategy->commands;

  // The reference's moves, stopped at hour 12 of 48: the replay runs the rest without a command,
  // so its money is the reference's, but only a quarter of the game was played.
  constexpr std::int64_t kStoppedAt = 12;
  auto abandoned = classroom::play_class_game(world, test::catalog(), reference);
  const auto at_stop = classroom::state_at_stop(world, *abandoned, kStoppedAt);
  const auto stopped = game::summarize(*abandoned, &cf, kStoppedAt, &at_stop);
  const auto full = game::summarize(*abandoned, &cf);
  auto nothing = classroom::play_class_game(world, test::catalog(), {});
  const auto idle = game::summarize(*nothing, &cf);
  CHECK(stopped.score.points == doctest::Approx(full.score.points * kStoppedAt / (kFairClassDays * 24.0)));
  CHECK(stopped.score.points < idle.score.points);  // below even the finished do-nothing game
  // Its money and service are the hours played: the first 12 hours' profit, not the week's that
  // the replay ran on without a command.
  double played_profit = 0;
  for (std::int64_t h = 0; h < kStoppedAt; ++h)
    played_profit += abandoned->state().history[game::Series::kProfitUsd][h];
  CHECK(stopped.hours == kStoppedAt);
  CHECK(stopped.profit_usd == doctest::Approx(played_profit).epsilon(1e-9));
  // The cash it had then: every charge of those hours (checks, fees) in, none after.
  CHECK(stopped.cash_usd - stopped.starting_cash_usd == doctest::Approx(stopped.profit_usd).epsilon(1e-9));
  CHECK(stopped.profit_usd < full.profit_usd);
  // A hand-in at the hour of a move holds that move: the student made it before handing in (a
  // check bought then, a GPU released then, is charged to the hours played).
  const std::int64_t move_hour = reference.front().at_hour;
  const auto at_move = classroom::state_at_stop(world, *abandoned, move_hour);
  const auto moves_by = std::count_if(reference.begin(), reference.end(),
                                      [&](const game::LoggedCommand& c) { return c.at_hour <= move_hour; });
  CHECK(at_move.hour == move_hour);
  CHECK(static_cast<std::ptrdiff_t>(at_move.log.size()) == moves_by);
  // The score and the comparison are the whole replay's, as before the cut.
  CHECK(stopped.reference_comparison == game::summarize(*abandoned, &cf, kStoppedAt).reference_comparison);
  CHECK(stopped.score.stars <= 1);
  CHECK(stopped.what_to_try.front().find("Play to the end") == 0);

  // The counterfactual runs carry the same scores the game gives their commands.
  CHECK(cf.do_nothing.score->points == doctest::Approx(idle.score.points).epsilon(kScoreTol));
  CHECK(cf.reference->score->points == doctest::Approx(full.score.points).epsilon(kScoreTol));

  // Doing nothing earns more money here than the reference (a trade-off level: it serves fewer
  // customers well) but scores lower; the sentence says the scores, then the money.
  REQUIRE(idle.profit_usd > cf.reference->figures.profit_usd);
  REQUIRE(idle.score.points < cf.reference->score->points);
  const std::string& said = idle.reference_comparison;
  MESSAGE(said);
  CHECK(said.find("The reference scored " + one_decimal(cf.reference->score->points) + " points to your " +
                  one_decimal(idle.score.points)) == 0);
  CHECK(said.find("you earned $") != std::string::npos);
  CHECK(said.find("more on service") != std::string::npos);
  CHECK(said.find("You beat") == std::string::npos);
  CHECK(idle.what_to_try.front().find("Service:") == 0);
  CHECK(full.reference_comparison.find("You matched the reference's score") == 0);

  // The class report replays the abandoned hand-in with its stopped hour and ranks it last.
  auto dir = fs::temp_directory_path() / ("tycoon-fair-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto write = [&](const std::string& file, const nlohmann::json& sub) {
    std::ofstream(dir / file, std::ios::binary) << classroom::submission_text(sub);
  };
  const auto abandoned_sub = classroom::make_submission(world, *abandoned, cf, "Abe Abandoned", {}, kStoppedAt);
  CHECK(abandoned_sub["payload"]["stopped_at_hour"] == kStoppedAt);
  write("a-abandoned.json", abandoned_sub);
  // The stopped hour is read strictly: past the game's end it names the field (the checksum
  // recomputed, as anyone can).
  {
    auto forged = abandoned_sub;
    forged["payload"]["stopped_at_hour"] = kFairClassDays * 24 + 1;
    forged["checksum"] = game::checksum_of(forged["payload"].dump());
    CHECK_THROWS_WITH_AS(classroom::submission_from_json(forged, "forged.json"),
                         doctest::Contains("/payload/stopped_at_hour"), data::LoadError);
  }
  write("b-nothing.json", classroom::make_submission(world, *nothing, cf, "Dana Nothing"));
  auto played = classroom::play_class_game(world, test::catalog(), reference);
  write("c-reference.json", classroom::make_submission(world, *played, cf, "Rhea Reference"));
  const auto report = classroom::build_class_report(world, test::catalog(), classroom::submission_files(dir));
  for (const auto& r : report.rejected) MESSAGE(r.file << ": " << r.reason);
  REQUIRE(report.valid.size() == 3);
  CHECK(report.valid[0].student == "Rhea Reference");
  CHECK(report.valid[1].student == "Dana Nothing");
  CHECK(report.valid[2].student == "Abe Abandoned");
  CHECK(report.valid[2].summary.score.played_share == doctest::Approx(0.25));
  // Its profit, a quarter of a game's, ranks last by profit too; the worst game to discuss is the
  // lowest-scoring finished one, not the abandoned one.
  CHECK(report.valid[2].rank_profit == 3);
  REQUIRE(report.instructive.size() >= 2);
  CHECK(report.instructive[1].kind == "worst");
  CHECK(report.valid[report.instructive[1].index].student == "Dana Nothing");
  // The report shows it unfinished, in its standings and on its charts, where it stopped.
  CHECK(classroom::report_html(report).find("Abe Abandoned (unfinished: stopped at h12)") != std::string::npos);
  const auto data = classroom::chart_data(report);
  REQUIRE(data.students.size() == 3);
  CHECK_FALSE(data.students[2].finished);
  CHECK(data.students[2].cumulative_profit_usd.size() == static_cast<std::size_t>(kStoppedAt));
  CHECK(data.students[0].cumulative_profit_usd.size() == static_cast<std::size_t>(kFairClassDays * 24));
  // So does the game's Class report screen, from the report's JSON: Abe stopped at hour 12, the
  // others finished.
  const auto view = classroom::class_report_view_from_json(classroom::to_json(report), "report.json");
  REQUIRE(view.find("Abe Abandoned") != nullptr);
  CHECK(view.find("Abe Abandoned")->stopped_at_hour == kStoppedAt);
  CHECK_FALSE(view.find("Dana Nothing")->stopped_at_hour.has_value());
  fs::remove_all(dir);
}

TEST_CASE("a class's answer key: shown to a student only after the deadline, taken out of the debrief before") {
  constexpr std::int64_t kDeadline = 1'796'000'000;
  CHECK_FALSE(classroom::answer_key_shown(std::nullopt, kDeadline + 1));  // no deadline: never
  CHECK_FALSE(classroom::answer_key_shown(kDeadline, std::nullopt));      // no clock: never
  CHECK_FALSE(classroom::answer_key_shown(kDeadline, kDeadline));
  CHECK(classroom::answer_key_shown(kDeadline, kDeadline + 1));

  auto windows = std::make_shared<game::ServingWindows>();
  const auto world = pricing_class(windows);
  const auto cf = fair_class_counterfactuals(world);
  auto nothing = classroom::play_class_game(world, test::catalog(), {});
  const auto full = game::summarize(*nothing, &cf);
  REQUIRE_FALSE(full.what_to_try.empty());
  REQUIRE_FALSE(full.counterfactuals->reference->description.empty());
  const auto shown = classroom::without_answer_key(full);
  CHECK(shown.answer_key_hidden);
  CHECK(shown.counterfactuals->reference->description.empty());
  CHECK(shown.gap_to_reference.empty());
  CHECK(shown.what_to_try.empty());
  // The score and the figures it was measured against stay: the student can read their score.
  CHECK(shown.score.points == full.score.points);
  CHECK(shown.counterfactuals->reference->figures.profit_usd == full.counterfactuals->reference->figures.profit_usd);
  CHECK(shown.reference_comparison == full.reference_comparison);
  // The JSON a front end reads carries no word of the strategy.
  const std::string text = game::to_json(shown).dump();
  CHECK(text.find(world.scenario.reference_strategy->description) == std::string::npos);
  CHECK(game::to_json(shown)["answer_key_hidden"] == true);
}
