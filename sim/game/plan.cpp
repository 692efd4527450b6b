#include "sim/game/plan.h"

#include <algorithm>

#include "sim/game/tallies.h"

namespace tycoon::game {

double acceptance_for(const data::Catalog& catalog, const Scenario& scenario, const std::string& segment,
                      const std::string& model, const std::string& chip, const RecipeSettings& recipe) {
  const SegmentSpec* seg = scenario.find_segment(segment);
  if (seg && seg->spec_acceptance_per_token)
    return acceptance_length(*seg->spec_acceptance_per_token, recipe.spec_draft_tokens);
  if (const data::Recipe* r = catalog.find_recipe(model, chip); r && r->spec_decode) {
    return std::min(r->spec_decode->acceptance_length, recipe.spec_draft_tokens + 1.0);
  }
  return 1.0;
}

double preview_speedup(const GameState& state, const DeploymentState& d) {
  return claimed_code_changes(state.inbox, d.id).claimed_speedup;
}

double acceptance_for(const data::Catalog& catalog, const Scenario& scenario, const DeploymentState& d) {
  return acceptance_for(catalog, scenario, d.segment, d.model, d.chip, d.recipe);
}

RecipeSettings decode_pool_recipe(const data::Catalog& catalog, const data::ModelCard& model,
                                  const data::Accelerator& decode_chip, const RecipeSettings& prefill,
                                  const serving::ServingOverrides& overrides) {
  RecipeSettings base = default_recipe(catalog, model, decode_chip);
  base.engine = prefill.engine;
  return apply_overrides(base, overrides);
}

serving::PlanRequest plan_request(const data::Catalog& catalog, const Scenario& scenario, const DeploymentState& d,
                                  int replicas, int decode_replicas) {
  serving::PlanRequest r;
  r.model = &catalog.model(d.model);
  r.pool.chip = d.chip;
  r.pool.recipe = serving_overrides(catalog, d.model, d.chip, d.recipe, acceptance_for(catalog, scenario, d));
  r.pool.replicas = replicas;
  if (d.decode) {
    const auto& p = *d.decode;
    serving::PoolRequest decode;
    decode.chip = p.chip;
    // Every field of the decode pool's recipe is set: the game's pools never inherit.
    decode.recipe = serving_overrides(catalog, d.model, p.chip, p.recipe,
                                      acceptance_for(catalog, scenario, d.segment, d.model, p.chip, p.recipe));
    decode.replicas = decode_replicas;
    r.decode = std::move(decode);
    r.link = p.link;
  }
  r.speedup = d.speedup;
  r.queue_timeout_s = scenario.serving.queue_timeout_s;
  r.max_queue = scenario.serving.max_queue;
  return r;
}

serving::DeploymentPlan plan_deployment(const data::Catalog& catalog, const Scenario& scenario,
                                        const DeploymentState& d, int replicas, int decode_replicas,
                                        const serving::CalibrationLookup& calibrations) {
  return serving::resolve_plan(catalog, plan_request(catalog, scenario, d, replicas, decode_replicas), calibrations);
}

}  // namespace tycoon::game
