// Golden scenarios: small scenarios run with their fixed seeds (and scripted commands) and their
// summaries compared with committed files in tests/golden/. A behaviour change anywhere in the
// simulator shows up here; updating a golden is a deliberate, reviewed act:
//   TYCOON_UPDATE_GOLDEN=1 build/tycoon_tests -tc='golden*'   (writes the files and fails on purpose)
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "sim/data/json_reader.h"
#include "sim/game/command.h"
#include "sim/game/summary.h"
#include "tests/game_test_util.h"

using namespace tycoon;
namespace fs = std::filesystem;

namespace {

// Same binary, same bytes; across compilers and libms, last-digit differences in pow/cos/exp.
constexpr double kGoldenTol = 1e-9;

void compare(const nlohmann::json& want, const nlohmann::json& got, const std::string& path) {
  INFO(path);
  if (want.is_number() && got.is_number()) {
    double w = want.get<double>(), g = got.get<double>();
    CHECK(std::abs(w - g) <= kGoldenTol * std::max(1.0, std::abs(w)));
  } else if (want.is_object() && got.is_object()) {
    CHECK(want.size() == got.size());
    for (auto it = want.begin(); it != want.end(); ++it) {
      REQUIRE(got.contains(it.key()));
      compare(it.value(), got[it.key()], path + "/" + it.key());
    }
  } else if (want.is_array() && got.is_array()) {
    REQUIRE(want.size() == got.size());
    for (std::size_t i = 0; i < want.size(); ++i) compare(want[i], got[i], path + "/" + std::to_string(i));
  } else {
    CHECK(want == got);
  }
}

void check_golden(const std::string& scenario, const std::string& strategy) {
  auto root = fs::path(TYCOON_SOURCE_DIR);
  auto s = game::load_scenario(game::find_scenario(scenario, root), test::catalog());
  game::Game g(s, test::catalog());
  if (strategy.empty()) {
    g.run_to_end();
  } else {
    REQUIRE(strategy == "reference");
    REQUIRE(s.reference_strategy);
    game::replay(g, s.reference_strategy->commands);
  }
  // The summary with its counterfactual runs: the score, the comparison and the gap are golden too.
  const auto cf = game::run_counterfactuals(s, g.state(), test::catalog());
  auto got = game::to_json(game::summarize(g, &cf));
  auto file = root / "tests" / "golden" / (s.id + (strategy.empty() ? "" : "." + strategy) + ".json");
  if (std::getenv("TYCOON_UPDATE_GOLDEN")) {
    fs::create_directories(file.parent_path());
    std::ofstream(file) << got.dump(2) << "\n";
    // Update mode never passes: a run with TYCOON_UPDATE_GOLDEN set (a stray variable in CI) would
    // otherwise rewrite every golden and report success. Review the diff, then run without it.
    FAIL_CHECK("updated " << file.string() << ": review the diff, then rerun without TYCOON_UPDATE_GOLDEN");
    return;
  }
  REQUIRE_MESSAGE(fs::exists(file), "no golden file " << file.string() << " (run with TYCOON_UPDATE_GOLDEN=1)");
  compare(data::parse_json_file(file), got, file.filename().string());
}

}  // namespace

TEST_CASE("golden: the tutorial played by its reference strategy") { check_golden("tutorial", "reference"); }

TEST_CASE("golden: the default scenario left alone") { check_golden("default", ""); }

TEST_CASE("golden: campaign level 1 with its reference strategy") {
  check_golden("campaign-01-thin-margin", "reference");
}
