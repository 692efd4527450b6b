// Errors are classified: bad input throws core::InputError (the CLI exits 2),
// an internal fault std::logic_error / std::runtime_error (exit 1). The CLI side is in
// tests/cli_test.sh ("exit codes").
#include <doctest/doctest.h>

#include <stdexcept>

#include "sim/core/input_error.h"
#include "sim/game/recipe_settings.h"
#include "sim/serving/kv_cache.h"
#include "sim/traffic/arrivals.h"
#include "tests/game_test_util.h"

using namespace tycoon;

TEST_CASE("bad input is an InputError, still an std::invalid_argument for older catch sites") {
  const auto& cat = test::catalog();
  SUBCASE("a recipe with tensor parallelism 0") {
    auto r = game::default_recipe(cat, cat.model("gpt-oss-120b"), cat.accelerator("h200"));
    r.tensor_parallel = 0;
    CHECK_THROWS_AS(game::to_perf_deployment(cat, "gpt-oss-120b", "h200", r, 1.0), core::InputError);
    CHECK_THROWS_AS(game::to_perf_deployment(cat, "gpt-oss-120b", "h200", r, 1.0), std::invalid_argument);
  }
  SUBCASE("an arrival rate of zero") {
    traffic::ArrivalParams p;
    p.rate_per_s = 0;
    CHECK_THROWS_AS(traffic::ArrivalProcess(p, 1), core::InputError);
  }
}

TEST_CASE("an internal fault is not an input error") {
  // A KV cache of no blocks is a caller's bug (sizing guarantees at least one block): exit 1.
  bool logic = false, input = false;
  try {
    serving::KvCache kv(0, 16, false);
  } catch (const std::invalid_argument&) {
    input = true;
  } catch (const std::logic_error&) {
    logic = true;
  }
  CHECK(logic);
  CHECK_FALSE(input);
}
