// Saves: a loaded game continues exactly; corrupted or newer saves fail clearly; a failed save
// never destroys the previous one.
#include <doctest/doctest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "sim/game/save.h"
#include "sim/game/state_json.h"
#include "sim/game/summary.h"
#include "tests/game_test_util.h"

using namespace tycoon;
namespace fs = std::filesystem;

namespace {

using test::contains;

std::string read_save(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_save(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

struct SaveDir {
  fs::path path = fs::temp_directory_path() / ("tycoon-save-" + std::to_string(::getpid()));
  SaveDir() { fs::create_directories(path); }
  ~SaveDir() { fs::remove_all(path); }
};

game::Game noisy_game() {
  auto j = test::flat_scenario_json(3.0);
  j["segments"][0]["demand_noise"] = 0.1;
  j["market"][2]["interruptions_per_hour"] = 0.1;
  j["start"] = {{"contracts",
                 {{{"chip", "h200"}, {"contract", "on_demand"}, {"num_gpus", 1}},
                  {{"chip", "h200"}, {"contract", "spot"}, {"num_gpus", 2}}}},
                {"deployments", {{{"model", "gpt-oss-120b"}, {"chip", "h200"}, {"replicas", 3}}}}};
  game::GameOptions o;
  o.windows = test::fixed_capacity_windows(1.5);
  return game::Game(test::scenario_from(j), test::catalog(), o);
}

std::string save_load_error(const std::string& text) {
  try {
    game::load_save_text(text, "game.save", test::catalog());
  } catch (const game::SaveError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

// The state field by field through the structs' own equality (not through to_json, which would
// lose a field the same way on both sides): what a save must carry for the game to continue.
void check_same_state(const game::GameState& got, const game::GameState& want) {
  CHECK(got.scenario_id == want.scenario_id);
  CHECK(got.seed == want.seed);
  CHECK(got.hour == want.hour);
  CHECK(got.end_hour == want.end_hour);
  CHECK(got.finished == want.finished);
  CHECK(got.company.cash_usd == want.company.cash_usd);  // exact: doubles are written round-trip
  CHECK(got.company.contracts == want.company.contracts);
  CHECK(got.company.deployments == want.company.deployments);
  CHECK(got.company.prices == want.company.prices);
  CHECK(got.company.next_contract_id == want.company.next_contract_id);
  CHECK(got.company.next_deployment_id == want.company.next_deployment_id);
  CHECK(got.world.segments == want.world.segments);
  CHECK(got.world.reference_price_multiplier == want.world.reference_price_multiplier);
  CHECK(got.world.next_event == want.world.next_event);
  CHECK(got.ledger.totals().revenue_usd == want.ledger.totals().revenue_usd);
  CHECK(got.ledger.totals().gpu_cost_usd == want.ledger.totals().gpu_cost_usd);
  CHECK(got.history == want.history);
  CHECK(got.deployment_history == want.deployment_history);
  CHECK(got.news == want.news);
  CHECK(got.log.size() == want.log.size());
  CHECK(got.rng.demand == want.rng.demand);  // the streams' full state: the next draws are the same
  CHECK(got.rng.market == want.rng.market);
  CHECK(got.advisor.records == want.advisor.records);
}

TEST_CASE("a saved and loaded game continues exactly like the original") {
  SaveDir dir;
  auto original = noisy_game();
  original.advance(10);
  REQUIRE(original.apply(game::SetPrices{"gpt-oss-120b", 0.2, {}, {}}).ok);
  game::save_game(original, dir.path / "game.save");
  const std::string bytes = read_save(dir.path / "game.save");
  auto saved = game::load_save(dir.path / "game.save", test::catalog());
  // Known values: ten hours played (one history row each), the input price just set.
  CHECK(saved.state.hour == 10);
  CHECK(saved.state.company.prices.at("gpt-oss-120b").input_usd_per_mtok == 0.2);
  CHECK(saved.state.history.num_hours() == 10);
  check_same_state(saved.state, original.state());
  game::GameOptions o;
  o.windows = test::fixed_capacity_windows(1.5);
  game::Game resumed(std::move(saved.scenario), std::move(saved.state), test::catalog(), o);
  // A round trip through the bytes: the loaded game saves to the very same file.
  CHECK(game::save_text(resumed) == bytes);
  original.run_to_end();
  resumed.run_to_end();
  check_same_state(resumed.state(), original.state());
  // The summaries agree but for the serving-window cache's counters (this process's cache, which a
  // loaded game starts empty).
  auto summary = [](const game::Game& g) {
    auto j = game::to_json(game::summarize(g));
    j.erase("serving_window_cache_hits");
    j.erase("serving_windows_simulated");
    return j.dump();
  };
  CHECK(summary(resumed) == summary(original));
}

TEST_CASE("loading refuses damaged, foreign and newer saves with a clear message") {
  auto g = noisy_game();
  g.advance(2);
  const std::string good = game::save_text(g);
  REQUIRE(save_load_error(good) == "no error");

  SUBCASE("a changed number fails the checksum") {
    auto at = good.find("\"cash_usd\": ");
    REQUIRE(at != std::string::npos);
    std::string bad = good.substr(0, at + 12) + "1" + good.substr(at + 12);
    CHECK(contains(save_load_error(bad), "checksum mismatch"));
  }
  SUBCASE("a truncated file is not JSON") {
    CHECK(contains(save_load_error(good.substr(0, good.size() / 2)), "corrupted save (not valid JSON"));
  }
  SUBCASE("a newer version names both versions") {
    auto j = nlohmann::json::parse(good);
    j["version"] = game::kSaveVersion + 1;
    auto msg = save_load_error(j.dump());
    CHECK(contains(msg, "save version 3 was written by a newer Inference Tycoon"));
    CHECK(contains(msg, "reads versions up to 2"));
  }
  SUBCASE("another JSON file is not a save") {
    CHECK(contains(save_load_error("{\"id\": 3}"), "not an Inference Tycoon save"));
  }
  SUBCASE("consistent but invalid contents name the JSON pointer") {
    auto j = nlohmann::json::parse(good);
    j["payload"]["state"]["company"]["contracts"][0]["contract"] = "lease";
    j["checksum"] = game::checksum_of(j["payload"].dump());
    CHECK(contains(save_load_error(j.dump()), "/payload/state/company/contracts/0/contract"));
  }
}

TEST_CASE("a failed save leaves the previous save intact and no temp file behind") {
  SaveDir dir;
  auto path = dir.path / "game.save";
  auto g = noisy_game();
  g.advance(1);
  game::save_game(g, path);
  const auto before = read_save(path);
  g.advance(5);
  // A crash between writing the new file and putting it in place.
  CHECK_THROWS_AS(game::save_game(g, path, [](const fs::path&) { throw std::runtime_error("power cut"); }),
                  game::SaveError);
  CHECK(read_save(path) == before);
  CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()) == 1);  // no temp file left
  CHECK(game::load_save(path, test::catalog()).state.hour == 1);

  SUBCASE("a corrupted save on disk is reported and left as it is") {
    write_save(path, before.substr(0, 100));
    CHECK_THROWS_AS(game::load_save(path, test::catalog()), game::SaveError);
    CHECK(read_save(path) == before.substr(0, 100));
  }
  SUBCASE("a folder that does not exist") {
    // A write failure, not bad input: the CLI exits 1 for it after printing the run's summary.
    CHECK_THROWS_AS(game::save_game(g, dir.path / "missing" / "game.save"), game::SaveWriteError);
  }
  SUBCASE("the next good save replaces it atomically") {
    game::save_game(g, path);
    CHECK(game::load_save(path, test::catalog()).state.hour == 6);
  }
}

namespace {

// A save of `g` edited by `edit` (on its payload) with the checksum recomputed, as a cheater or a
// careless hand-edit would: the checksum passes, so only the contents' meaning can refuse it.
std::string tampered(const game::Game& g, const std::function<void(nlohmann::json&)>& edit) {
  auto j = nlohmann::json::parse(game::save_text(g));
  edit(j["payload"]);
  j["checksum"] = game::checksum_of(j["payload"].dump());
  return j.dump();
}

}  // namespace

TEST_CASE("a tampered save with a recomputed checksum is refused for values the game never produces") {
  auto g = noisy_game();
  g.advance(2);
  REQUIRE(save_load_error(tampered(g, [](nlohmann::json&) {})) == "no error");
  auto state = [](nlohmann::json& p) -> nlohmann::json& { return p["state"]; };

  SUBCASE("a negative price") {
    auto msg = save_load_error(tampered(
        g, [&](nlohmann::json& p) { state(p)["company"]["prices"]["gpt-oss-120b"]["output_usd_per_mtok"] = -5.0; }));
    CHECK(contains(msg,
                   "game.save: /payload/state/company/prices/gpt-oss-120b/output_usd_per_mtok: must not be negative"));
  }
  SUBCASE("a GPU count past an int (5e9 would wrap to a small or negative number)") {
    auto msg = save_load_error(tampered(
        g, [&](nlohmann::json& p) { state(p)["company"]["contracts"][0]["num_gpus"] = std::int64_t{5'000'000'000}; }));
    CHECK(contains(msg, "/payload/state/company/contracts/0/num_gpus: must be at most 1000000000"));
  }
  SUBCASE("an hour past the scenario's end (2 days: hour 48)") {
    auto msg = save_load_error(tampered(g, [&](nlohmann::json& p) { state(p)["hour"] = 100000; }));
    CHECK(contains(msg, "/payload/state/hour: 100000 is past the scenario's end (hour 48)"));
  }
  SUBCASE("an end hour that is not the scenario's") {
    auto msg = save_load_error(tampered(g, [&](nlohmann::json& p) { state(p)["end_hour"] = 100000; }));
    CHECK(contains(msg, "/payload/state/end_hour: 100000 is not the scenario's end"));
  }
  SUBCASE("a chip the catalog does not have") {
    auto msg =
        save_load_error(tampered(g, [&](nlohmann::json& p) { state(p)["company"]["contracts"][0]["chip"] = "h999"; }));
    CHECK(contains(msg, "/payload/state/company/contracts/0/chip: unknown chip 'h999'"));
  }
  SUBCASE("a model the catalog does not have, with file and pointer") {
    auto msg = save_load_error(
        tampered(g, [&](nlohmann::json& p) { state(p)["company"]["deployments"][0]["model"] = "gpt-9"; }));
    CHECK(contains(msg, "game.save: /payload/state/company/deployments/0/model: unknown model 'gpt-9'"));
  }
  SUBCASE("cash of +-1e308 (finite, and absurd)") {
    for (double cash : {1e308, -1e308}) {
      auto msg = save_load_error(tampered(g, [&](nlohmann::json& p) { state(p)["company"]["cash_usd"] = cash; }));
      CHECK(contains(msg, "/payload/state/company/cash_usd: must be a finite amount within +-1e13 USD"));
    }
  }
  SUBCASE("a scenario id that would become a path") {
    auto msg = save_load_error(tampered(g, [&](nlohmann::json& p) {
      p["scenario"]["id"] = "../../etc/x";
      state(p)["scenario_id"] = "../../etc/x";
    }));
    CHECK(contains(msg, "/id: '../../etc/x' must be 1 to 64 characters of a-z, 0-9 and '-'"));
  }
  SUBCASE("segments that are not the scenario's") {
    auto msg = save_load_error(
        tampered(g, [&](nlohmann::json& p) { state(p)["world"]["segments"] = nlohmann::json::array(); }));
    CHECK(contains(msg, "/payload/state/world/segments: 0 segments, the scenario has 1"));
  }
}

TEST_CASE("duplicate keys and deep nesting in a save are refused before the checksum, never a crash") {
  auto g = noisy_game();
  const std::string good = game::save_text(g);
  SUBCASE("a duplicate key (nlohmann would keep the last one silently)") {
    std::string dup = good;
    dup.insert(dup.find("\"version\""), "\"version\": 1, ");
    CHECK(contains(save_load_error(dup), "game.save: /version: duplicate key"));
  }
  SUBCASE("a payload nested 100,000 levels deep (the recursive checksum crashed on it)") {
    const std::string deep = R"({"format": "inference-tycoon-save", "version": 1, "checksum": "x", "payload": )" +
                             std::string(100000, '[') + std::string(100000, ']') + "}";
    CHECK(contains(save_load_error(deep), "nested deeper than 64 objects or arrays"));
  }
}

TEST_CASE("a save never writes through a planted symlink") {
  // The old writer opened a fixed "<path>.tmp" and followed links: a link planted there (or at
  // the save's path) made a save overwrite an unrelated file.
  SaveDir dir;
  const auto victim = dir.path / "victim.txt";
  write_save(victim, "precious");
  auto g = noisy_game();
  g.advance(1);
  SUBCASE("a link at the save's path is replaced, its target untouched") {
    fs::create_symlink(victim, dir.path / "game.save");
    game::save_game(g, dir.path / "game.save");
    CHECK(read_save(victim) == "precious");
    CHECK_FALSE(fs::is_symlink(dir.path / "game.save"));
    CHECK(game::load_save(dir.path / "game.save", test::catalog()).state.hour == 1);
  }
  SUBCASE("a link at the old temp name is never opened") {
    fs::create_symlink(victim, dir.path / "game.save.tmp");
    game::save_game(g, dir.path / "game.save");
    CHECK(read_save(victim) == "precious");
    CHECK(game::load_save(dir.path / "game.save", test::catalog()).state.hour == 1);
  }
}

TEST_CASE("a game's length: a new game's --days and a resumed save's --days follow one rule") {
  // A 3-day flat scenario whose reference strategy acts at hours 0, 30 and 60.
  auto j = test::flat_scenario_json(1.0);
  j["days"] = 3;
  j["reference_strategy"] = {
      {"description", "three price moves"},
      {"commands",
       {{{"at_hour", 0}, {"type", "rent_gpus"}, {"chip", "h200"}, {"contract", "on_demand"}, {"num_gpus", 1}},
        {{"at_hour", 30}, {"type", "rent_gpus"}, {"chip", "h200"}, {"contract", "on_demand"}, {"num_gpus", 1}},
        {{"at_hour", 60}, {"type", "rent_gpus"}, {"chip", "h200"}, {"contract", "on_demand"}, {"num_gpus", 1}}}}};
  const auto scenario = test::scenario_from(j);
  auto hours_of = [](const game::Scenario& s) {
    std::vector<std::int64_t> h;
    for (const auto& c : s.reference_strategy->commands) h.push_back(c.at_hour);
    return h;
  };

  SUBCASE("shortened to 2 days: the end is hour 48 and the command at hour 60 is dropped") {
    auto s = scenario;
    game::set_days(s, 2);
    CHECK(s.days == 2);
    CHECK(s.end_hour() == 48);
    CHECK(hours_of(s) == std::vector<std::int64_t>{0, 30});
    // A new game given GameOptions::days gets the same scenario.
    game::GameOptions o;
    o.days = 2;
    o.windows = test::fixed_capacity_windows();
    game::Game g(scenario, test::catalog(), o);
    CHECK(hours_of(g.scenario()) == std::vector<std::int64_t>{0, 30});
    CHECK(g.state().end_hour == 48);
  }
  SUBCASE("a command exactly at the new end never runs, so it goes too") {
    auto at_end = j;
    at_end["reference_strategy"]["commands"][1]["at_hour"] = 24;
    auto s = test::scenario_from(at_end);
    game::set_days(s, 1);  // end hour 24: the commands at 24 and 60 go, hour 0 stays
    CHECK(hours_of(s) == std::vector<std::int64_t>{0});
  }
  SUBCASE("a save resumed at hour 30") {
    game::GameOptions o;
    o.windows = test::fixed_capacity_windows();
    game::Game g(scenario, test::catalog(), o);
    g.advance(30);
    REQUIRE(g.state().hour == 30);
    game::SaveData saved{g.scenario(), g.state()};
    SUBCASE("shortened to 2 days: it ends at hour 48 and is not finished yet") {
      game::set_days(saved, 2);
      CHECK(saved.state.end_hour == 48);
      CHECK_FALSE(saved.state.finished);
      CHECK(hours_of(saved.scenario) == std::vector<std::int64_t>{0, 30});
    }
    SUBCASE("shortened to 1 day, before its hour: it resumes finished") {
      game::set_days(saved, 1);
      CHECK(saved.state.end_hour == 24);
      CHECK(saved.state.finished);
    }
    SUBCASE("lengthened to 5 days: it ends at hour 120 and every command stays") {
      game::set_days(saved, 5);
      CHECK(saved.state.end_hour == 120);
      CHECK_FALSE(saved.state.finished);
      CHECK(hours_of(saved.scenario) == std::vector<std::int64_t>{0, 30, 60});
    }
    SUBCASE("a bankrupt company stays finished whatever the length") {
      saved.state.company.bankrupt = true;
      game::set_days(saved, 5);
      CHECK(saved.state.finished);
    }
  }
}
