#include "ui/what_if.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "sim/game/deploy_checks.h"
#include "sim/game/game.h"
#include "sim/game/load_share.h"
#include "sim/game/plan.h"
#include "sim/game/recipe_alternatives.h"
#include "sim/game/slo.h"

namespace tycoon::ui {

WhatIf what_if_of(const game::GameState& state, const game::DeploymentState& d) {
  WhatIf w{d.model, d.chip, d.segment, d.recipe, std::max(1, d.replicas), game::preview_speedup(state, d), d.decode};
  if (w.decode) w.decode->replicas = std::max(1, w.decode->replicas);
  return w;
}

WhatIf what_if_now(const game::GameState& state, const game::DeploymentState& d) {
  WhatIf w = what_if_of(state, d);
  w.replicas = d.replicas_now();
  if (w.decode) w.decode->replicas = d.decode_replicas_now();
  return w;
}

double acceptance_length_for(const game::Scenario& scenario, const data::Catalog& catalog, const WhatIf& w) {
  return game::acceptance_for(catalog, scenario, w.segment, w.model, w.chip, w.recipe);
}

namespace {

// The what-if as the game's deployment state (what game::plan_deployment plans).
game::DeploymentState deployment_of(const WhatIf& w) {
  game::DeploymentState d;
  d.model = w.model;
  d.chip = w.chip;
  d.segment = w.segment;
  d.recipe = w.recipe;
  d.replicas = std::max(1, w.replicas);
  d.speedup = w.speedup;
  d.decode = w.decode;
  return d;
}

ServingJob planned(Previews& previews, const game::Scenario& scenario, const data::Catalog& catalog, const WhatIf& w) {
  const auto d = deployment_of(w);
  ServingJob job;
  job.plan =
      game::plan_deployment(catalog, scenario, d, d.replicas, d.decode ? std::max(1, d.decode->replicas) : 0,
                            [&previews](const data::Accelerator& chip) { return previews.calibration(chip.id); });
  job.config = job.plan.config;
  return job;
}

}  // namespace

std::optional<serving::DeploymentPlan> plan_of(Previews& previews, const game::Scenario& scenario,
                                               const data::Catalog& catalog, const WhatIf& w, std::string* error) {
  try {
    return planned(previews, scenario, catalog, w).plan;
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    return std::nullopt;
  }
}

std::optional<perf::MemoryPlan> memory_plan_for(const game::Scenario& scenario, const data::Catalog& catalog,
                                                const WhatIf& w, std::string* error) {
  try {
    return game::recipe_memory_plan(catalog, scenario, w.model, w.chip, w.segment, w.recipe);
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    return std::nullopt;
  }
}

std::string what_if_key(const WhatIf& w, const std::string& extra) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "|r%d|x%.6f|", w.replicas, w.speedup);
  std::string decode;
  if (w.decode) {
    decode = "decode|" + w.decode->chip + "|" + game::to_json(w.decode->recipe).dump() + "|r" +
             std::to_string(w.decode->replicas) + "|" +
             std::string(serving::kKvLinkNames[static_cast<std::size_t>(w.decode->link)]) + "|";
  }
  return w.model + "|" + w.chip + "|" + w.segment + "|" + game::to_json(w.recipe).dump() + buf + decode + extra;
}

ServingJob open_loop_job(Previews& previews, const game::Scenario& scenario, const data::Catalog& catalog,
                         const WhatIf& w, double rate_per_s, std::uint64_t seed) {
  // The game's own window for this deployment at this load (game::window_of): the slice it
  // simulates, its arrivals, span and seed.
  const game::SegmentSpec* seg = scenario.find_segment(w.segment);
  if (!seg) throw std::invalid_argument("no segment '" + w.segment + "' in the scenario");
  auto spec =
      game::WindowSpec::of(planned(previews, scenario, catalog, w).plan, *seg, scenario.serving, rate_per_s, seed);
  auto window = game::window_of(spec);
  if (!window) throw std::invalid_argument(rate_per_s > 0 ? "no replica serves" : "no traffic to serve now");
  return ServingJob{std::move(spec.plan), std::move(window->config)};
}

ServingJob closed_loop_job(Previews& previews, const game::Scenario& scenario, const data::Catalog& catalog,
                           const WhatIf& w, int concurrency, std::uint64_t seed) {
  const game::SegmentSpec* seg = scenario.find_segment(w.segment);
  if (!seg) throw std::invalid_argument("no segment '" + w.segment + "' in the scenario");
  ServingJob job = planned(previews, scenario, catalog, w);
  job.config = game::pareto_point(job.plan, *seg, concurrency, seed);
  return job;
}

}  // namespace tycoon::ui
