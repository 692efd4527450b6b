// A deployment as the game serves it — recipe, accepted code speedup, its segment's traffic and
// SLO — set up for the advisor's own runs of the serving simulator (profiles, recipe search,
// benchmarks), plus the profile: where the time goes on that traffic.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "sim/data/catalog.h"
#include "sim/game/scenario.h"
#include "sim/game/serving_window.h"
#include "sim/game/state.h"
#include "sim/perf/op_class.h"
#include "sim/serving/serving_sim.h"

namespace tycoon::advisor {

using OpTimes = game::OpTimes;

// The lowest arrival rate an open-loop run simulates (requests per second per replica).
inline constexpr double kMinOpenLoopRate = 0.05;

class DeploymentSetup {
 public:
  // `recipe` replaces the deployment's recipe (a candidate); `rate_per_s_per_replica` is the
  // offered load one replica sees. Throws std::invalid_argument when the recipe cannot run.
  DeploymentSetup(const data::Catalog& catalog, const game::Scenario& scenario, const game::DeploymentState& d,
                  const game::RecipeSettings& recipe, const perf::CalibrationProfile& calibration,
                  double rate_per_s_per_replica);
  DeploymentSetup(const DeploymentSetup&) = delete;
  DeploymentSetup& operator=(const DeploymentSetup&) = delete;

  // One replica's window by the game's own rule (game::window_of with the scenario's
  // ServingSettings): the load bucketed on the scenario's grid, the game's warmup and span, the
  // seed drawn from `seed` and the customers, never the deployment. With the game's seed, the
  // requests one replica of the deployment serves in the game's hour at this load.
  serving::ServingConfig window(std::uint64_t seed, const OpTimes& op_time_scale) const;
  // One replica under Poisson arrivals at the deployment's exact load for `counted_s` seconds
  // after a warmup: the recipe search's runs, whose window is its own option
  // (RecipeSearchOptions::window_s).
  serving::ServingConfig open_loop(double counted_s, std::uint64_t seed, const OpTimes& op_time_scale) const;
  // One replica at a fixed concurrency of `concurrency` users for `num_requests` requests: the
  // InferenceX-style benchmark (capacity, not load).
  serving::ServingConfig benchmark(int concurrency, std::int64_t num_requests, std::uint64_t seed,
                                   const OpTimes& op_time_scale) const;
  const perf::CalibrationProfile& calibration() const { return plan_.calibration; }
  // The plan's identity of a run of this setup (serving::DeploymentPlan::identity): a cache key.
  std::string identity(const serving::ServingConfig& run) const { return plan_.identity(run); }
  const game::SegmentSpec& segment() const { return *segment_; }
  const game::RecipeSettings& recipe() const { return recipe_; }
  double rate_per_s_per_replica() const { return rate_per_s_per_replica_; }

 private:
  serving::DeploymentPlan plan_;    // one replica, with the deployment's accepted speedup
  game::ServingSettings settings_;  // the scenario's window rule
  const game::SegmentSpec* segment_;
  game::RecipeSettings recipe_;
  double rate_per_s_per_replica_;
};

inline OpTimes unit_op_times() { return perf::Deployment::uniform_op_time_scale(); }

// Mean tokens per target forward on the segment's traffic: the game's game::acceptance_for with
// `recipe` in place of the deployment's.
double acceptance_for(const data::Catalog& catalog, const game::Scenario& scenario, const game::DeploymentState& d,
                      const game::RecipeSettings& recipe);

// Requests per second per replica the deployment was offered in its last simulated hour (0 when
// it has not served yet).
double last_rate_per_replica(const game::GameState& state, const game::DeploymentState& d);

// Where the time goes on one deployment's traffic.
struct DeploymentProfile {
  std::int64_t deployment_id = 0;
  std::string model, chip, segment, recipe;
  serving::WorkloadKind workload = serving::WorkloadKind::kRandom;
  double offered_requests_per_s_per_replica = 0;
  OpTimes time_share{};  // share of engine-step time per op class; sums to 1
  double output_tok_per_s_per_gpu = 0;
  double slo_share = 0;  // completed requests within the segment's SLO, estimated
  double completed_share = 0;
  // Sequences a replica runs at once at this load (the mean batch): the concurrency a benchmark
  // must keep busy to see the same batches, and so the same time shares, as the live traffic.
  double mean_running_seqs = 0;
  // Requests one replica completes in the game's window at this load (every turn of a session
  // counts): a canary hour serves as many.
  std::int64_t window_requests = 0;
  perf::Provenance provenance = perf::Provenance::kDatasheet;
};

DeploymentProfile make_profile(const game::DeploymentState& d, const DeploymentSetup& setup,
                               const serving::ServingSummary& run);

// Amdahl: the whole step's speedup when each op class's time is multiplied by `scale`.
double amdahl_speedup(const OpTimes& time_share, const OpTimes& scale);

// An open-loop run's worth on the game's terms: output tokens per GPU per second of *offered*
// traffic (arrivals' span, `duration_s − warmup_s`), times the share of requests within the SLO.
// Not the simulator's tok/s, which divides by the time until the last request drains: a recipe
// with lower latency drains sooner and looked up to ~30% "faster" on a 40 s window at the same
// load, although the game (which scales per-request outcomes to the hour) earns the same.
double goodput_per_gpu(const serving::ServingConfig& config, const serving::ServingSummary& s,
                       const game::SloTargets& slo);

}  // namespace tycoon::advisor
