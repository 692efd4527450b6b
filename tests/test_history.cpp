// History before play: a scenario's `history_days` puts that many days of past
// traffic, prices and market on the charts at hour 0 (GameState::past), generated from the
// scenario and its seed by running its world with no player. Specified here: it is deterministic,
// it is only shown (the played period's accounting is the same with or without it), and saves
// keep it under their checksum.
#include <doctest/doctest.h>

#include <cmath>

#include "sim/classroom/class_spec.h"
#include "sim/data/json_reader.h"
#include "sim/game/game.h"
#include "sim/game/save.h"
#include "sim/game/summary.h"
#include "tests/game_test_util.h"

using namespace tycoon;

namespace {

// The prices-only classroom level (demand noise 3%: a past with its own stream is visibly its
// own), one played day after two days of history.
constexpr int kHistoryDays = 2;
constexpr int kPlayedDays = 1;
// The past's cash is shifted to end at the starting cash; the shift is one subtraction and one
// addition on numbers near 1e12, so it lands within a few ulps of that size.
constexpr double kCashJoinTolUsd = 1e-3;

game::Scenario prices_only(int history_days) {
  auto s = game::load_scenario(game::find_scenario("classroom-prices-only", TYCOON_SOURCE_DIR), test::catalog());
  s.history_days = history_days;
  return s;
}

game::GameOptions options(std::uint64_t seed) {
  game::GameOptions o;
  o.days = kPlayedDays;
  o.seed = seed;
  return o;
}

}  // namespace

TEST_CASE("history: a scenario's past is N whole days, the same for the same seed, another for another seed") {
  game::Game a(prices_only(kHistoryDays), test::catalog(), options(7));
  game::Game b(prices_only(kHistoryDays), test::catalog(), options(7));
  game::Game c(prices_only(kHistoryDays), test::catalog(), options(8));
  const auto& past = a.state().past;
  REQUIRE(past.num_hours() == kHistoryDays * 24);
  CHECK(past.output_price_usd_per_mtok.size() == static_cast<std::size_t>(kHistoryDays * 24));
  CHECK(past.market_output_price_usd_per_mtok.size() == static_cast<std::size_t>(kHistoryDays * 24));
  CHECK(past.rent_usd_per_gpu_hour.size() == static_cast<std::size_t>(kHistoryDays * 24));
  CHECK(past.priced_model == a.scenario().segments.front().model);
  // Deterministic: a pure function of the scenario and its seed.
  CHECK(past == b.state().past);
  // Another seed, another past (the demand noise draws differ hour by hour).
  CHECK(past.series[game::Series::kRequestsOffered] != c.state().past.series[game::Series::kRequestsOffered]);
  // Real traffic, served and billed: requests were offered every hour and revenue was earned.
  for (double r : past.series[game::Series::kRequestsOffered]) CHECK(r > 0);
  double revenue = 0;
  for (double r : past.series[game::Series::kRevenueUsd]) revenue += r;
  CHECK(revenue > 0);
  // The prices on the chart are the scenario's starting ones (no player, no events in the past).
  const auto& model = past.priced_model;
  for (double p : past.output_price_usd_per_mtok)
    CHECK(p == a.scenario().starting_prices.at(model).output_usd_per_mtok);
  // The cash line joins hour 0: it ends at the starting cash.
  CHECK(std::abs(past.series[game::Series::kCashUsd].back() - a.scenario().company.starting_cash_usd) <=
        kCashJoinTolUsd);
  // The played game starts at hour 0 with nothing of its own yet.
  CHECK(a.state().hour == 0);
  CHECK(a.state().history.num_hours() == 0);
}

TEST_CASE("history: the past is shown, not counted: the played period is the same with or without it") {
  game::Game with(prices_only(kHistoryDays), test::catalog(), options(2026));
  game::Game without(prices_only(0), test::catalog(), options(2026));
  CHECK(without.state().past.empty());
  // The same commands in both: the level's reference strategy.
  const auto& commands = with.scenario().reference_strategy->commands;
  auto play = [&](game::Game& g) {
    std::size_t next = 0;
    while (!g.finished()) {
      for (; next < commands.size() && commands[next].at_hour <= g.state().hour; ++next)
        g.apply(commands[next].command);
      g.step();
    }
  };
  play(with);
  play(without);
  // Bit for bit: the played hours, the ledger and the summary do not see the past.
  CHECK(with.state().history == without.state().history);
  CHECK(with.state().ledger.totals().revenue_usd == without.state().ledger.totals().revenue_usd);
  CHECK(with.state().company.cash_usd == without.state().company.cash_usd);
  const auto sw = game::summarize(with), so = game::summarize(without);
  CHECK(sw.profit_usd == so.profit_usd);
  CHECK(sw.slo_attainment == so.slo_attainment);
}

TEST_CASE("history: a save keeps the past, under its checksum") {
  game::Game g(prices_only(kHistoryDays), test::catalog(), options(11));
  g.advance(3);
  const auto text = game::save_text(g);
  const auto loaded = game::load_save_text(text, "history.save", test::catalog());
  CHECK(loaded.state.past == g.state().past);
  CHECK(loaded.scenario.history_days == kHistoryDays);
  // The past is part of the checksummed payload: an edited past is a corrupted save.
  auto j = nlohmann::json::parse(text);
  auto& v = j["payload"]["state"]["past"]["series"]["revenue_usd"][0];
  v = v.get<double>() + 1;
  CHECK_THROWS_WITH_AS(game::load_save_text(j.dump(), "edited.save", test::catalog()),
                       doctest::Contains("checksum mismatch"), game::SaveError);
  // A game without history saves no past at all (older saves read and hash as before).
  game::Game plain(prices_only(0), test::catalog(), options(11));
  CHECK_FALSE(nlohmann::json::parse(game::save_text(plain))["payload"]["state"].contains("past"));
}

TEST_CASE("history: history_days is checked where it is written") {
  auto j = game::to_json(prices_only(0));
  CHECK_FALSE(j.contains("history_days"));  // absent: none, and the scenario hashes as it did
  SUBCASE("a scenario file: at most kMaxHistoryDays whole days") {
    j["history_days"] = game::kMaxHistoryDays + 1;
    CHECK_THROWS_WITH_AS(game::scenario_from_json(j, "s.json", test::catalog()), doctest::Contains("/history_days"),
                         data::LoadError);
    j["history_days"] = -1;
    CHECK_THROWS_AS(game::scenario_from_json(j, "s.json", test::catalog()), data::LoadError);
    j["history_days"] = 3;
    CHECK(game::scenario_from_json(j, "s.json", test::catalog()).history_days == 3);
  }
  SUBCASE("a class: the class's history_days replaces the scenario's, and is refused out of range") {
    classroom::ClassChoices c;
    c.class_id = "econ-101";
    c.days = kPlayedDays;
    c.history_days = 3;
    const auto spec = classroom::make_class(prices_only(0), c);
    REQUIRE(spec.history_days == 3);
    const auto back = classroom::class_from_json(classroom::to_json(spec), "econ-101.json");
    CHECK(back.history_days == 3);
    const auto world = classroom::class_world(back, "econ-101.json", test::catalog(), TYCOON_SOURCE_DIR);
    CHECK(world.scenario.history_days == 3);
    c.history_days = game::kMaxHistoryDays + 1;
    CHECK_THROWS_WITH_AS(classroom::make_class(prices_only(0), c), doctest::Contains("history days"),
                         std::invalid_argument);
    auto cj = classroom::to_json(spec);
    cj["history_days"] = game::kMaxHistoryDays + 1;
    CHECK_THROWS_WITH_AS(classroom::class_from_json(cj, "econ-101.json"), doctest::Contains("/history_days"),
                         data::LoadError);
  }
}
