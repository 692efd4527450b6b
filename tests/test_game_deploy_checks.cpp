// Why the game refuses a deployment or a recipe change, asked before anything changes
// (sim/game/deploy_checks.h): the deploy form shows the refusal the command would give, word for
// word; the levers' ranges (sim/game/lever_limits.h) hold for the form and the command alike.
#include <doctest/doctest.h>

#include "sim/game/deploy_checks.h"
#include "sim/game/game.h"
#include "sim/game/lever_limits.h"
#include "tests/game_test_util.h"

using namespace tycoon;

namespace {

using test::contains;

game::CheckContext context(const game::Game& g) { return {g.catalog(), g.scenario(), g.state()}; }

}  // namespace

TEST_CASE("a deploy the fleet lacks GPUs for: only renting is missing, and the command says the same") {
  auto g = test::flat_game(2.0, 0);
  REQUIRE(g.apply(game::RentGpus{"h200", Contract::kOnDemand, 3}).ok);
  const game::Deploy deploy{"gpt-oss-120b", "h200", {}, 4, {}, {}};
  const auto refusal = game::check_deploy(context(g), deploy);
  REQUIRE(refusal.has_value());
  // 4 replicas x 1 GPU on a fleet of 3: one more to rent.
  CHECK(refusal->lacks_gpus);
  CHECK(contains(refusal->message, "need 4 x h200"));
  CHECK(contains(refusal->message, "3 unclaimed"));
  CHECK(contains(refusal->message, "rent 1 more"));
  const auto r = g.apply(deploy);
  CHECK_FALSE(r.ok);
  CHECK(r.message == refusal->message);

  SUBCASE("within the fleet: no refusal, and the deployment it would create") {
    game::DeploymentState d;
    CHECK_FALSE(game::check_deploy(context(g), {"gpt-oss-120b", "h200", {}, 3, {}, {}}, &d).has_value());
    CHECK(d.segment == "chat");
    CHECK(d.replicas == 3);
    CHECK(d.recipe ==
          game::default_recipe(g.catalog(), g.catalog().model("gpt-oss-120b"), g.catalog().accelerator("h200")));
  }
}

TEST_CASE("a recipe that does not fit is refused with the chip's memory and the numbers, not as a GPU shortage") {
  auto g = test::flat_game(2.0, 0);
  REQUIRE(g.apply(game::RentGpus{"h200", Contract::kOnDemand, 1}).ok);
  // 117e9 parameters in bf16 are about 234 GB: more than one 141 GB H200.
  game::Deploy deploy{"gpt-oss-120b", "h200", {}, 1, {}, {}};
  deploy.recipe.precision = Precision::kBf16;
  const auto refusal = game::check_deploy(context(g), deploy);
  REQUIRE(refusal.has_value());
  CHECK_FALSE(refusal->lacks_gpus);
  CHECK(refusal->message.rfind("Does not fit in " + g.catalog().accelerator("h200").name + " memory: ", 0) == 0);
  CHECK(contains(refusal->message, "GB"));
  CHECK(g.apply(deploy).message == refusal->message);
}

TEST_CASE("the levers' ranges: the command refuses a number outside them, the form clamps into them") {
  auto g = test::flat_game(2.0, 0);
  REQUIRE(g.apply(game::RentGpus{"h200", Contract::kOnDemand, 4}).ok);
  SUBCASE("max_num_seqs 5000 is past 4096") {
    game::Deploy deploy{"gpt-oss-120b", "h200", {}, 1, {}, {}};
    deploy.recipe.max_num_seqs = 5000;
    const auto refusal = game::check_deploy(context(g), deploy);
    REQUIRE(refusal.has_value());
    CHECK(refusal->message == "max_num_seqs 5000 is outside 1..4096");
    CHECK(g.apply(deploy).message == refusal->message);
  }
  SUBCASE("300 replicas are past 256") {
    const auto refusal = game::check_deploy(context(g), {"gpt-oss-120b", "h200", {}, 300, {}, {}});
    REQUIRE(refusal.has_value());
    CHECK(refusal->message == "replicas 300 is outside 1..256");
  }
  SUBCASE("scaling may go down to 0 but not past 256") {
    REQUIRE(g.apply(game::Deploy{"gpt-oss-120b", "h200", {}, 1, {}, {}}).ok);
    CHECK_FALSE(game::check_scale(context(g), {1, 0, std::nullopt}).has_value());
    CHECK(game::check_scale(context(g), {1, 257, std::nullopt})->message == "replicas 257 is outside 0..256");
  }
  SUBCASE("clamping: batch limits into their ranges") {
    game::RecipeSettings r;
    r.max_num_seqs = 10000;
    r.max_num_batched_tokens = 10;
    r.spec_draft_tokens = 12;
    const auto c = game::clamp_to_limits(r);
    CHECK(c.max_num_seqs == 4096);
    CHECK(c.max_num_batched_tokens == 64);
    CHECK(c.spec_draft_tokens == 8);
    CHECK_FALSE(game::recipe_limits_refusal(c).has_value());
  }
}

TEST_CASE("expert parallelism after a tensor-parallel change follows the game's rule: kept if it divides, else 1") {
  game::RecipeSettings r;
  r.tensor_parallel = 8;
  r.expert_parallel = 8;
  SUBCASE("TP 8 -> 4: EP 8 no longer divides it, so 1 (not min(8, 4) = 4)") {
    r.tensor_parallel = 4;
    CHECK(game::clamp_to_limits(r).expert_parallel == 1);
  }
  SUBCASE("EP 2 with TP 8 -> 4: 2 divides 4, kept") {
    r.expert_parallel = 2;
    r.tensor_parallel = 4;
    CHECK(game::clamp_to_limits(r).expert_parallel == 2);
  }
  SUBCASE("the command's overrides give the same") {
    serving::ServingOverrides o;
    o.tensor_parallel = 4;
    game::RecipeSettings form = r;
    form.tensor_parallel = 4;
    CHECK(game::apply_overrides(r, o) == game::clamp_to_limits(form));
  }
}

TEST_CASE("a recipe change the fleet lacks GPUs for is refused as a shortage, by the check and the command") {
  auto g = test::flat_game(2.0, 1);  // one H200, one replica on it
  serving::ServingOverrides o;
  o.tensor_parallel = 2;
  const auto refusal = game::check_change_recipe(context(g), 1, o, true);
  REQUIRE(refusal.has_value());
  // One replica at TP2 wants 2 GPUs; the deployment's own 1 is all there is.
  CHECK(refusal->lacks_gpus);
  CHECK(contains(refusal->message, "needs 2 x h200"));
  CHECK(g.apply(game::ChangeRecipe{1, o}).message == refusal->message);
}
