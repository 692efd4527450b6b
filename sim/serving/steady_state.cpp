#include "sim/serving/steady_state.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "sim/metrics/sample_stats.h"
#include "sim/serving/simulation.h"

namespace tycoon::serving {

namespace {

constexpr double kSteadyNaN = std::numeric_limits<double>::quiet_NaN();
// Student's t, two-sided 95%, with kSteadyBatches − 1 = 9 degrees of freedom.
constexpr double kT975Dof9 = 2.262;
static_assert(kSteadyBatches == 10, "kT975Dof9 is t(0.975, 9): change both together");

double steady_p90_of(std::vector<double> v) {
  metrics::sort_samples(v);
  return metrics::percentile_of_sorted(v, 90);
}

std::string steady_fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// The counted, completed requests of a finished run in arrival order (request ids are handed
// out on arrival): their arrival instants, TTFTs and TPOTs (NaN with a single output token).
struct SteadySeries {
  std::vector<double> arrived_s, ttft_s, tpot_s;
};

SteadySeries steady_series_of(const Simulation& sim) {
  SteadySeries s;
  for (const Request& r : sim.requests()) {
    if (!r.counted || r.state != RequestState::kCompleted) continue;
    const double ttft = core::to_seconds(r.first_token_at - r.arrived_at);
    const double e2e = core::to_seconds(r.finished_at - r.arrived_at);
    s.arrived_s.push_back(core::to_seconds(r.arrived_at - core::kSimStart));
    s.ttft_s.push_back(ttft);
    s.tpot_s.push_back(r.num_output > 1 ? (e2e - ttft) / static_cast<double>(r.num_output - 1) : kSteadyNaN);
  }
  return s;
}

// The finite values of `v` from index `from` on, and for each the index it had in `v`.
std::vector<double> steady_finite_from(const std::vector<double>& v, std::size_t from,
                                       std::vector<std::size_t>* index) {
  std::vector<double> out;
  for (std::size_t i = from; i < v.size(); ++i) {
    if (!std::isfinite(v[i])) continue;
    out.push_back(v[i]);
    if (index) index->push_back(i);
  }
  return out;
}

std::string steady_percent(double share) { return steady_fixed(100 * share, 1) + "%"; }

}  // namespace

double PercentileInterval::relative() const { return value > 0 ? half_width / value : kSteadyNaN; }

MserCut mser5(std::span<const double> series) {
  const std::size_t m = series.size() / kMserBatch;
  MserCut out;
  if (m < 2) return out;
  std::vector<double> z(m);
  for (std::size_t j = 0; j < m; ++j) {
    double sum = 0;
    for (int k = 0; k < kMserBatch; ++k) sum += series[j * kMserBatch + static_cast<std::size_t>(k)];
    z[j] = sum / kMserBatch;
  }
  // Suffix sums give each cut's mean and squared deviation in one pass from the end.
  double best = std::numeric_limits<double>::infinity();
  std::size_t best_d = 0;
  double sum = 0, sum_sq = 0;
  std::vector<double> stat(m, kSteadyNaN);
  for (std::size_t d = m; d-- > 0;) {
    sum += z[d];
    sum_sq += z[d] * z[d];
    const double n = static_cast<double>(m - d);
    if (m - d < 2) continue;
    const double ss = std::max(0.0, sum_sq - sum * sum / n);
    stat[d] = ss / (n * n);
  }
  // The search stops at half the series (White, Cobb & Spratt's rule): near its end the statistic
  // of a few batches is small by chance. A least at that bound says the drift goes on.
  const std::size_t last = std::min(m / 2, m - 2);
  for (std::size_t d = 0; d <= last; ++d) {
    if (stat[d] < best) {  // the first least: the shortest cut among equals
      best = stat[d];
      best_d = d;
    }
  }
  out.cut = best_d * kMserBatch;
  out.past_half = best_d == last && last > 0;
  return out;
}

PercentileInterval p90_batch_means(std::span<const double> series, int batches) {
  PercentileInterval out;
  if (series.empty()) return out;
  out.value = steady_p90_of(std::vector<double>(series.begin(), series.end()));
  const std::size_t n = series.size();
  const std::size_t b = static_cast<std::size_t>(batches);
  if (batches < 2 || n < b * kSteadyMinPerBatch) return out;
  std::vector<double> p90s;
  for (std::size_t k = 0; k < b; ++k) {
    const std::size_t lo = k * n / b, hi = (k + 1) * n / b;
    p90s.push_back(steady_p90_of(std::vector<double>(series.begin() + static_cast<std::ptrdiff_t>(lo),
                                                     series.begin() + static_cast<std::ptrdiff_t>(hi))));
  }
  double mean = 0;
  for (double v : p90s) mean += v;
  mean /= static_cast<double>(b);
  double ss = 0;
  for (double v : p90s) ss += (v - mean) * (v - mean);
  const double sd = std::sqrt(ss / static_cast<double>(b - 1));
  out.half_width = kT975Dof9 * sd / std::sqrt(static_cast<double>(b));
  return out;
}

SteadyState judge_run(const Simulation& sim, const ServingConfig& config, const SteadyStateRule& rule) {
  SteadyState st;
  st.num_requests = config.num_requests;
  st.warmup_s = config.warmup_s;
  const SteadySeries s = steady_series_of(sim);
  if (s.ttft_s.empty()) {
    st.why_not = "no request completed after the warm-up";
    return st;
  }
  // The warm-up: the later of the two series' MSER-5 cuts, in requests.
  const MserCut ttft_cut = mser5(s.ttft_s);
  std::vector<std::size_t> tpot_index;
  const auto tpot_all = steady_finite_from(s.tpot_s, 0, &tpot_index);
  const MserCut tpot_cut = mser5(tpot_all);
  std::size_t cut = ttft_cut.cut;
  if (!tpot_all.empty() && tpot_cut.cut < tpot_index.size()) cut = std::max(cut, tpot_index[tpot_cut.cut]);
  st.warmup_requests = static_cast<std::int64_t>(cut);
  if (cut > 0) st.warmup_s = s.arrived_s[cut];
  const auto ttft = steady_finite_from(s.ttft_s, cut, nullptr);
  const auto tpot = steady_finite_from(s.tpot_s, cut, nullptr);
  st.measured_requests = static_cast<std::int64_t>(ttft.size());
  st.ttft_p90_s = p90_batch_means(ttft);
  st.tpot_p90_s = p90_batch_means(tpot);

  const std::int64_t total = static_cast<std::int64_t>(s.ttft_s.size());
  if (ttft_cut.past_half || (!tpot_all.empty() && tpot_cut.past_half)) {
    st.warmup_ended = false;
    st.why_not = "the warm-up has not ended: MSER-5's least lies at half the run (" + std::to_string(cut) + " of " +
                 std::to_string(total) + " requests), the latencies still drift";
    return st;
  }
  const std::int64_t need = static_cast<std::int64_t>(kSteadyBatches) * kSteadyMinPerBatch;
  if (st.measured_requests < need) {
    st.why_not = std::to_string(st.measured_requests) + " requests after the warm-up, fewer than the " +
                 std::to_string(need) + " a P90 interval needs (" + std::to_string(kSteadyBatches) + " batches of " +
                 std::to_string(kSteadyMinPerBatch) + ")";
    return st;
  }
  const double limit = rule.max_relative_half_width;
  std::string wide;
  auto check = [&](const PercentileInterval& p, const char* what) {
    if (!(p.value > 0)) return;  // nothing to be relative to (a single output token)
    if (!(p.relative() <= limit)) {
      wide += std::string(wide.empty() ? "" : "; ") + what + " ±" + steady_percent(p.relative()) + " > ±" +
              steady_percent(limit);
    }
  };
  check(st.ttft_p90_s, "P90 TTFT");
  if (!tpot.empty()) check(st.tpot_p90_s, "P90 TPOT");
  if (!wide.empty()) {
    st.why_not = "interval too wide after " + std::to_string(st.measured_requests) + " requests: " + wide;
    return st;
  }
  st.stationary = true;
  return st;
}

namespace {

ServingSummary run_steady_sim(const ServingConfig& c, const perf::CalibrationProfile& cal,
                              const ServingProgressObserver& progress, std::optional<Simulation>& sim) {
  sim.emplace(c, cal);
  sim->start();
  while (!sim->advance(kProgressEvents)) {
    if (progress) progress(sim->progress());
  }
  return sim->finish();
}

}  // namespace

SteadyRun run_and_judge(ServingConfig config, const perf::CalibrationProfile& calibration, const SteadyStateRule& rule,
                        const ServingProgressObserver& progress, bool cut_warmup) {
  SteadyRun out;
  std::optional<Simulation> sim;
  out.summary = run_steady_sim(config, calibration, progress, sim);
  out.steady = judge_run(*sim, config, rule);
  if (!cut_warmup || !out.steady.warmup_ended || out.steady.warmup_requests == 0) {
    // Nothing is cut: what the run reports counts from its own warm-up. A warm-up MSER-5 found
    // and the given one left in makes the reported P90s not the steady ones: said so.
    if (out.steady.warmup_ended && out.steady.warmup_requests > 0) {
      out.steady.stationary = false;
      out.steady.why_not = "its first " + std::to_string(out.steady.warmup_requests) +
                           " counted requests are a warm-up (MSER-5) that the given one leaves in: P90 TTFT " +
                           steady_fixed(1e3 * out.summary.ttft_s.p90, 1) + " ms with them, " +
                           steady_fixed(1e3 * out.steady.ttft_p90_s.value, 1) + " ms after them";
    }
    out.steady.warmup_requests = 0;
    out.steady.warmup_s = config.warmup_s;
    out.config = config;
    return out;
  }
  config.warmup_s = out.steady.warmup_s;
  out.config = config;
  sim.reset();
  out.summary = run_steady_sim(config, calibration, progress, sim);
  out.steady.num_runs = 2;
  return out;
}

std::int64_t default_max_requests(const ServingConfig& config) {
  return config.arrival.kind == ArrivalKind::kClosedLoop
             ? static_cast<std::int64_t>(kSteadyMaxRequestsPerUser) * config.arrival.concurrency
             : kSteadyMaxGrowth * config.num_requests;
}

namespace {

bool can_grow(const ServingConfig& config) {
  return config.num_requests > 0 && config.duration_s == 0 &&
         !(config.workload.kind == WorkloadKind::kTrace && config.workload.trace_timestamps);
}

// The requests a growing run may reach, and the count it starts with.
std::int64_t growth_cap(const ServingConfig& config, const SteadyStateRule& rule) {
  const std::int64_t cap = rule.max_requests > 0 ? rule.max_requests : default_max_requests(config);
  return std::max({cap, config.num_requests, 2 * kSteadyMinStartRequests});
}

std::int64_t growth_start(const ServingConfig& config, std::int64_t cap) {
  return std::min(cap, std::max(config.num_requests, kSteadyMinStartRequests));
}

}  // namespace

std::int64_t steady_requests_bound(const ServingConfig& config, const SteadyStateRule& rule) {
  // Without growth: one run, and again from the warm-up cut.
  if (!can_grow(config)) return 2 * (config.num_requests + config.warmup_requests);
  const std::int64_t cap = growth_cap(config, rule);
  std::int64_t n = growth_start(config, cap), total = 0;
  for (;;) {
    total += n + config.warmup_requests;
    if (n >= cap) break;
    n = std::min(cap, 2 * n);
  }
  return total + cap + config.warmup_requests;  // the re-run from the warm-up cut
}

SteadyRun run_to_steady_state(ServingConfig config, const perf::CalibrationProfile& calibration,
                              const SteadyStateRule& rule, const ServingProgressObserver& progress) {
  if (!can_grow(config)) {
    auto out = run_and_judge(config, calibration, rule, progress, true);
    if (!out.steady.stationary) out.steady.why_not += " (a run on a duration or a timed trace cannot grow)";
    return out;
  }
  const std::int64_t cap = growth_cap(config, rule);
  config.num_requests = growth_start(config, cap);
  const double given_warmup_s = config.warmup_s;
  int runs = 0;
  SteadyState st;
  for (;;) {
    std::optional<Simulation> sim;
    config.warmup_s = given_warmup_s;
    ServingSummary summary = run_steady_sim(config, calibration, progress, sim);
    ++runs;
    st = judge_run(*sim, config, rule);
    st.num_runs = runs;
    if (!st.stationary && config.num_requests < cap) {
      config.num_requests = std::min(cap, 2 * config.num_requests);
      continue;
    }
    if (!st.stationary) st.why_not += ", at the cap of " + std::to_string(cap) + " requests";
    if (!st.warmup_ended) {
      // A cut at half the run is no warm-up estimate: report the run as it ran.
      st.warmup_requests = 0;
      st.warmup_s = given_warmup_s;
    }
    if (st.warmup_requests == 0) return {config, std::move(summary), st};
    break;
  }
  // The same events again, counted from the cut: every figure is the post-warm-up window's.
  SteadyRun out;
  config.warmup_s = st.warmup_s;
  out.config = config;
  std::optional<Simulation> sim;
  out.summary = run_steady_sim(config, calibration, progress, sim);
  out.steady = st;
  out.steady.num_runs = runs + 1;
  return out;
}

std::string describe(const SteadyState& s) {
  auto pm = [](const PercentileInterval& p) {
    return std::isfinite(p.relative()) ? " ±" + steady_percent(p.relative()) : std::string(" (no interval)");
  };
  std::string text = s.stationary ? "stationary" : "NOT stationary: " + s.why_not;
  text += s.stationary ? ": " : " — ";
  text += s.warmup_requests > 0 ? "warm-up of " + std::to_string(s.warmup_requests) + " requests cut (to " +
                                      steady_fixed(s.warmup_s, 1) + " s)"
                                : std::string("no warm-up cut");
  text += ", P90 TTFT" + pm(s.ttft_p90_s) + ", P90 TPOT" + pm(s.tpot_p90_s) + " over " +
          std::to_string(s.measured_requests) + " requests";
  return text;
}

}  // namespace tycoon::serving
