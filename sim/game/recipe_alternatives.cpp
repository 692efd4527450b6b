#include "sim/game/recipe_alternatives.h"

#include <algorithm>

#include "sim/game/deploy_checks.h"
#include "sim/game/lever_limits.h"

namespace tycoon::game {

std::vector<RecipeAlternative> recipe_alternatives(const data::Catalog& catalog, const Scenario& scenario,
                                                   const GameState& state, const DeploymentState& d) {
  std::vector<RecipeAlternative> out;
  DeploymentState base = d;
  base.replicas = 1;
  out.push_back({"current: " + describe(d.recipe), base});
  const auto* acc = catalog.find_accelerator(d.chip);
  const auto* engine = catalog.find_engine(d.recipe.engine);
  auto add = [&](std::string label, const DeploymentState& alt) {
    if (!recipe_refusal(catalog, scenario, alt.model, alt.chip, alt.segment, alt.recipe)) {
      out.push_back({std::move(label), alt});
    }
  };
  if (acc) {
    DeploymentState alt = base;
    if (d.recipe.precision == Precision::kBf16 && acc->supports(Precision::kFp8)) {
      alt.recipe.precision = Precision::kFp8;
      add("fp8 weights", alt);
    } else if (d.recipe.precision == Precision::kFp8 && acc->supports(Precision::kFp4)) {
      alt.recipe.precision = Precision::kFp4;
      add("fp4 weights", alt);
    } else if (d.recipe.precision != Precision::kBf16) {
      alt.recipe.precision = Precision::kBf16;
      add("bf16 weights", alt);
    }
  }
  if (engine && engine->supports_spec_decode) {
    DeploymentState alt = base;
    alt.recipe.spec_draft_tokens = d.recipe.spec_draft_tokens > 0 ? 0 : 3;
    add(d.recipe.spec_draft_tokens > 0 ? "no speculative decoding" : "speculative decoding, 3 drafts", alt);
    // With drafts on, another draft count too: how many drafts pay is a question of the traffic.
    if (d.recipe.spec_draft_tokens > 0) {
      alt.recipe.spec_draft_tokens = d.recipe.spec_draft_tokens == 3 ? 7 : 3;
      add("speculative decoding, " + std::to_string(alt.recipe.spec_draft_tokens) + " drafts", alt);
    }
  }
  if (const auto tps = acc ? tensor_parallel_choices(*acc) : std::vector<int>{};
      std::find(tps.begin(), tps.end(), d.recipe.tensor_parallel * 2) != tps.end()) {
    DeploymentState alt = base;
    alt.recipe.tensor_parallel *= 2;
    add("TP" + std::to_string(alt.recipe.tensor_parallel), alt);
  }
  const auto* model = catalog.find_model(d.model);
  for (const auto& o : state.world.market.offers) {
    if (o.chip == d.chip) continue;
    const auto* other = catalog.find_accelerator(o.chip);
    if (!model || !other) continue;
    DeploymentState alt = base;
    alt.chip = o.chip;
    alt.speedup = 1.0;
    alt.recipe = default_recipe(catalog, *model, *other);
    add("on " + other->name + " (" + describe(alt.recipe) + ")", alt);
    break;
  }
  return out;
}

serving::ServingConfig pareto_point(const serving::DeploymentPlan& plan, const SegmentSpec& segment, int concurrency,
                                    std::uint64_t seed) {
  const int users = std::max(1, concurrency) * plan.config.replicas;
  return plan.benchmark(segment.workload, users, pareto_requests(users), seed);
}

}  // namespace tycoon::game
