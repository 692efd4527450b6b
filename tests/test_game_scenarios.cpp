// The bundled scenarios load strictly, set up, round-trip through their resolved form, and the
// campaign covers the six lessons.
#include <doctest/doctest.h>

#include <set>

#include "sim/data/json_reader.h"
#include "sim/game/game.h"
#include "sim/game/scenario.h"
#include "tests/game_test_util.h"

using namespace tycoon;

namespace {

using test::contains;

std::string scenario_load_error(const nlohmann::json& j) {
  try {
    test::scenario_from(j);
  } catch (const data::LoadError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("every bundled scenario loads, starts, and survives its resolved round trip") {
  auto files = game::list_scenarios(TYCOON_SOURCE_DIR);
  REQUIRE(files.size() >= 12);
  std::set<std::string> ids;
  for (const auto& f : files) {
    INFO(f.string());
    auto s = game::load_scenario(f, test::catalog());
    CHECK(ids.insert(s.id).second);  // ids are unique
    CHECK_FALSE(s.goals.empty());
    CHECK_FALSE(s.briefing.empty());
    game::GameOptions o;
    o.windows = test::fixed_capacity_windows();
    CHECK_NOTHROW(game::Game(s, test::catalog(), o));
    auto resolved = game::to_json(s);
    auto again = game::scenario_from_json(resolved, "resolved.json", test::catalog());
    CHECK(game::to_json(again) == resolved);
  }
}

TEST_CASE("the campaign has six levels, one per lesson of the seed") {
  std::map<int, game::Scenario> levels;
  for (const auto& f : game::list_scenarios(TYCOON_SOURCE_DIR)) {
    auto s = game::load_scenario(f, test::catalog());
    if (s.kind == game::ScenarioKind::kCampaign) levels.emplace(*s.level, s);
  }
  REQUIRE(levels.size() >= 6);
  for (int l = 1; l <= 6; ++l) {
    INFO("level " << l);
    REQUIRE(levels.contains(l));
    CHECK_FALSE(levels.at(l).lesson.empty());
  }
  auto model_of = [&](int l) { return levels.at(l).segments.at(0).model; };
  CHECK(model_of(2) == "gpt-oss-120b");
  CHECK(levels.at(3).segments.at(0).workload.kind == serving::WorkloadKind::kAgenticCoding);
  CHECK(model_of(5) == "nemotron-3-ultra");
  CHECK(model_of(6) == "kimi-k3");
}

TEST_CASE("the other kinds exist: tutorial, sandbox, classroom with locks, analyst what-ifs") {
  std::map<game::ScenarioKind, int> kinds;
  bool locked_classroom = false;
  for (const auto& f : game::list_scenarios(TYCOON_SOURCE_DIR)) {
    auto s = game::load_scenario(f, test::catalog());
    ++kinds[s.kind];
    if (s.kind == game::ScenarioKind::kClassroom && !s.locked_levers.empty()) locked_classroom = true;
  }
  CHECK(kinds[game::ScenarioKind::kTutorial] >= 1);
  CHECK(kinds[game::ScenarioKind::kSandbox] >= 1);
  CHECK(kinds[game::ScenarioKind::kClassroom] >= 4);  // prices, contracts, a demand shift, advice
  CHECK(kinds[game::ScenarioKind::kAnalyst] >= 2);
  CHECK(locked_classroom);
}

TEST_CASE("scenarios are found by name, id or path") {
  auto root = std::filesystem::path(TYCOON_SOURCE_DIR);
  CHECK(game::find_scenario("default", root).filename() == "default.json");
  CHECK(game::find_scenario("01-thin-margin", root).filename() == "01-thin-margin.json");
  CHECK(game::find_scenario("campaign-01-thin-margin", root).filename() == "01-thin-margin.json");
  CHECK_THROWS_AS(game::find_scenario("no-such-level", root), data::UnknownIdError);
}

TEST_CASE("scenario files are strict: errors name the JSON pointer") {
  auto base = test::flat_scenario_json();
  auto with = [&](auto edit) {
    auto j = base;
    edit(j);
    return scenario_load_error(j);
  };
  CHECK(scenario_load_error(base) == "no error");
  CHECK(contains(with([](auto& j) { j["segments"][0]["demand"]["base_request_per_s"] = 1; }),
                 "/segments/0/demand/base_request_per_s: unknown key"));
  CHECK(contains(with([](auto& j) { j["market"][0]["chip"] = "h900"; }), "/market/0/chip: unknown accelerator"));
  CHECK(contains(with([](auto& j) { j["format_version"] = 2; }), "/format_version: scenario format 2 is newer"));
  CHECK(contains(with([](auto& j) { j["segments"][0]["model"] = "gpt-5"; }), "/segments/0/model"));
  CHECK(contains(with([](auto& j) { j["market"][1].erase("term_days"); }), "/market/1/term_days: missing"));
  CHECK(contains(with([](auto& j) { j["goals"] = nlohmann::json::array(); }), "/goals"));
  // The id names default saves (autosave-<id>.json): only [a-z0-9-], so never a path.
  for (const char* id : {"../../x", "/etc/passwd", "a b", "Test_Flat", "x';touch y;'"}) {
    CAPTURE(id);
    CHECK(contains(with([&](auto& j) { j["id"] = id; }), "test.json: /id: '"));
    CHECK(contains(with([&](auto& j) { j["id"] = id; }), "must be 1 to 64 characters of a-z, 0-9 and '-'"));
  }
  CHECK(contains(with([](auto& j) { j["market"][0]["price_usd_per_gpu_hour"] = 2.0; }), "price_source"));
  CHECK(contains(with([](auto& j) {
                   j["events"] = {{{"at_hour", 3}, {"kind", "demand"}, {"segment", "nope"}, {"multiplier", 2}}};
                 }),
                 "/events/0/segment"));
  SUBCASE("a starting deployment that does not fit names its place in the file") {
    auto j = base;
    j["start"] = {{"contracts", {{{"chip", "h200"}, {"contract", "on_demand"}, {"num_gpus", 1}}}},
                  {"deployments", {{{"model", "gpt-oss-120b"}, {"chip", "h200"}, {"replicas", 2}}}}};
    game::GameOptions o;
    o.windows = test::fixed_capacity_windows();
    try {
      game::Game g(test::scenario_from(j), test::catalog(), o);
      FAIL("expected a LoadError");
    } catch (const data::LoadError& e) {
      CHECK(contains(e.what(), "/start/deployments/0"));
    }
  }
}
