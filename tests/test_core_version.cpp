// The build's identity (sim/core/version.h): the version and the git commit, recorded in the files
// the program writes so that a result can be traced to its build, and never needed to read them.
#include <doctest/doctest.h>

#include <regex>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/core/version.h"
#include "sim/game/save.h"
#include "tests/game_test_util.h"

using namespace tycoon;

TEST_CASE("the version is MAJOR.MINOR.PATCH; the commit is what git describe said, or unknown") {
  CHECK(std::regex_match(std::string(core::version()), std::regex(R"(\d+\.\d+\.\d+)")));
  // `git describe --always --dirty`: an abbreviated hash (a tag, where there is one), "-dirty" when
  // tracked files had changes; "unknown" where the build had no git.
  const std::string commit(core::commit());
  CHECK(std::regex_match(commit, std::regex(R"(unknown|[0-9A-Za-z._+-]+)")));
  CHECK(core::version_line() == std::string(core::version()) + " (commit " + commit + ")");
  const auto j = core::build_json();
  CHECK(j.at("version") == std::string(core::version()));
  CHECK(j.at("commit") == commit);
}

TEST_CASE("a save records the build that wrote it, and loads the same when another build wrote it") {
  game::GameOptions o;
  o.windows = test::fixed_capacity_windows();
  game::Game g(test::scenario_from(test::flat_scenario_json(3.0)), test::catalog(), o);
  g.advance(5);
  const std::string text = game::save_text(g);
  auto j = nlohmann::json::parse(text);
  REQUIRE(j.contains(core::kWrittenByKey));
  CHECK(j[core::kWrittenByKey] == core::build_json());
  // Outside the checksummed payload: a save from another build, or from before the field, loads,
  // and resaving it gives this build's bytes.
  SUBCASE("another version and commit") {
    j[core::kWrittenByKey] = {{"version", "0.1.0"}, {"commit", "0000000-dirty"}};
  }
  SUBCASE("no record at all (saves made before 0.13.0)") { j.erase(std::string(core::kWrittenByKey)); }
  auto loaded = game::load_save_text(j.dump(1), "other-build.save", test::catalog());
  game::Game resumed(std::move(loaded.scenario), std::move(loaded.state), test::catalog());
  CHECK(game::save_text(resumed) == text);
}
