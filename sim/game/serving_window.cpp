#include "sim/game/serving_window.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

#include "sim/core/rng.h"

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
// change's, not another draw of the traffic (with the deployment in the seed, a x1.1 speedup
// could "lose" money on another sample of the agentic sessions). It is not the cache key: that is the whole
// configuration.
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

std::optional<Window> window_of(const WindowSpec& spec) {
  const auto& plan = spec.plan.config;
  const int replicas = plan.replicas;
  const int decode_replicas = plan.disaggregated ? plan.disaggregated->decode.replicas : 0;
  if (spec.rate_per_s <= 0 || replicas <= 0 || (plan.disaggregated && decode_replicas <= 0)) return std::nullopt;
  const auto& g = spec.settings;
  Window w;
  int sim_replicas = 0, sim_decode = 0;
  if (plan.disaggregated) {
    w.units = g.full_hour ? 1 : std::gcd(replicas, decode_replicas);
    sim_replicas = replicas / w.units;
    sim_decode = decode_replicas / w.units;
  } else {
    sim_replicas = g.full_hour ? replicas : std::min(replicas, g.max_simulated_replicas);
    w.units = replicas;
  }
  const double per_unit = spec.rate_per_s / w.units;
  const double unit_rate = g.full_hour ? per_unit : bucket_rate_per_s(per_unit, g.load_bucket_step);
  w.rate_per_s = plan.disaggregated ? unit_rate : unit_rate * sim_replicas;

  auto& config = w.config;
  config = plan;
  config.replicas = sim_replicas;
  if (config.disaggregated) config.disaggregated->decode.replicas = sim_decode;
  config.workload = spec.workload;
  config.arrival.kind = serving::ArrivalKind::kPoisson;
  config.arrival.rate_per_s = w.rate_per_s;
  config.warmup_s = g.warmup_s;
  // A window long enough to see min_window_requests arrivals, at most an hour.
  double counted_s =
      g.full_hour ? 3600.0 : std::min(3600.0, std::max(g.window_s, g.min_window_requests / w.rate_per_s));
  config.duration_s = g.warmup_s + counted_s;
  config.seed = core::hash_combine(spec.seed, fnv1a(seed_key(spec, w.rate_per_s)));
  return w;
}

const serving::ServingSummary& ServingWindows::simulate(const WindowSpec& spec, const Window& w) {
  std::string key = spec.plan.identity(w.config);
  if (auto it = cache_.find(key); it != cache_.end()) {
    ++cache_hits_;
    return it->second;
  }
  auto summary = backend_(w.config, spec.plan.calibration);
  ++windows_simulated_;
  simulated_seconds_ += w.config.duration_s;
  return cache_.emplace(std::move(key), std::move(summary)).first->second;
}

HourServing ServingWindows::serve_hour(const WindowSpec& spec) {
  HourServing h;
  if (spec.rate_per_s <= 0) return h;
  const auto w = window_of(spec);
  if (!w) {
    h.requests_offered = spec.rate_per_s * 3600.0;
    h.requests_failed = h.requests_offered;
    return h;
  }
  const auto& g = spec.settings;
  const auto& s = simulate(spec, *w);
  const double duration_s = w->config.duration_s;
  h.provenance = s.provenance;
  // The simulator counts every arrival (warmup included) in requests_*, but tokens and latencies
  // only for requests arriving after the warmup. Requests scale by the whole window, tokens by its
  // counted part; both from the bucket's load to the exact one. For multi-turn workloads (the
  // arrival rate is sessions per second) a request is one turn.
  double load = spec.rate_per_s / w->rate_per_s;  // bucket -> exact load, simulated -> all replicas
  double all_scale = 3600.0 / duration_s * load;
  double counted_scale = 3600.0 / (duration_s - g.warmup_s) * load;
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
  const auto& plan = spec.plan.config;
  int gpus =
      plan.replicas * plan.deployment.tensor_parallel +
      (plan.disaggregated ? plan.disaggregated->decode.replicas * plan.disaggregated->decode.deployment.tensor_parallel
                          : 0);
  h.output_tok_per_s_per_gpu = h.tokens.output_tokens / 3600.0 / gpus;
  return h;
}

}  // namespace tycoon::game
