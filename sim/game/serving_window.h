// Serving one deployment for one game hour: the only place the game calls the serving simulator.
//
// Each deployment-hour runs a sample window of the discrete-event simulation (open-loop Poisson
// arrivals at the hour's offered load) and scales its per-request results to the hour. Loads are
// rounded to geometric buckets (ServingSettings::load_bucket_step) and windows are cached by
// (deployment, replicas, workload, bucket, settings), so a month of game hours costs a few
// hundred windows. The cache is a pure memo: a result never depends on what was cached before.
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
#include "sim/serving/serving_sim.h"

namespace tycoon::game {

using ServingBackend =
    std::function<serving::ServingSummary(const serving::ServingConfig&, const perf::CalibrationProfile&)>;

// The serving simulator, serving::simulate.
ServingBackend simulator_backend();

// One deployment-hour to simulate. The deployment's pointers must stay valid during the call.
struct WindowSpec {
  perf::Deployment deployment;
  const perf::CalibrationProfile* calibration = nullptr;
  int replicas = 1;
  serving::WorkloadSpec workload;
  serving::SchedulerConfig scheduler;
  serving::RouterKind router = serving::RouterKind::kLeastOutstanding;
  double rate_per_s = 0;  // the hour's offered load on this deployment
  ServingSettings settings;
  std::uint64_t seed = 1;      // the game's seed
  std::string deployment_key;  // identifies deployment + replicas + speedup (see window_key)
  // Set: disaggregated serving. `deployment`, `calibration`, `scheduler` and `replicas` are then
  // the prefill pool's, and this holds the decode pool (its `replicas` the pool's active ones)
  // and the KV link.
  std::optional<serving::Disaggregation> disaggregated;
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

class ServingWindows {
 public:
  explicit ServingWindows(ServingBackend backend = simulator_backend());

  HourServing serve_hour(const WindowSpec& spec);

  std::int64_t windows_simulated() const { return windows_simulated_; }
  std::int64_t cache_hits() const { return cache_hits_; }
  double simulated_seconds() const { return simulated_seconds_; }

 private:
  struct Window {
    serving::ServingSummary summary;
    double rate_per_s = 0;
    double duration_s = 0;  // arrivals during [0, duration_s); counted after the warmup
  };
  // The window of `replicas` replicas (and `decode_replicas` in a disaggregated deployment's
  // decode pool) at `rate_per_s` in all.
  const Window& window(const WindowSpec& spec, int replicas, int decode_replicas, double rate_per_s);

  ServingBackend backend_;
  std::unordered_map<std::string, Window> cache_;
  std::int64_t windows_simulated_ = 0;
  std::int64_t cache_hits_ = 0;
  double simulated_seconds_ = 0;
};

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

}  // namespace tycoon::game
