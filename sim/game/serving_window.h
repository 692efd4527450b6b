// Serving one deployment for one game hour: the only place the game calls the serving simulator.
//
// Each deployment-hour runs a sample window of the discrete-event simulation (open-loop Poisson
// arrivals at the hour's offered load) and scales its per-request results to the hour. Loads are
// rounded to geometric buckets (ServingSettings::load_bucket_step) and windows are cached by the
// identity of the complete configuration simulated, so a month of game hours costs a few hundred
// windows. The cache is a pure memo: a result never depends on what was cached before.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>

#include "sim/econ/prices.h"
#include "sim/game/scenario.h"
#include "sim/perf/calibration_profile.h"
#include "sim/perf/deployment.h"
#include "sim/serving/deployment_plan.h"
#include "sim/serving/serving_sim.h"

namespace tycoon::game {

using ServingBackend =
    std::function<serving::ServingSummary(const serving::ServingConfig&, const perf::CalibrationProfile&)>;

// The serving simulator, serving::simulate.
ServingBackend simulator_backend();

// One deployment-hour to simulate.
struct WindowSpec {
  // The deployment (game::plan_deployment): its config's replicas, and its decode pool's when
  // split, are the ones serving this hour.
  serving::DeploymentPlan plan;
  serving::WorkloadSpec workload;
  double rate_per_s = 0;  // the hour's offered load on this deployment
  ServingSettings settings;
  std::uint64_t seed = 1;  // the game's seed

  // `plan` serving `segment`'s traffic at `rate_per_s` under the scenario's serving settings, with
  // the game's `seed`: the one way the game's hour, the advisor's checks and the UI's previews
  // describe a deployment-hour to simulate.
  static WindowSpec of(serving::DeploymentPlan plan, const SegmentSpec& segment, const ServingSettings& settings,
                       double rate_per_s, std::uint64_t seed) {
    return WindowSpec{std::move(plan), segment.workload, rate_per_s, settings, seed};
  }
};

// The hour's outcome at the exact offered load.
struct HourServing {
  double requests_offered = 0;
  double requests_completed = 0;
  double requests_failed = 0;
  econ::TokenCounts tokens;  // of completed requests
  serving::LatencyStats ttft_s, tpot_s, e2e_s;
  double output_tok_per_s_per_gpu = 0;
  perf::Provenance provenance = perf::Provenance::kDatasheet;
};

// The load a window is simulated at for an offered `rate_per_s`: the nearest point of the grid
// (1 + step)^n requests per second.
double bucket_rate_per_s(double rate_per_s, double step);

// The window rule: which slice of a deployment-hour is simulated, and how. A few replicas (at most
// ServingSettings::max_simulated_replicas) at their share of the load, bucketed per replica; a
// disaggregated deployment as its smallest slice with both pools in proportion (prefill and
// decode replicas over their greatest common divisor). The window lasts long enough to see
// min_window_requests arrivals, at most an hour, after the warmup. Its seed comes from the
// customers (the game's seed, the traffic, the window and the load), never the deployment, so two
// deployments at the same load serve the same requests.
struct Window {
  serving::ServingConfig config;  // the plan's, with the window's replicas, arrivals and span
  int units = 1;                  // the hour's deployment is `units` copies of the simulated slice
  double rate_per_s = 0;          // the simulated slice's load (bucketed)
};
// Unset when nothing is simulated: no load, or no replica serving.
std::optional<Window> window_of(const WindowSpec& spec);

class ServingWindows {
 public:
  explicit ServingWindows(ServingBackend backend = simulator_backend());

  HourServing serve_hour(const WindowSpec& spec);

  std::int64_t windows_simulated() const { return windows_simulated_; }
  std::int64_t cache_hits() const { return cache_hits_; }
  double simulated_seconds() const { return simulated_seconds_; }

 private:
  // The summary of window `w` of `spec`: simulated, or the cached one of the same identity.
  const serving::ServingSummary& simulate(const WindowSpec& spec, const Window& w);

  ServingBackend backend_;
  std::unordered_map<std::string, serving::ServingSummary> cache_;
  std::int64_t windows_simulated_ = 0;
  std::int64_t cache_hits_ = 0;
  double simulated_seconds_ = 0;
};

// The tuned chip of an accepted code change: the deployment plan's (sim/serving/deployment_plan.h).
using serving::tuned_hardware;
using serving::TunedHardware;

}  // namespace tycoon::game
