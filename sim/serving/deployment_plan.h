// The deployment plan: the one place a deployment — a model, one pool of replicas or a prefill
// and a decode pool, a recipe over the catalog's for each, an accepted code speedup, queue limits
// and a router — becomes the serving configuration the kernel runs. The game (a deployment-hour),
// the advisor (its profiles and benchmarks), the UI's previews and profiler, `tycoon benchmark`
// and sweeps all call resolve_plan; each then adds only its run: the workload, the arrivals and
// how long.
//
//   request (chips, overrides, replicas, speedup, queue limits)
//     └─ resolve_plan ─> DeploymentPlan { ServingConfig without the run, calibration }
//          └─ caller sets workload / arrival / duration ─> serving::simulate
//
// A rule about how a deployment runs (a recipe default, the decode pool's defaults, how a speedup
// tunes the chip, the KV link and its reach) is written here or below (resolve_serving), never in
// a caller.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "sim/data/catalog.h"
#include "sim/perf/calibration_profile.h"
#include "sim/serving/resolve_config.h"
#include "sim/serving/serving_sim.h"

namespace tycoon::serving {

// A chip, engine and calibration made `speedup` times faster in every GPU op and engine step
// (peaks and bandwidths × speedup, fixed latencies ÷ speedup): the "what if our code were 10%
// faster" lever and the effect of an accepted code change.
struct TunedHardware {
  data::Accelerator hardware;
  data::Engine engine;
  perf::CalibrationProfile calibration;
};
TunedHardware tuned_hardware(const data::Accelerator& hw, const data::Engine& engine,
                             const perf::CalibrationProfile& cal, double speedup);

// One pool's choices: its chip, the recipe fields it sets over the catalog recipe for
// (model, chip), and how many replicas serve.
struct PoolRequest {
  std::string chip;
  ServingOverrides recipe;
  int replicas = 1;
};

struct PlanRequest {
  const data::ModelCard* model = nullptr;  // must outlive the plan
  PoolRequest pool;                        // the whole deployment, or its prefill pool
  // Set: disaggregated serving. The decode pool's unset recipe fields follow decode_overrides.
  std::optional<PoolRequest> decode;
  KvLinkKind link = KvLinkKind::kInfiniband;
  double speedup = 1.0;  // an accepted code change: every pool's chip and engine tuned by it
  // Unset: SchedulerConfig's defaults. Both pools share them.
  std::optional<double> queue_timeout_s;
  std::optional<int> max_queue;
};

// The decode pool's recipe: the fields its request sets, then, for the rest, the prefill pool's
// choices. On the same chip every choice carries over; on another chip only those about the
// engine and the model (engine, KV precision, speculative decoding, CUDA graphs, page size, prefix
// caching, chunking, admission): parallelism, weight precision and batch limits are the decode
// chip's recipe's, since they are sized to a chip's memory and domain.
ServingOverrides decode_overrides(const ServingOverrides& prefill, const ServingOverrides& decode, bool same_chip);

// The calibration of a chip; resolve_plan asks for each pool's.
using CalibrationLookup = std::function<perf::CalibrationProfile(const data::Accelerator&)>;
// perf::calibration_for: the catalog's calibration file for the chip, else its datasheet.
CalibrationLookup catalog_calibrations(const data::Catalog& catalog);

class DeploymentPlan {
 public:
  // The configuration to run: deployment, scheduler, replicas, router and, when split, the decode
  // pool (with its own calibration when its chip differs or is tuned) and the KV link. Workload,
  // arrivals, run length and seed are the caller's.
  serving::ServingConfig config;
  // The (prefill) pool's calibration, tuned by the speedup.
  perf::CalibrationProfile calibration;
  const data::Recipe* recipe = nullptr;  // the catalog recipe of the (prefill) pool, if any
  double speedup = 1.0;

  // A closed-loop run of the plan: `concurrency` users, each sending its next request when an
  // answer ends (after the workload's own pauses between turns), at the plan's queue limits, for
  // `num_requests` requests. Sweeps run their points so.
  serving::ServingConfig closed_loop(const serving::WorkloadSpec& workload, int concurrency, std::int64_t num_requests,
                                     std::uint64_t seed) const;
  // A benchmark of the plan (the InferenceX way): `concurrency` closed-loop users, each sending
  // its next request as soon as an answer ends (no pauses: the batch is `concurrency` at any
  // engine speed), waiting for every answer (no queue timeout), for `num_requests` requests.
  serving::ServingConfig benchmark(const serving::WorkloadSpec& workload, int concurrency, std::int64_t num_requests,
                                   std::uint64_t seed) const;

  // Identity of a run of this plan: the complete simulated configuration in one canonical text
  // (`run` is config with the caller's run fields set). Two runs with the same identity give the
  // same summary; caches key on it.
  std::string identity(const serving::ServingConfig& run) const;

 private:
  friend DeploymentPlan resolve_plan(const data::Catalog&, const PlanRequest&, const CalibrationLookup&);
  // The tuned chips and engines config's pointers point into (shared: a plan copies cheaply).
  std::shared_ptr<const TunedHardware> tuned_, decode_tuned_;
};

// The plan of `request`. `calibrations` may be empty when the plan is only checked (can each pool
// run, can the link join them), never run: its calibrations are then left default. Throws core::InputError (a
// std::invalid_argument) naming the pool and the reason when a recipe cannot run, or the link cannot join the pools.
DeploymentPlan resolve_plan(const data::Catalog& catalog, const PlanRequest& request,
                            const CalibrationLookup& calibrations);

// The canonical text of a simulation: every field of `config` and the calibration that changes
// its result. Cache keys and the simulation tape's check use it.
std::string simulation_fingerprint(const serving::ServingConfig& config, const perf::CalibrationProfile& calibration);

}  // namespace tycoon::serving
