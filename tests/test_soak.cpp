// The soak (sim/game/soak.h) as a specification: a short run finds nothing wrong and really
// exercises what it claims (bad commands, save/load mid-run, serving runs); its checks catch a
// state that breaks conservation.
#include <doctest/doctest.h>

#include <filesystem>

#include "sim/data/catalog.h"
#include "sim/game/game.h"
#include "sim/game/scenario.h"
#include "sim/game/soak.h"
#include "tests/test_common.h"

using namespace tycoon;

namespace {
using test::catalog;
}  // namespace

TEST_CASE("soak: 6 random runs (3 games of one day, 3 serving runs) keep every invariant") {
  game::SoakOptions o;
  o.runs = 6;
  o.seed = 20;
  o.max_days = 1;
  o.data_root = TYCOON_SOURCE_DIR;
  o.scratch = std::filesystem::temp_directory_path();
  const auto r = game::run_soak(o, catalog());
  for (const auto& v : r.violations) INFO(v);
  CHECK(r.violations.empty());
  CHECK(r.runs == 6);
  CHECK(r.game_runs == 3);
  CHECK(r.serving_runs == 3);
  CHECK(r.saves_lost == 0);
  // What the run must have exercised to mean anything (the draw with seed 20; a different draw
  // that skips one of these is a weaker soak, not a pass).
  CHECK(r.commands_refused > 0);
  CHECK(r.commands_malformed > 0);
  CHECK(r.save_loads > 0);
  CHECK(r.replays == 3);
  CHECK(r.requests_simulated > 0);
  CHECK(r.invariant_checks > 100);
}

TEST_CASE("soak: the same seed gives the same soak") {
  game::SoakOptions o;
  o.runs = 2;
  o.seed = 7;
  o.max_days = 1;
  o.data_root = TYCOON_SOURCE_DIR;
  o.scratch = std::filesystem::temp_directory_path();
  const auto a = game::run_soak(o, catalog());
  const auto b = game::run_soak(o, catalog());
  CHECK(a.commands_applied == b.commands_applied);
  CHECK(a.commands_refused == b.commands_refused);
  CHECK(a.game_hours == b.game_hours);
  CHECK(a.requests_simulated == b.requests_simulated);
  CHECK(a.invariant_checks == b.invariant_checks);
}

TEST_CASE("soak: the conservation checks catch a cent missing, a lost request and unbilled tokens") {
  const auto& cat = catalog();
  auto sc = game::load_scenario(std::filesystem::path(TYCOON_SOURCE_DIR) / "scenarios/default.json", cat);
  game::Game g(sc, cat, game::GameOptions{std::nullopt, 1, std::nullopt, nullptr});
  g.advance(3);
  CHECK(game::conservation_violations(g.state(), g.scenario()).empty());

  auto s = g.state();
  s.company.cash_usd -= 0.011;  // more than a cent (the tolerance)
  auto v = game::conservation_violations(s, g.scenario());
  REQUIRE(v.size() == 1);
  CHECK(v[0].find("cash ") == 0);

  s = g.state();
  s.service.requests_offered += 1;  // a request that neither completed nor failed
  v = game::conservation_violations(s, g.scenario());
  REQUIRE(v.size() == 1);
  CHECK(v[0].find("requests offered") == 0);

  s = g.state();
  s.service.tokens.output_tokens += 1000;  // served, never billed
  v = game::conservation_violations(s, g.scenario());
  REQUIRE(v.size() == 1);
  CHECK(v[0].find("tokens billed by model") == 0);
}
