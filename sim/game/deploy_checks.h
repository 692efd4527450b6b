// Why the game refuses a deployment or a recipe change, worked out before anything changes: the
// Deploy and ChangeRecipe commands refuse with these, and the deploy form shows the same refusal
// before the player submits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sim/data/catalog.h"
#include "sim/game/command.h"
#include "sim/game/scenario.h"
#include "sim/game/state.h"
#include "sim/perf/memory_plan.h"

namespace tycoon::game {

// What a check reads: the catalog, the scenario and the state a command would apply to.
struct CheckContext {
  const data::Catalog& catalog;
  const Scenario& scenario;
  const GameState& state;
  bool player = true;  // false: the scenario's own starting setup, which no lever lock binds
};

// Why the game refuses a command. `lacks_gpus`: everything else would run, only the fleet lacks
// unclaimed GPUs (renting more fixes it).
struct Refusal {
  std::string message;
  bool lacks_gpus = false;
};

// How `recipe` fills one GPU of `chip` serving `model` for `segment`, as the game deploys it
// (weights, activations, runtime reserve, KV cache; whether it fits): the one memory-fit rule,
// behind recipe_refusal and the deploy form's view. Throws core::InputError or
// std::invalid_argument when the combination cannot run at all.
perf::MemoryPlan recipe_memory_plan(const data::Catalog& catalog, const Scenario& scenario, const std::string& model,
                                    const std::string& chip, const std::string& segment, const RecipeSettings& recipe);
// What is short in a plan that does not fit, without the plan's "does not fit: " lead.
std::string memory_shortfall(const perf::MemoryPlan& plan);

// Why `recipe` cannot serve `model` on `chip` for `segment` (an engine that is no serving engine,
// a combination that cannot run, weights and KV cache that do not fit), or nothing.
std::optional<std::string> recipe_refusal(const data::Catalog& catalog, const Scenario& scenario,
                                          const std::string& model, const std::string& chip, const std::string& segment,
                                          const RecipeSettings& recipe);

// Why the game refuses `c`, or nothing; then `*out` (when given) is the deployment it creates,
// without its id.
std::optional<Refusal> check_deploy(const CheckContext& ctx, const Deploy& c, DeploymentState* out = nullptr);

// Why the game refuses to give deployment `deployment_id` the recipe `o` makes of its own, or
// nothing; then `*out` (when given) is the new recipe. `check_locks`: false for an accepted or
// reverted proposal, which the player's locks do not bind.
std::optional<Refusal> check_change_recipe(const CheckContext& ctx, std::int64_t deployment_id,
                                           const serving::ServingOverrides& o, bool check_locks,
                                           RecipeSettings* out = nullptr);

// Why the game refuses `c`, or nothing.
std::optional<Refusal> check_scale(const CheckContext& ctx, const ScaleReplicas& c);

}  // namespace tycoon::game
