// Building what-if simulations from the game's data: the deployment plan the game would run
// (game::plan_deployment: recipe, acceptance, speedup, queue limits, decode pool), at a load
// (the game's own window, game::window_of) or a concurrency the UI chooses.
#pragma once

#include <optional>
#include <string>

#include "sim/data/catalog.h"
#include "sim/game/scenario.h"
#include "sim/game/state.h"
#include "sim/perf/memory_plan.h"
#include "sim/serving/resolve_config.h"
#include "ui/previews.h"

namespace tycoon::ui {

// A deployment as the player could run it.
struct WhatIf {
  std::string model;
  std::string chip;
  std::string segment;
  game::RecipeSettings recipe;
  int replicas = 1;
  double speedup = 1.0;  // accepted code changes, at their claimed speedup (game::preview_speedup)
  // Set: disaggregated (the fields above are the prefill pool; its `replicas` are the decode
  // pool's replicas to simulate).
  std::optional<game::DecodePoolState> decode;
};

// Deployment `d` of `state` as a what-if, its accepted code changes at their claimed speedup
// (game::preview_speedup: a preview never shows their true effect).
WhatIf what_if_of(const game::GameState& state, const game::DeploymentState& d);
// The deployment as it runs now: its replicas with GPUs (DeploymentState::replicas_now); 0
// replicas for one scaled to none, which serves nothing and has nothing to preview.
WhatIf what_if_now(const game::GameState& state, const game::DeploymentState& d);

// Mean tokens per target step with speculative decoding for this segment's traffic (as the game
// computes it): the segment's per-token acceptance if given, else the catalog recipe's, else 1.
double acceptance_length_for(const game::Scenario& scenario, const data::Catalog& catalog, const WhatIf& w);

// Memory plan per GPU for the recipe, game::recipe_memory_plan (nullopt with `error` when it cannot
// run at all).
std::optional<perf::MemoryPlan> memory_plan_for(const game::Scenario& scenario, const data::Catalog& catalog,
                                                const WhatIf& w, std::string* error);

// The deployment plan of `w` as the game would run it (game::plan_deployment, the chips'
// calibrations from `previews`); the reason in `error` when it cannot run.
std::optional<serving::DeploymentPlan> plan_of(Previews& previews, const game::Scenario& scenario,
                                               const data::Catalog& catalog, const WhatIf& w, std::string* error);

// A stable text key of the choices in `w` plus `extra`: the deploy form's identity (a simulation
// is keyed by its plan's identity, not by this).
std::string what_if_key(const WhatIf& w, const std::string& extra);

// Open-loop Poisson arrivals at `rate_per_s` over the scenario's window settings: what the game
// simulates for an hour at that load. Throws std::invalid_argument when the deployment cannot run.
ServingJob open_loop_job(Previews& previews, const game::Scenario& scenario, const data::Catalog& catalog,
                         const WhatIf& w, double rate_per_s, std::uint64_t seed);

// Closed-loop benchmark at fixed `concurrency` (InferenceX style), for Pareto sweeps.
ServingJob closed_loop_job(Previews& previews, const game::Scenario& scenario, const data::Catalog& catalog,
                           const WhatIf& w, int concurrency, std::uint64_t seed);

}  // namespace tycoon::ui
