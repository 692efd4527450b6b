// Which engines a business can deploy is engine behaviour read from the card
// (`serves_production`), not a test of the id "torch-reference": the game refuses the
// calibration runner's engine, and the advisor's recipe search never proposes it.
#include <doctest/doctest.h>

#include <algorithm>

#include "sim/advisor/recipe_search.h"
#include "tests/game_test_util.h"

using namespace tycoon;

namespace {

bool proposes_engine(const data::Catalog& catalog, const game::DeploymentState& d, const std::string& engine) {
  const auto moves = advisor::recipe_neighbours(catalog, d);
  return std::any_of(moves.begin(), moves.end(),
                     [&](const advisor::RecipeMove& m) { return m.change.engine && *m.change.engine == engine; });
}

game::DeploymentState gpt_oss_state_on_h200() {
  game::DeploymentState d;
  d.id = 1;
  d.model = "gpt-oss-120b";
  d.chip = "h200";
  d.segment = "chat";
  d.recipe =
      game::default_recipe(test::catalog(), test::catalog().model("gpt-oss-120b"), test::catalog().accelerator("h200"));
  return d;
}

}  // namespace

TEST_CASE("the bundled cards: every serving engine serves production, the calibration runner's does not") {
  for (const auto& e : test::catalog().engines) {
    INFO(e.id);
    CHECK(e.serves_production == (e.id != "torch-reference"));
  }
}

TEST_CASE("the recipe search proposes only engines whose card says they serve production") {
  const auto d = gpt_oss_state_on_h200();
  REQUIRE(d.recipe.engine != "sglang");
  // As bundled: SGLang is proposed (it runs GPT-OSS on H200), the reference engine is not.
  CHECK(proposes_engine(test::catalog(), d, "sglang"));
  CHECK_FALSE(proposes_engine(test::catalog(), d, "torch-reference"));
  // The card decides: SGLang marked as not serving production is no longer proposed.
  data::Catalog edited = test::catalog();
  for (auto& e : edited.engines) {
    if (e.id == "sglang") e.serves_production = false;
  }
  CHECK_FALSE(proposes_engine(edited, d, "sglang"));
}

TEST_CASE("the game refuses to deploy an engine that does not serve production") {
  game::GameOptions o;
  o.windows = test::fixed_capacity_windows();
  game::Game g(test::scenario_from(test::flat_scenario_json()), test::catalog(), o);
  REQUIRE(g.apply(game::RentGpus{"h200", Contract::kOnDemand, 1}).ok);
  game::Deploy cmd{"gpt-oss-120b", "h200", {}, 1, {}, {}};
  cmd.recipe.engine = "torch-reference";
  auto r = g.apply(cmd);
  CHECK_FALSE(r.ok);
  CHECK(r.message.find("not a serving engine") != std::string::npos);
  CHECK(g.state().company.deployments.empty());
  cmd.recipe.engine = "vllm";
  CHECK(g.apply(cmd).ok);
}
