#include "sim/game/serving_window.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

#include "sim/core/rng.h"
#include "sim/game/sim_tape.h"

namespace tycoon::game {

namespace {

std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// The text a window's seed is drawn from: the customers, never the deployment. Arrivals and
// request sizes come from the game's seed, the traffic shape, the window and the load, so two
// recipes (or a recipe with and without a code change, or another replica count) at the same load
// serve the same requests: common random numbers, and a change's effect in the game is the
// change's, not another draw of the traffic (issue 31: a x1.1 speedup "lost" money on another
// sample of the agentic sessions). It is not the cache key: that is the whole configuration.
std::string seed_key(const WindowSpec& s, double rate_per_s) {
  std::ostringstream os;
  os.precision(17);
  const auto& w = s.workload;
  const auto& g = s.settings;
  os << "|w" << static_cast<int>(w.kind) << ',' << w.input_tokens << ',' << w.output_tokens << ',' << w.trace_path
     << "|g" << g.window_s << ',' << g.warmup_s << ',' << g.min_window_requests << ',' << "|l" << rate_per_s << "|seed"
     << s.seed;
  return os.str();
}

}  // namespace

ServingBackend simulator_backend() {
  return [](const serving::ServingConfig& config, const perf::CalibrationProfile& cal) {
    return serving::simulate(config, cal);
  };
}

double bucket_rate_per_s(double rate_per_s, double step) {
  if (rate_per_s <= 0) return 0;
  double unit = std::log1p(step);
  return std::exp(std::round(std::log(rate_per_s) / unit) * unit);
}

ServingWindows::ServingWindows(ServingBackend backend) : backend_(std::move(backend)) {}

const ServingWindows::Window& ServingWindows::window(const WindowSpec& spec, int replicas, int decode_replicas,
                                                     double rate) {
  const std::string seed_text = seed_key(spec, rate);
  const auto& g = spec.settings;
  serving::ServingConfig config;
  config.deployment = spec.deployment;
  config.scheduler = spec.scheduler;
  config.replicas = replicas;
  config.router = spec.router;
  config.workload = spec.workload;
  if (spec.disaggregated) {
    config.disaggregated = spec.disaggregated;
    config.disaggregated->decode.replicas = decode_replicas;
  }
  config.arrival.kind = serving::ArrivalKind::kPoisson;
  config.arrival.rate_per_s = rate;
  config.warmup_s = g.warmup_s;
  // A window long enough to see min_window_requests arrivals, at most an hour.
  double counted_s = g.full_hour ? 3600.0 : std::min(3600.0, std::max(g.window_s, g.min_window_requests / rate));
  config.duration_s = g.warmup_s + counted_s;
  config.seed = core::hash_combine(spec.seed, fnv1a(seed_text));
  // The cache key: the complete configuration simulated, in the one canonical serialization the
  // simulation tape also uses (sim/game/sim_tape.h), after the deployment key (which names a
  // tuned chip's speedup, whose changed numbers the fingerprint does not all list).
  std::string key = spec.deployment_key + "|" + simulation_fingerprint(config, *spec.calibration);
  if (auto it = cache_.find(key); it != cache_.end()) {
    ++cache_hits_;
    return it->second;
  }
  Window w{backend_(config, *spec.calibration), rate, config.duration_s};
  ++windows_simulated_;
  simulated_seconds_ += config.duration_s;
  return cache_.emplace(std::move(key), std::move(w)).first->second;
}

HourServing ServingWindows::serve_hour(const WindowSpec& spec) {
  HourServing h;
  if (spec.rate_per_s <= 0) return h;
  const int decode_replicas = spec.disaggregated ? spec.disaggregated->decode.replicas : 0;
  if (spec.replicas <= 0 || (spec.disaggregated && decode_replicas <= 0)) {
    h.requests_offered = spec.rate_per_s * 3600.0;
    h.requests_failed = h.requests_offered;
    return h;
  }
  const auto& g = spec.settings;
  // Simulate a few replicas at their share of the load (bucketed per replica), then scale up. A
  // disaggregated deployment is simulated as the smallest slice with both pools in proportion
  // (prefill and decode replicas over their greatest common divisor), at that slice's share.
  int units = 1, sim_replicas = 0, sim_decode = 0;
  if (spec.disaggregated) {
    units = g.full_hour ? 1 : std::gcd(spec.replicas, decode_replicas);
    sim_replicas = spec.replicas / units;
    sim_decode = decode_replicas / units;
  } else {
    sim_replicas = g.full_hour ? spec.replicas : std::min(spec.replicas, g.max_simulated_replicas);
    units = spec.replicas;
  }
  const double per_unit = spec.rate_per_s / units;
  const double unit_rate = g.full_hour ? per_unit : bucket_rate_per_s(per_unit, g.load_bucket_step);
  double rate = spec.disaggregated ? unit_rate : unit_rate * sim_replicas;
  const Window& w = window(spec, sim_replicas, sim_decode, rate);
  const auto& s = w.summary;
  h.provenance = s.provenance;
  // The simulator counts every arrival (warmup included) in requests_*, but tokens and latencies
  // only for requests arriving after the warmup. Requests scale by the whole window, tokens by its
  // counted part; both from the bucket's load to the exact one. For multi-turn workloads (the
  // arrival rate is sessions per second) a request is one turn.
  double load = spec.rate_per_s / w.rate_per_s;  // bucket -> exact load, simulated -> all replicas
  double all_scale = 3600.0 / w.duration_s * load;
  double counted_scale = 3600.0 / (w.duration_s - g.warmup_s) * load;
  h.requests_offered = static_cast<double>(s.requests_arrived) * all_scale;
  if (s.requests_arrived > 0) {
    h.requests_completed =
        h.requests_offered * static_cast<double>(s.requests_completed) / static_cast<double>(s.requests_arrived);
  }
  h.requests_failed = h.requests_offered - h.requests_completed;
  h.tokens = {static_cast<double>(s.input_tokens) * counted_scale,
              static_cast<double>(s.cached_input_tokens) * counted_scale,
              static_cast<double>(s.output_tokens) * counted_scale};
  h.ttft_s = s.ttft_s;
  h.tpot_s = s.tpot_s;
  h.e2e_s = s.e2e_s;
  int gpus = spec.replicas * spec.deployment.tensor_parallel +
             (spec.disaggregated ? decode_replicas * spec.disaggregated->decode.deployment.tensor_parallel : 0);
  h.output_tok_per_s_per_gpu = h.tokens.output_tokens / 3600.0 / gpus;
  return h;
}

TunedHardware tuned_hardware(const data::Accelerator& hw, const data::Engine& engine,
                             const perf::CalibrationProfile& cal, double speedup) {
  TunedHardware t{hw, engine, cal};
  t.hardware.hbm_bandwidth_bytes_per_s *= speedup;
  t.hardware.dense_bf16_flop_per_s *= speedup;
  t.hardware.dense_fp8_flop_per_s *= speedup;
  t.hardware.dense_fp4_flop_per_s *= speedup;
  t.hardware.scale_up.bandwidth_bytes_per_s *= speedup;
  t.engine.iteration_overhead_s /= speedup;
  t.engine.per_sequence_overhead_s /= speedup;
  t.calibration.allreduce_latency_s /= speedup;
  t.calibration.kernel_floor_s /= speedup;
  t.calibration.eager_launch_s /= speedup;
  t.calibration.python_op_launch_s /= speedup;
  t.calibration.python_op_launch_tp_s /= speedup;
  t.calibration.python_op_launch_slowest_s /= speedup;
  t.calibration.python_op_launch_tp_slowest_s /= speedup;
  t.calibration.graph_kernel_gap_s /= speedup;
  return t;
}

}  // namespace tycoon::game
