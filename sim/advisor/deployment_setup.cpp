#include "sim/advisor/deployment_setup.h"

#include <algorithm>

#include "sim/game/game.h"
#include "sim/game/slo.h"

namespace tycoon::advisor {

double acceptance_for(const data::Catalog& catalog, const game::Scenario& scenario, const game::DeploymentState& d,
                      const game::RecipeSettings& recipe) {
  game::DeploymentState with = d;
  with.recipe = recipe;
  return game::acceptance_for(catalog, scenario, with);
}

double last_rate_per_replica(const game::GameState& state, const game::DeploymentState& d) {
  for (auto it = state.deployment_history.rbegin(); it != state.deployment_history.rend(); ++it) {
    if (it->deployment_id != d.id) continue;
    int replicas = std::max(1, it->gpus_serving / std::max(1, d.recipe.tensor_parallel));
    return it->offered_requests_per_s / replicas;
  }
  return 0;
}

namespace {

// The advisor's runs are of one pool: the deployment's recipe (or a candidate in its place) on
// its prefill chip, aggregated.
game::DeploymentState with_recipe(const game::DeploymentState& d, const game::RecipeSettings& recipe) {
  game::DeploymentState one = d;
  one.recipe = recipe;
  one.decode.reset();
  return one;
}

}  // namespace

DeploymentSetup::DeploymentSetup(const data::Catalog& catalog, const game::Scenario& scenario,
                                 const game::DeploymentState& d, const game::RecipeSettings& recipe,
                                 const perf::CalibrationProfile& calibration, double rate_per_s_per_replica)
    : plan_(game::plan_deployment(catalog, scenario, with_recipe(d, recipe), 1, 0,
                                  [&calibration](const data::Accelerator&) { return calibration; })),
      settings_(scenario.serving),
      segment_(scenario.find_segment(d.segment)),
      recipe_(recipe),
      rate_per_s_per_replica_(rate_per_s_per_replica) {
  if (!segment_) throw std::logic_error("no segment '" + d.segment + "'");
}

serving::ServingConfig DeploymentSetup::window(std::uint64_t seed, const OpTimes& op_time_scale) const {
  auto w = game::window_of(
      game::WindowSpec::of(plan_, *segment_, settings_, std::max(rate_per_s_per_replica_, kMinOpenLoopRate), seed));
  // One replica and a load above zero: the game simulates a window.
  if (!w) throw std::logic_error("no window for a replica at a positive load");
  w->config.deployment.op_time_scale = op_time_scale;
  return std::move(w->config);
}

serving::ServingConfig DeploymentSetup::open_loop(double counted_s, std::uint64_t seed,
                                                  const OpTimes& op_time_scale) const {
  serving::ServingConfig c = plan_.config;
  c.deployment.op_time_scale = op_time_scale;
  c.workload = segment_->workload;
  c.arrival.kind = serving::ArrivalKind::kPoisson;
  c.arrival.rate_per_s = std::max(rate_per_s_per_replica_, kMinOpenLoopRate);
  c.warmup_s = std::min(30.0, counted_s / 4);
  c.duration_s = c.warmup_s + counted_s;
  c.seed = seed;
  return c;
}

serving::ServingConfig DeploymentSetup::benchmark(int concurrency, std::int64_t num_requests, std::uint64_t seed,
                                                  const OpTimes& op_time_scale) const {
  serving::ServingConfig c = plan_.benchmark(segment_->workload, concurrency, num_requests, seed);
  c.deployment.op_time_scale = op_time_scale;
  return c;
}

DeploymentProfile make_profile(const game::DeploymentState& d, const DeploymentSetup& setup,
                               const serving::ServingSummary& run) {
  DeploymentProfile p;
  p.deployment_id = d.id;
  p.model = d.model;
  p.chip = d.chip;
  p.segment = d.segment;
  p.recipe = game::describe(setup.recipe());
  p.workload = setup.segment().workload.kind;
  p.offered_requests_per_s_per_replica = setup.rate_per_s_per_replica();
  double total = 0;
  for (double t : run.time_by_op_s) total += t;
  for (std::size_t i = 0; i < perf::kNumOpClasses; ++i) p.time_share[i] = total > 0 ? run.time_by_op_s[i] / total : 0;
  p.output_tok_per_s_per_gpu = run.output_tok_per_s_per_gpu;
  p.slo_share = game::share_within_slo(run.ttft_s, run.tpot_s, setup.segment().slo);
  p.completed_share = run.requests_arrived > 0
                          ? static_cast<double>(run.requests_completed) / static_cast<double>(run.requests_arrived)
                          : 0;
  p.mean_running_seqs = run.mean_batch_size;
  p.window_requests = run.requests_completed;
  p.provenance = run.provenance;
  return p;
}

double amdahl_speedup(const OpTimes& time_share, const OpTimes& scale) {
  double t = 0;
  for (std::size_t i = 0; i < perf::kNumOpClasses; ++i) t += time_share[i] * scale[i];
  return t > 0 ? 1.0 / t : 1.0;
}

double goodput_per_gpu(const serving::ServingConfig& config, const serving::ServingSummary& s,
                       const game::SloTargets& slo) {
  const double counted_s = config.duration_s - config.warmup_s;
  const double emitted_s = s.simulated_time_s - config.warmup_s;  // until the last request ended
  if (counted_s <= 0 || emitted_s <= 0) return 0;
  const double tok_per_gpu = s.output_tok_per_s_per_gpu * emitted_s;  // emitted after the warmup
  return tok_per_gpu / counted_s * game::share_within_slo(s.ttft_s, s.tpot_s, slo);
}

}  // namespace tycoon::advisor
