// Saves: a loaded game continues exactly; corrupted or newer saves fail clearly; a failed save
// never destroys the previous one.
#include <doctest/doctest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/game/save.h"
#include "sim/game/state_json.h"
#include "tests/game_test_util.h"

using namespace tycoon;
namespace fs = std::filesystem;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("tycoon-save-" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
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

std::string load_error(const std::string& text) {
  try {
    game::load_save_text(text, "game.save", test::catalog());
  } catch (const game::SaveError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("a saved and loaded game continues exactly like the original") {
  TempDir dir;
  auto original = noisy_game();
  original.advance(10);
  original.apply(game::SetPrices{"gpt-oss-120b", 0.2, {}, {}});
  game::save_game(original, dir.path / "game.save");
  auto saved = game::load_save(dir.path / "game.save", test::catalog());
  CHECK(game::to_json(saved.state) == game::to_json(original.state()));
  game::GameOptions o;
  o.windows = test::fixed_capacity_windows(1.5);
  game::Game resumed(std::move(saved.scenario), std::move(saved.state), test::catalog(), o);
  original.run_to_end();
  resumed.run_to_end();
  CHECK(game::to_json(resumed.state()).dump() == game::to_json(original.state()).dump());
}

TEST_CASE("loading refuses damaged, foreign and newer saves with a clear message") {
  auto g = noisy_game();
  g.advance(2);
  const std::string good = game::save_text(g);
  REQUIRE(load_error(good) == "no error");

  SUBCASE("a changed number fails the checksum") {
    auto at = good.find("\"cash_usd\": ");
    REQUIRE(at != std::string::npos);
    std::string bad = good.substr(0, at + 12) + "1" + good.substr(at + 12);
    CHECK(contains(load_error(bad), "checksum mismatch"));
  }
  SUBCASE("a truncated file is not JSON") {
    CHECK(contains(load_error(good.substr(0, good.size() / 2)), "corrupted save (not valid JSON"));
  }
  SUBCASE("a newer version names both versions") {
    auto j = nlohmann::json::parse(good);
    j["version"] = game::kSaveVersion + 1;
    auto msg = load_error(j.dump());
    CHECK(contains(msg, "save version 2 was written by a newer Inference Tycoon"));
    CHECK(contains(msg, "reads versions up to 1"));
  }
  SUBCASE("another JSON file is not a save") {
    CHECK(contains(load_error("{\"id\": 3}"), "not an Inference Tycoon save"));
  }
  SUBCASE("consistent but invalid contents name the JSON pointer") {
    auto j = nlohmann::json::parse(good);
    j["payload"]["state"]["company"]["contracts"][0]["contract"] = "lease";
    j["checksum"] = game::checksum_of(j["payload"].dump());
    CHECK(contains(load_error(j.dump()), "/payload/state/company/contracts/0/contract"));
  }
}

TEST_CASE("a failed save leaves the previous save intact and no temp file behind") {
  TempDir dir;
  auto path = dir.path / "game.save";
  auto g = noisy_game();
  g.advance(1);
  game::save_game(g, path);
  const auto before = read(path);
  g.advance(5);
  // A crash between writing the new file and putting it in place.
  CHECK_THROWS_AS(game::save_game(g, path, [](const fs::path&) { throw std::runtime_error("power cut"); }),
                  game::SaveError);
  CHECK(read(path) == before);
  CHECK_FALSE(fs::exists(dir.path / "game.save.tmp"));
  CHECK(game::load_save(path, test::catalog()).state.hour == 1);

  SUBCASE("a corrupted save on disk is reported and left as it is") {
    write(path, before.substr(0, 100));
    CHECK_THROWS_AS(game::load_save(path, test::catalog()), game::SaveError);
    CHECK(read(path) == before.substr(0, 100));
  }
  SUBCASE("a folder that does not exist") {
    CHECK_THROWS_AS(game::save_game(g, dir.path / "missing" / "game.save"), game::SaveError);
  }
  SUBCASE("the next good save replaces it atomically") {
    game::save_game(g, path);
    CHECK(game::load_save(path, test::catalog()).state.hour == 6);
  }
}
