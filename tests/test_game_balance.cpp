// Balance, measured on the serving simulator and scored by the game's own rules: six ways to play
// every campaign level and classroom scenario (sim/advisor/balance.h, the README's table). The
// reference strategy must earn 3 stars and end clearly ahead of doing nothing and of the naive
// script; naive play must score low; blind acceptance of advice must score below checking it;
// and no two strategies may tie, or the score would not tell them apart.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <set>

#include "sim/advisor/balance.h"
#include "sim/game/command.h"
#include "sim/game/game.h"
#include "sim/game/summary.h"
#include "tests/advisor_test_util.h"
#include "tests/game_test_util.h"

using namespace tycoon;
namespace fs = std::filesystem;

namespace {

// "Clearly ahead": at least this much more profit than the better of doing nothing and the naive
// script, in USD, and at least this share of that strategy's profit (whichever is larger).
constexpr double kClearlyAheadUsd = 300;
constexpr double kClearlyAheadShare = 0.25;
// Naive play scores low: at most this, and one star at most. (52: on the customers' own window
// seeds the Kimi K3 level's over-provisioned naive script survives with full service and loses
// $1,637 (50 points, one star); it went bankrupt before at 34.)
constexpr double kNaiveMaxScore = 52;
// Checking advice beats accepting it blind, and rejecting it unchecked, by at least this many
// points: the lesson "measure before you decide" must show in the score.
constexpr double kCheckingPaysPoints = 5;
// Two strategies "tie" when their scores are closer than this.
constexpr double kDistinctPoints = 0.5;

std::vector<game::Scenario> balanced_levels() { return advisor::balanced_levels(TYCOON_SOURCE_DIR, test::catalog()); }

}  // namespace

TEST_CASE("balance: on every level the score orders the six strategies as the lessons intend") {
  auto levels = balanced_levels();
  REQUIRE(levels.size() >= 8);
  const auto strategies = fs::path(TYCOON_SOURCE_DIR) / "scenarios" / "strategies";
  for (const auto& s : levels) {
    auto t = advisor::balance_table(s, test::catalog(), advisor::load_code_change_catalog_from_root(TYCOON_SOURCE_DIR),
                                    strategies);
    std::printf("%s", advisor::balance_markdown({t}).c_str());
    CAPTURE(s.id);
    const auto* nothing = t.find("do-nothing");
    const auto* naive = t.find("naive");
    const auto* reference = t.find("reference");
    REQUIRE(nothing->applicable);
    REQUIRE(naive->applicable);
    REQUIRE(reference->applicable);
    // The reference strategy: 3 stars, clearly ahead of doing nothing and of naive play.
    CHECK(reference->score.stars == 3);
    CHECK(reference->score.final);
    const double best_naive = std::max(nothing->profit_usd, naive->profit_usd);
    const bool clearly_ahead =
        reference->profit_usd - best_naive >= std::max(kClearlyAheadUsd, kClearlyAheadShare * std::abs(best_naive));
    // A trade-off level (prices-only): doing nothing earns more, at the customers' expense.
    const bool trade_off = reference->score.points - nothing->score.points >= 15;
    CHECK((clearly_ahead || trade_off));
    // Naive play scores low; doing nothing is never worth two stars less than the reference.
    CHECK(naive->score.points <= kNaiveMaxScore);
    CHECK(naive->score.stars <= 1);
    CHECK(nothing->score.stars < reference->score.stars);
    // Checking advice pays.
    const auto* accept = t.find("accept-all");
    const auto* verify = t.find("verify-then-decide");
    const auto* reject = t.find("reject-all");
    if (accept->applicable) {
      CHECK(verify->score.points - accept->score.points >= kCheckingPaysPoints);
      CHECK(verify->score.points - reject->score.points >= kCheckingPaysPoints);
      CHECK(reject->score.stars <= 2);  // rejecting everything unchecked gives up good advice
    }
    // No ties, but for one pair: checking every proposal well can come within noise of the
    // reference, which takes the good ones the hour they are posted as a player who knew the
    // truth would; it must not beat it by more than a tie.
    if (verify->applicable) CHECK(verify->score.points <= reference->score.points + kDistinctPoints);
    auto close_pair_allowed = [](const std::string& a, const std::string& b) {
      return (a == "verify-then-decide" && b == "reference") || (a == "reference" && b == "verify-then-decide");
    };
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      for (std::size_t j = i + 1; j < t.rows.size(); ++j) {
        if (!t.rows[i].applicable || !t.rows[j].applicable) continue;
        if (close_pair_allowed(t.rows[i].strategy, t.rows[j].strategy)) continue;
        INFO(t.rows[i].strategy << " " << t.rows[i].score.points << " vs " << t.rows[j].strategy << " "
                                << t.rows[j].score.points);
        CHECK(std::abs(t.rows[i].score.points - t.rows[j].score.points) >= kDistinctPoints);
      }
    }
  }
}

TEST_CASE("balance on a seed the table does not use: checking still pays on every campaign level") {
  // The same bars as above for the advisor's three bots, every balanced level on seed 1001 (the
  // table plays each level's own: 101-606), so proposals, their truths and the checks' noise all
  // differ. `build/tycoon balance <level> --seed 1001` prints the row.
  constexpr std::uint64_t kUnseenSeed = 1001;
  const auto strategies = fs::path(TYCOON_SOURCE_DIR) / "scenarios" / "strategies";
  const auto changes = advisor::load_code_change_catalog_from_root(TYCOON_SOURCE_DIR);
  for (auto s : balanced_levels()) {
    if (s.kind != game::ScenarioKind::kCampaign) continue;
    REQUIRE(s.seed != kUnseenSeed);
    s.seed = kUnseenSeed;
    auto t = advisor::balance_table(s, test::catalog(), changes, strategies);
    std::printf("seed %llu: %s", static_cast<unsigned long long>(s.seed), advisor::balance_markdown({t}).c_str());
    CAPTURE(s.id);
    const auto* accept = t.find("accept-all");
    const auto* reject = t.find("reject-all");
    const auto* verify = t.find("verify-then-decide");
    REQUIRE(accept->applicable);
    CHECK(verify->score.points - accept->score.points >= kCheckingPaysPoints);
    CHECK(verify->score.points - reject->score.points >= kCheckingPaysPoints);
    CHECK(reject->score.stars <= 2);
  }
}

TEST_CASE("scripted strategies only use commands the game accepts") {
  for (const auto& s : balanced_levels()) {
    std::vector<std::pair<std::string, std::vector<game::LoggedCommand>>> scripts;
    scripts.emplace_back("naive", game::read_command_log(fs::path(TYCOON_SOURCE_DIR) / "scenarios" / "strategies" /
                                                         s.id / "naive.jsonl"));
    REQUIRE(s.reference_strategy);
    scripts.emplace_back("reference", s.reference_strategy->commands);
    for (const auto& [name, log] : scripts) {
      const std::string& strategy = name;  // INFO captures it; clang 14 cannot capture a structured binding
      game::GameOptions o;
      o.windows = test::fixed_capacity_windows();
      game::Game g(s, test::catalog(), o);
      for (const auto& c : log) {
        INFO(s.id << " " << strategy << ": " << game::to_json(c.command).dump());
        if (c.at_hour > g.state().hour) g.advance(c.at_hour - g.state().hour);
        auto r = g.apply(c.command);
        INFO(r.message);
        CHECK(r.ok);
      }
    }
  }
}

TEST_CASE("level 1: at about a 10% gross margin, a 10% speedup nearly doubles gross profit") {
  // The inherited level-1 business and the same business with every GPU op and engine step 10%
  // faster (scenarios/analyst/speedup-10pct.json: same seed, same market, speedup 1.1).
  // Capacity-bound at a thin margin: 10% more tokens from the same rented GPUs adds about 10% of
  // revenue, which is about as much again as the whole gross profit.
  constexpr double kThinMarginLow = 0.07, kThinMarginHigh = 0.15;  // "about 10%"
  constexpr double kNearlyDoubles = 1.6;                           // measured: 1.7
  auto root = fs::path(TYCOON_SOURCE_DIR);
  auto base = game::load_scenario(game::find_scenario("campaign-01-thin-margin", root), test::catalog());
  auto fast = game::load_scenario(game::find_scenario("analyst-speedup-10pct", root), test::catalog());
  REQUIRE(fast.seed == base.seed);
  REQUIRE(fast.start_deployments.at(0).speedup == doctest::Approx(1.1));
  game::Game slow_game(base, test::catalog());
  slow_game.run_to_end();
  game::Game fast_game(fast, test::catalog());
  fast_game.run_to_end();
  auto slow = game::summarize(slow_game), quick = game::summarize(fast_game);
  double slow_gross = slow.revenue_usd - slow.gpu_cost_usd, fast_gross = quick.revenue_usd - quick.gpu_cost_usd;
  std::printf("\nlevel 1 gross margin %.3f, gross profit %.0f USD; 10%% faster: %.0f USD (x%.2f)\n", *slow.gross_margin,
              slow_gross, fast_gross, fast_gross / slow_gross);
  CHECK(*slow.gross_margin >= kThinMarginLow);
  CHECK(*slow.gross_margin <= kThinMarginHigh);
  CHECK(slow.gpu_cost_usd == doctest::Approx(quick.gpu_cost_usd));  // the same GPUs
  CHECK(fast_gross / slow_gross >= kNearlyDoubles);
  SUBCASE("while fixed costs turn the thin gross margin into a loss") { CHECK(slow.profit_usd < 0); }
}
