#include "ui/what_if.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "sim/game/game.h"
#include "sim/game/load_share.h"
#include "sim/game/slo.h"

namespace tycoon::ui {

WhatIf what_if_of(const game::DeploymentState& d) {
  WhatIf w{d.model, d.chip, d.segment, d.recipe, std::max(1, d.replicas), d.speedup, d.decode};
  if (w.decode) w.decode->replicas = std::max(1, w.decode->replicas);
  return w;
}

double acceptance_length_for(const game::Scenario& scenario, const data::Catalog& catalog, const WhatIf& w) {
  return game::acceptance_for(catalog, scenario, w.segment, w.model, w.chip, w.recipe);
}

std::optional<serving::ResolvedServing> resolve_serving(const game::Scenario& scenario, const data::Catalog& catalog,
                                                        const WhatIf& w, std::string* error) {
  try {
    return game::resolve_recipe(catalog, w.model, w.chip, w.recipe, acceptance_length_for(scenario, catalog, w));
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    return std::nullopt;
  }
}

std::optional<perf::Deployment> resolve_deployment(const game::Scenario& scenario, const data::Catalog& catalog,
                                                   const WhatIf& w, std::string* error) {
  auto r = resolve_serving(scenario, catalog, w, error);
  if (!r) return std::nullopt;
  return r->deployment;
}

std::optional<perf::MemoryPlan> memory_plan_for(const game::Scenario& scenario, const data::Catalog& catalog,
                                                const WhatIf& w, std::string* error) {
  auto d = resolve_deployment(scenario, catalog, w, error);
  if (!d) return std::nullopt;
  return perf::plan_memory(*d, w.recipe.max_num_batched_tokens, w.recipe.max_num_seqs);
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

namespace {

ServingJob base_job(Previews& previews, const game::Scenario& scenario, const data::Catalog& catalog, const WhatIf& w) {
  std::string error;
  auto resolved = resolve_serving(scenario, catalog, w, &error);
  if (!resolved) throw std::invalid_argument(error);
  auto* d = &resolved->deployment;
  const auto& engine = catalog.engine(w.recipe.engine);
  ServingJob job;
  job.calibration = previews.calibration(w.chip);
  if (w.speedup != 1.0) {
    auto tuned = std::make_shared<game::TunedHardware>(
        game::tuned_hardware(catalog.accelerator(w.chip), engine, job.calibration, w.speedup));
    d->hardware = &tuned->hardware;
    d->engine = &tuned->engine;
    job.calibration = tuned->calibration;
    job.tuned = std::move(tuned);
  }
  auto& c = job.config;
  c.deployment = *d;
  c.scheduler = resolved->scheduler;
  c.scheduler.queue_timeout_s = scenario.serving.queue_timeout_s;
  c.scheduler.max_queue = scenario.serving.max_queue;
  c.replicas = std::max(1, w.replicas);
  c.router = w.recipe.router;
  if (const game::SegmentSpec* seg = scenario.find_segment(w.segment)) c.workload = seg->workload;
  if (w.decode) {
    // The decode pool as the game runs it (game::resolve_disaggregation).
    game::DeploymentState probe;
    probe.model = w.model;
    probe.chip = w.chip;
    probe.segment = w.segment;
    probe.recipe = w.recipe;
    probe.replicas = c.replicas;
    probe.decode = *w.decode;
    c.disaggregated = game::resolve_disaggregation(catalog, scenario, probe, c.replicas, w.decode->replicas);
    auto& pool = c.disaggregated->decode;
    pool.scheduler.queue_timeout_s = scenario.serving.queue_timeout_s;
    pool.scheduler.max_queue = scenario.serving.max_queue;
    if (w.speedup != 1.0) {
      auto tuned = std::make_shared<game::TunedHardware>(
          game::tuned_hardware(catalog.accelerator(w.decode->chip), catalog.engine(w.decode->recipe.engine),
                               previews.calibration(w.decode->chip), w.speedup));
      pool.deployment.hardware = &tuned->hardware;
      pool.deployment.engine = &tuned->engine;
      pool.calibration = tuned->calibration;
      job.decode_tuned = std::move(tuned);
    } else if (w.decode->chip != w.chip) {
      pool.calibration = previews.calibration(w.decode->chip);
    }
  }
  return job;
}

}  // namespace

ServingJob open_loop_job(Previews& previews, const game::Scenario& scenario, const data::Catalog& catalog,
                         const WhatIf& w, double rate_per_s, std::uint64_t seed) {
  ServingJob job = base_job(previews, scenario, catalog, w);
  auto& c = job.config;
  // Like the game, simulate a few replicas at their share of the load: replicas behind one
  // router see alike traffic, and per-GPU and per-request numbers carry over.
  const int all = std::max(1, w.replicas);
  // A disaggregated deployment runs whole (its two pools in proportion).
  if (!c.disaggregated) c.replicas = std::min(all, std::max(1, scenario.serving.max_simulated_replicas));
  c.arrival.kind = serving::ArrivalKind::kPoisson;
  c.arrival.rate_per_s = std::max(rate_per_s, 1e-3) * c.replicas / all;
  // Enough arrivals to see the queue build (the game stretches its windows the same way), but
  // short enough to come back within a second or so.
  double window = std::min(scenario.serving.window_s, 180.0);
  const double min_requests = 120;
  if (c.arrival.rate_per_s * window < min_requests) window = std::min(1800.0, min_requests / c.arrival.rate_per_s);
  c.warmup_s = std::min(scenario.serving.warmup_s, 30.0);
  c.duration_s = c.warmup_s + window;
  c.seed = seed;
  return job;
}

ServingJob closed_loop_job(Previews& previews, const game::Scenario& scenario, const data::Catalog& catalog,
                           const WhatIf& w, int concurrency, std::uint64_t seed) {
  ServingJob job = base_job(previews, scenario, catalog, w);
  auto& c = job.config;
  c.arrival.kind = serving::ArrivalKind::kClosedLoop;
  c.arrival.concurrency = std::max(1, concurrency) * c.replicas;
  c.num_requests = std::max<std::int64_t>(3LL * c.arrival.concurrency, 24);
  c.scheduler.queue_timeout_s = 0;  // a benchmark waits
  c.scheduler.max_queue = 1 << 20;
  c.seed = seed;
  return job;
}

double current_rate_per_s(const game::Scenario& scenario, const game::GameState& state, const std::string& segment) {
  for (const auto& s : state.world.segments) {
    if (s.id == segment && s.last_offered_requests_per_s > 0) return s.last_offered_requests_per_s;
  }
  if (const auto* seg = scenario.find_segment(segment)) return seg->demand.base_requests_per_s;
  return 1.0;
}

double deployment_load_share(const game::GameState& state, const data::Catalog& catalog,
                             const game::DeploymentState& d) {
  return game::load_share(catalog, state.company, d);
}

double slo_share(const serving::ServingSummary& s, const game::SloTargets& slo) {
  double completed = static_cast<double>(s.requests_completed);
  double arrived = static_cast<double>(std::max<std::int64_t>(1, s.requests_completed + s.requests_failed));
  return game::share_within_slo(s.ttft_s, s.tpot_s, slo) * completed / arrived;
}

}  // namespace tycoon::ui
