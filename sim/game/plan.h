// A game deployment as a deployment plan (serving::resolve_plan): its recipe (speculative
// decoding's acceptance from its segment's traffic), its decode pool, its accepted speedup and the
// scenario's queue limits. The game's hour, the advisor's runs, the UI's previews and profiler and
// the deploy command's checks all plan a deployment here, so each runs it the same way.
#pragma once

#include "sim/data/catalog.h"
#include "sim/game/scenario.h"
#include "sim/game/state.h"
#include "sim/serving/deployment_plan.h"

namespace tycoon::game {

// Mean tokens per target forward of `recipe` for `model` on `chip` serving `segment`'s traffic
// (the segment's acceptance curve, else the catalog recipe's acceptance capped at draft tokens + 1).
double acceptance_for(const data::Catalog& catalog, const Scenario& scenario, const std::string& segment,
                      const std::string& model, const std::string& chip, const RecipeSettings& recipe);
double acceptance_for(const data::Catalog& catalog, const Scenario& scenario, const DeploymentState& d);

// The recipe a new decode pool on `decode_chip` starts with: that chip's starting recipe
// (default_recipe) on the prefill pool's engine (both pools run one engine), with `overrides`.
RecipeSettings decode_pool_recipe(const data::Catalog& catalog, const data::ModelCard& model,
                                  const data::Accelerator& decode_chip, const RecipeSettings& prefill,
                                  const serving::ServingOverrides& overrides);

// The speedup a player-facing preview (the deploy form, the traffic and profiler panels, the
// Pareto chart) simulates deployment `d` with: the advisor's claims for its accepted code changes
// (claimed_code_changes), never their true effect (DeploymentState::speedup, the simulator's
// secret): otherwise accepting a change and opening the profiler would be a free, exact and
// instant check, and the paid ones pointless. The game's own hours use the truth.
double preview_speedup(const GameState& state, const DeploymentState& d);

// The plan request of deployment `d` with `replicas` replicas (and `decode_replicas` in its decode
// pool when it has one).
serving::PlanRequest plan_request(const data::Catalog& catalog, const Scenario& scenario, const DeploymentState& d,
                                  int replicas, int decode_replicas);

// The plan of `d`. `calibrations` may be empty when the plan is only checked (can it run, can the
// link join the pools), never run. Throws std::invalid_argument naming the reason.
serving::DeploymentPlan plan_deployment(const data::Catalog& catalog, const Scenario& scenario,
                                        const DeploymentState& d, int replicas, int decode_replicas,
                                        const serving::CalibrationLookup& calibrations);

}  // namespace tycoon::game
