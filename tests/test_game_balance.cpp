// Balance, measured on the serving simulator: scripted strategies on every campaign level.
// Doing nothing, over-provisioning, and a sensible strategy (scenarios/strategies/<level>/); the
// sensible one must end clearly ahead, and at least one naive strategy must lose money or go
// bankrupt. Level 1 must make the thin-margin lesson felt.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>

#include "sim/game/command.h"
#include "sim/game/game.h"
#include "sim/game/summary.h"
#include "tests/game_test_util.h"

using namespace tycoon;
namespace fs = std::filesystem;

namespace {

// "Clearly ahead": at least this much more profit than the better naive strategy, in USD, and at
// least this share of that strategy's profit (whichever is larger).
constexpr double kClearlyAheadUsd = 300;
constexpr double kClearlyAheadShare = 0.25;

struct Outcome {
  double profit_usd = 0;
  bool bankrupt = false;
};

Outcome play(const game::Scenario& s, const std::string& strategy, std::shared_ptr<game::ServingWindows> windows) {
  game::GameOptions o;
  o.windows = std::move(windows);
  game::Game g(s, test::catalog(), o);
  fs::path log = fs::path(TYCOON_SOURCE_DIR) / "scenarios" / "strategies" / s.id / (strategy + ".jsonl");
  if (strategy != "do-nothing") {
    REQUIRE(fs::exists(log));
    // game::replay, checking each command: a scripted strategy whose commands are refused (on
    // the real serving simulator, not just the fixed-capacity stand-in below) tests nothing.
    for (const auto& c : game::read_command_log(log)) {
      if (g.finished()) break;
      if (c.at_hour > g.state().hour) g.advance(c.at_hour - g.state().hour);
      if (g.finished()) break;
      auto r = g.apply(c.command);
      INFO(s.id << " " << strategy << ": " << game::to_json(c.command).dump() << ": " << r.message);
      CHECK(r.ok);
    }
  }
  g.run_to_end();
  auto sum = game::summarize(g);
  return {sum.profit_usd, sum.bankrupt};
}

std::vector<game::Scenario> campaign() {
  std::vector<game::Scenario> out;
  for (const auto& f : game::list_scenarios(TYCOON_SOURCE_DIR)) {
    auto s = game::load_scenario(f, test::catalog());
    if (s.kind == game::ScenarioKind::kCampaign) out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return *a.level < *b.level; });
  return out;
}

}  // namespace

TEST_CASE("every campaign level: the sensible strategy ends clearly ahead; a naive one loses money") {
  auto levels = campaign();
  REQUIRE(levels.size() >= 6);
  std::printf("\n%-36s %14s %14s %14s\n", "level (profit, USD)", "do-nothing", "over-provision", "sensible");
  for (const auto& s : levels) {
    auto windows = std::make_shared<game::ServingWindows>();
    auto nothing = play(s, "do-nothing", windows);
    auto over = play(s, "over-provision", windows);
    auto sensible = play(s, "sensible", windows);
    auto mark = [](const Outcome& o) { return o.bankrupt ? " (bankrupt)" : ""; };
    std::printf("%-36s %9.0f%-5s %9.0f%-5s %9.0f%-5s\n", s.id.c_str(), nothing.profit_usd, mark(nothing),
                over.profit_usd, mark(over), sensible.profit_usd, mark(sensible));
    INFO(s.id << ": do-nothing " << nothing.profit_usd << ", over-provision " << over.profit_usd << ", sensible "
              << sensible.profit_usd);
    double best_naive = std::max(nothing.profit_usd, over.profit_usd);
    CHECK(sensible.profit_usd - best_naive >= std::max(kClearlyAheadUsd, kClearlyAheadShare * std::abs(best_naive)));
    CHECK(sensible.profit_usd > 0);
    CHECK_FALSE(sensible.bankrupt);
    bool a_naive_loses = nothing.profit_usd < 0 || over.profit_usd < 0 || nothing.bankrupt || over.bankrupt;
    CHECK(a_naive_loses);
  }
}

TEST_CASE("scripted strategies only use commands the game accepts") {
  for (const auto& s : campaign()) {
    for (const char* strategy : {"over-provision", "sensible"}) {
      auto log = game::read_command_log(fs::path(TYCOON_SOURCE_DIR) / "scenarios" / "strategies" / s.id /
                                        (std::string(strategy) + ".jsonl"));
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
