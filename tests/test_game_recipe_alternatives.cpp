// The Pareto chart's alternatives (sim/game/recipe_alternatives.h): the deployment as it runs and
// the single-lever changes of its recipe that run and fit, each labelled.
#include <doctest/doctest.h>

#include "sim/game/game.h"
#include "sim/game/recipe_alternatives.h"
#include "tests/game_test_util.h"

using namespace tycoon;

TEST_CASE("the Pareto chart's alternatives: the recipe as it runs, then each single-lever change that fits") {
  auto g = test::flat_game(2.0, 2);
  const auto& d = g.state().company.deployments.front();
  // GPT-OSS-120B on H200 runs the catalog recipe: vLLM, fp4, TP1, 7 EAGLE-3 drafts.
  REQUIRE(game::describe(d.recipe) == "vllm fp4 TP1 spec 7");
  const auto alts = game::recipe_alternatives(g.catalog(), g.scenario(), g.state(), d);
  std::vector<std::string> labels;
  for (const auto& a : alts) labels.push_back(a.label);
  // fp4 on a chip without fp4 cores steps back to bf16, whose 234 GB do not fit one H200: left
  // out. Drafts off, and 3 instead of 7. TP2 fits the 8-GPU domain. The market offers no other chip.
  const std::vector<std::string> expected = {"current: vllm fp4 TP1 spec 7", "no speculative decoding",
                                             "speculative decoding, 3 drafts", "TP2"};
  CHECK(labels == expected);
  for (const auto& a : alts) CHECK(a.deployment.replicas == 1);
  CHECK(alts[3].deployment.recipe.tensor_parallel == 2);
}

TEST_CASE("another chip in the market: its starting recipe, without the accepted code changes") {
  auto j = test::flat_scenario_json();
  j["market"].push_back({{"chip", "b200"}, {"contract", "on_demand"}, {"available_gpus", 8}, {"lead_time_hours", 0}});
  j["start"] = {{"contracts", {{{"chip", "h200"}, {"contract", "on_demand"}, {"num_gpus", 1}}}},
                {"deployments", {{{"model", "gpt-oss-120b"}, {"chip", "h200"}, {"replicas", 1}}}}};
  game::GameOptions o;
  o.windows = test::fixed_capacity_windows();
  game::Game g(test::scenario_from(j), test::catalog(), o);
  game::DeploymentState d = g.state().company.deployments.front();
  d.speedup = 1.2;  // an accepted code change on H200
  const auto alts = game::recipe_alternatives(g.catalog(), g.scenario(), g.state(), d);
  REQUIRE_FALSE(alts.empty());
  const auto& last = alts.back();
  const auto& b200 = g.catalog().accelerator("b200");
  CHECK(last.deployment.chip == "b200");
  CHECK(last.deployment.speedup == 1.0);
  CHECK(last.deployment.recipe == game::default_recipe(g.catalog(), g.catalog().model("gpt-oss-120b"), b200));
  CHECK(last.label == "on " + b200.name + " (" + game::describe(last.deployment.recipe) + ")");
  // The current one keeps its speedup.
  CHECK(alts.front().deployment.speedup == 1.2);
}
