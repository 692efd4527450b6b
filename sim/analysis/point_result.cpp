#include "sim/analysis/point_result.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>

#include "sim/econ/ledger.h"

namespace tycoon::analysis {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

nlohmann::json latency_json(const serving::LatencyStats& s) { return {s.mean, s.p50, s.p90, s.p99}; }

serving::LatencyStats latency_from(const nlohmann::json& j) {
  return {j.at(0).get<double>(), j.at(1).get<double>(), j.at(2).get<double>(), j.at(3).get<double>()};
}

nlohmann::json finite_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

double double_or_nan(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return kNaN;
  return j.at(key).get<double>();
}

}  // namespace

PointPerf PointPerf::from_summary(const serving::ServingSummary& s) {
  PointPerf p;
  p.output_tok_per_s_per_gpu = s.output_tok_per_s_per_gpu;
  // The simulator's tok/s/GPU is output tokens over its measured window; input tokens of the
  // same completed requests flow at the same window, so the ratio of counts scales it.
  p.input_tok_per_s_per_gpu = s.output_tokens > 0 ? s.output_tok_per_s_per_gpu * static_cast<double>(s.input_tokens) /
                                                        static_cast<double>(s.output_tokens)
                                                  : 0.0;
  p.p90_interactivity_tok_per_s_per_user = s.p90_interactivity_tok_per_s_per_user;
  p.ttft_s = s.ttft_s;
  p.tpot_s = s.tpot_s;
  p.e2e_s = s.e2e_s;
  p.requests_completed = s.requests_completed;
  p.requests_failed = s.requests_failed;
  p.input_tokens = s.input_tokens;
  p.cached_input_tokens = s.cached_input_tokens;
  p.output_tokens = s.output_tokens;
  p.simulated_time_s = s.simulated_time_s;
  p.mean_batch_size = s.mean_batch_size;
  p.num_gpus = s.num_gpus;
  p.provenance = s.provenance;
  return p;
}

PointPerf PointPerf::from_steady_run(const serving::SteadyRun& run) {
  PointPerf p = from_summary(run.summary);
  p.simulated_time_s = std::max(0.0, run.summary.simulated_time_s - run.config.warmup_s);
  p.stationary = run.steady.stationary;
  p.why_not_stationary = run.steady.why_not;
  p.warmup_s = run.config.warmup_s;
  p.num_requests_run = run.config.num_requests;
  p.ttft_p90_half_width_s = run.steady.ttft_p90_s.half_width;
  p.tpot_p90_half_width_s = run.steady.tpot_p90_s.half_width;
  return p;
}

nlohmann::json PointPerf::to_json() const {
  return {{"output_tok_per_s_per_gpu", output_tok_per_s_per_gpu},
          {"input_tok_per_s_per_gpu", input_tok_per_s_per_gpu},
          {"p90_interactivity", p90_interactivity_tok_per_s_per_user},
          {"ttft_s", latency_json(ttft_s)},
          {"tpot_s", latency_json(tpot_s)},
          {"e2e_s", latency_json(e2e_s)},
          {"requests_completed", requests_completed},
          {"requests_failed", requests_failed},
          {"input_tokens", input_tokens},
          {"cached_input_tokens", cached_input_tokens},
          {"output_tokens", output_tokens},
          {"simulated_time_s", simulated_time_s},
          {"mean_batch_size", mean_batch_size},
          {"num_gpus", num_gpus},
          {"provenance", std::string(perf::to_string(provenance))},
          {"error", error},
          {"stationary", stationary},
          {"why_not_stationary", why_not_stationary},
          {"warmup_s", warmup_s},
          {"num_requests_run", num_requests_run},
          {"ttft_p90_half_width_s", finite_or_null(ttft_p90_half_width_s)},
          {"tpot_p90_half_width_s", finite_or_null(tpot_p90_half_width_s)}};
}

// A count read from JSON. Converting a float outside the integer's range is undefined behaviour,
// so such a value (or a fraction) is refused (the sweep_journal fuzzer found it).
template <class Int>
Int count_from(const nlohmann::json& j, const char* key) {
  const auto& v = j.at(key);
  if (v.is_number_float()) {
    const double d = v.get<double>();
    const double lo = static_cast<double>(std::numeric_limits<Int>::min());
    if (!(d >= lo && d < -lo) || d != std::floor(d)) {
      throw std::invalid_argument(std::string(key) + ": not a whole number within range");
    }
  }
  return v.get<Int>();
}

PointPerf PointPerf::from_json(const nlohmann::json& j) {
  PointPerf p;
  p.output_tok_per_s_per_gpu = j.at("output_tok_per_s_per_gpu").get<double>();
  p.input_tok_per_s_per_gpu = j.at("input_tok_per_s_per_gpu").get<double>();
  p.p90_interactivity_tok_per_s_per_user = j.at("p90_interactivity").get<double>();
  p.ttft_s = latency_from(j.at("ttft_s"));
  p.tpot_s = latency_from(j.at("tpot_s"));
  p.e2e_s = latency_from(j.at("e2e_s"));
  p.requests_completed = count_from<std::int64_t>(j, "requests_completed");
  p.requests_failed = count_from<std::int64_t>(j, "requests_failed");
  p.input_tokens = count_from<std::int64_t>(j, "input_tokens");
  p.cached_input_tokens = count_from<std::int64_t>(j, "cached_input_tokens");
  p.output_tokens = count_from<std::int64_t>(j, "output_tokens");
  p.simulated_time_s = j.at("simulated_time_s").get<double>();
  p.mean_batch_size = j.at("mean_batch_size").get<double>();
  p.num_gpus = count_from<int>(j, "num_gpus");
  auto prov = parse_enum<perf::Provenance>(j.at("provenance").get<std::string>(), perf::kProvenanceNames);
  if (!prov) throw std::runtime_error("bad provenance");
  p.provenance = *prov;
  p.error = j.at("error").get<std::string>();
  // The steady-state verdict; a journal written before the rule has none (a point without it is
  // taken as it ran).
  p.stationary = j.value("stationary", true);
  p.why_not_stationary = j.value("why_not_stationary", std::string());
  p.warmup_s = j.value("warmup_s", 0.0);
  p.num_requests_run = j.contains("num_requests_run") ? count_from<std::int64_t>(j, "num_requests_run") : 0;
  p.ttft_p90_half_width_s = double_or_nan(j, "ttft_p90_half_width_s");
  p.tpot_p90_half_width_s = double_or_nan(j, "tpot_p90_half_width_s");
  return p;
}

PerfProblem check_point_perf(const PointPerf& p, int expected_gpus) {
  auto bad_double = [](double v) { return !std::isfinite(v) || v < 0; };
  const std::pair<const char*, double> doubles[] = {{"/output_tok_per_s_per_gpu", p.output_tok_per_s_per_gpu},
                                                    {"/input_tok_per_s_per_gpu", p.input_tok_per_s_per_gpu},
                                                    {"/p90_interactivity", p.p90_interactivity_tok_per_s_per_user},
                                                    {"/simulated_time_s", p.simulated_time_s},
                                                    {"/mean_batch_size", p.mean_batch_size}};
  for (const auto& d : doubles) {
    if (bad_double(d.second)) return {d.first, "must be a finite number >= 0"};
  }
  const std::pair<const char*, const serving::LatencyStats*> latencies[] = {
      {"/ttft_s", &p.ttft_s}, {"/tpot_s", &p.tpot_s}, {"/e2e_s", &p.e2e_s}};
  for (const auto& l : latencies) {
    const serving::LatencyStats& s = *l.second;
    if (bad_double(s.mean) || bad_double(s.p50) || bad_double(s.p90) || bad_double(s.p99)) {
      return {l.first, "latencies must be finite numbers >= 0"};
    }
    if (s.p50 > s.p90 || s.p90 > s.p99) return {l.first, "percentiles out of order (p50 <= p90 <= p99)"};
  }
  const std::pair<const char*, std::int64_t> counts[] = {{"/requests_completed", p.requests_completed},
                                                         {"/requests_failed", p.requests_failed},
                                                         {"/input_tokens", p.input_tokens},
                                                         {"/cached_input_tokens", p.cached_input_tokens},
                                                         {"/output_tokens", p.output_tokens}};
  for (const auto& c : counts) {
    if (c.second < 0) return {c.first, "must be >= 0"};
  }
  if (p.cached_input_tokens > p.input_tokens) {
    return {"/cached_input_tokens", "more cached input tokens than input tokens"};
  }
  if (p.num_gpus != expected_gpus) {
    return {"/num_gpus",
            "is " + std::to_string(p.num_gpus) + ", the point's deployment has " + std::to_string(expected_gpus)};
  }
  if (!p.error.empty() || p.simulated_time_s <= 0 || p.num_gpus <= 0) return {};
  // Agreement: the throughputs are the counts over the simulated time.
  char buf[200];
  const double claimed_tokens = p.output_tok_per_s_per_gpu * p.num_gpus * p.simulated_time_s;
  const auto out_tokens = static_cast<double>(p.output_tokens);
  const double slack = kPerfAgreementTol * std::max(1.0, out_tokens) + 1;
  const bool too_few = claimed_tokens < out_tokens - slack;
  const bool too_many = p.requests_failed == 0 && claimed_tokens > kPerfReemitFactor * out_tokens + slack;
  if (too_few || too_many) {
    std::snprintf(buf, sizeof buf,
                  "%.6g tok/s/GPU over %d GPUs and %.6g s is %.6g tokens, the point generated %lld output tokens",
                  p.output_tok_per_s_per_gpu, p.num_gpus, p.simulated_time_s, claimed_tokens,
                  static_cast<long long>(p.output_tokens));
    return {"/output_tok_per_s_per_gpu", buf};
  }
  if (p.output_tokens > 0) {
    const double expected_input =
        p.output_tok_per_s_per_gpu * static_cast<double>(p.input_tokens) / static_cast<double>(p.output_tokens);
    if (std::abs(p.input_tok_per_s_per_gpu - expected_input) > kPerfAgreementTol * std::max(1.0, expected_input)) {
      std::snprintf(buf, sizeof buf,
                    "is %.6g, the output throughput scaled by input / output tokens is %.6g (they flow in the same "
                    "window)",
                    p.input_tok_per_s_per_gpu, expected_input);
      return {"/input_tok_per_s_per_gpu", buf};
    }
  }
  return {};
}

PointEconomics point_economics(const PointPerf& perf, const econ::TokenPrices& prices, double gpu_usd_per_hour,
                               double target_gross_margin, double all_in_power_watts,
                               const ContractRents& contract_rents) {
  PointEconomics e;
  const double rent = gpu_usd_per_hour;
  e.gpu_usd_per_hour = rent;
  const double in_per_h = 3600.0 * perf.input_tok_per_s_per_gpu;
  const double out_per_h = 3600.0 * perf.output_tok_per_s_per_gpu;
  const double cached_share = perf.cached_input_share();
  e.revenue_usd_per_gpu_hour = econ::revenue_usd({in_per_h, in_per_h * cached_share, out_per_h}, prices);
  const double v = e.revenue_usd_per_gpu_hour;
  e.gross_margin = econ::gross_margin(v, rent).value_or(kNaN);
  e.cost_blended_usd_per_mtok = in_per_h + out_per_h > 0 ? rent / ((in_per_h + out_per_h) / 1e6) : kNaN;
  e.cost_output_only_usd_per_mtok = out_per_h > 0 ? rent / (out_per_h / 1e6) : kNaN;
  e.cost_input_usd_per_mtok = v > 0 ? prices.input_usd_per_mtok * rent / v : kNaN;
  e.cost_output_usd_per_mtok = v > 0 ? prices.output_usd_per_mtok * rent / v : kNaN;
  e.price_scale_for_target_margin =
      v > 0 && std::isfinite(target_gross_margin) ? rent / ((1 - target_gross_margin) * v) : kNaN;
  const double input_revenue = econ::revenue_usd({in_per_h, in_per_h * cached_share, 0}, prices);
  e.output_price_for_target_margin_usd_per_mtok =
      out_per_h > 0 && std::isfinite(target_gross_margin)
          ? (rent / (1 - target_gross_margin) - input_revenue) / (out_per_h / 1e6)
          : kNaN;
  const bool powered = all_in_power_watts > 0 && perf.output_tok_per_s_per_gpu > 0;  // false for NaN
  e.output_tok_per_s_per_mw = powered ? perf.output_tok_per_s_per_gpu * 1e6 / all_in_power_watts : kNaN;
  e.energy_kwh_per_output_mtok = powered ? all_in_power_watts / (3.6 * perf.output_tok_per_s_per_gpu) : kNaN;
  for (std::size_t k = 0; k < contract_rents.size(); ++k) {
    const double r = contract_rents[k];
    e.cost_output_only_by_contract_usd_per_mtok[k] = out_per_h > 0 && r > 0 ? r / (out_per_h / 1e6) : kNaN;
  }
  return e;
}

bool depends_on_price(Metric m) {
  switch (m) {
    case Metric::kOutputTokPerSPerGpu:
    case Metric::kInputTokPerSPerGpu:
    case Metric::kP90InteractivityTokPerSPerUser:
    case Metric::kTtftP50Ms:
    case Metric::kTtftP90Ms:
    case Metric::kTtftP99Ms:
    case Metric::kTpotP50Ms:
    case Metric::kTpotP90Ms:
    case Metric::kTpotP99Ms:
    case Metric::kE2eP90S:
    case Metric::kCostBlendedUsdPerMtok:
    case Metric::kCostOutputOnlyUsdPerMtok:
    case Metric::kOutputTokPerSPerMw:
    case Metric::kEnergyKwhPerOutputMtok:
    case Metric::kCostOnDemandUsdPerMtok:
    case Metric::kCostReservedUsdPerMtok:
    case Metric::kCostSpotUsdPerMtok:
      return false;
    case Metric::kCostInputUsdPerMtok:
    case Metric::kCostOutputUsdPerMtok:
    case Metric::kRevenueUsdPerGpuHour:
    case Metric::kGrossMargin:
    case Metric::kPriceScaleForTargetMargin:
    case Metric::kOutputPriceForTargetMarginUsdPerMtok:
      return true;
  }
  return true;
}

double metric_value(Metric m, const PointPerf& p, const PointEconomics& e) {
  if (!p.error.empty()) return kNaN;
  switch (m) {
    case Metric::kOutputTokPerSPerGpu:
      return p.output_tok_per_s_per_gpu;
    case Metric::kInputTokPerSPerGpu:
      return p.input_tok_per_s_per_gpu;
    case Metric::kP90InteractivityTokPerSPerUser:
      return p.p90_interactivity_tok_per_s_per_user;
    case Metric::kTtftP50Ms:
      return p.ttft_s.p50 * 1e3;
    case Metric::kTtftP90Ms:
      return p.ttft_s.p90 * 1e3;
    case Metric::kTtftP99Ms:
      return p.ttft_s.p99 * 1e3;
    case Metric::kTpotP50Ms:
      return p.tpot_s.p50 * 1e3;
    case Metric::kTpotP90Ms:
      return p.tpot_s.p90 * 1e3;
    case Metric::kTpotP99Ms:
      return p.tpot_s.p99 * 1e3;
    case Metric::kE2eP90S:
      return p.e2e_s.p90;
    case Metric::kCostInputUsdPerMtok:
      return e.cost_input_usd_per_mtok;
    case Metric::kCostOutputUsdPerMtok:
      return e.cost_output_usd_per_mtok;
    case Metric::kCostBlendedUsdPerMtok:
      return e.cost_blended_usd_per_mtok;
    case Metric::kCostOutputOnlyUsdPerMtok:
      return e.cost_output_only_usd_per_mtok;
    case Metric::kRevenueUsdPerGpuHour:
      return e.revenue_usd_per_gpu_hour;
    case Metric::kGrossMargin:
      return e.gross_margin;
    case Metric::kPriceScaleForTargetMargin:
      return e.price_scale_for_target_margin;
    case Metric::kOutputPriceForTargetMarginUsdPerMtok:
      return e.output_price_for_target_margin_usd_per_mtok;
    case Metric::kOutputTokPerSPerMw:
      return e.output_tok_per_s_per_mw;
    case Metric::kEnergyKwhPerOutputMtok:
      return e.energy_kwh_per_output_mtok;
    case Metric::kCostOnDemandUsdPerMtok:
      return e.cost_output_only_by_contract_usd_per_mtok[0];
    case Metric::kCostReservedUsdPerMtok:
      return e.cost_output_only_by_contract_usd_per_mtok[1];
    case Metric::kCostSpotUsdPerMtok:
      return e.cost_output_only_by_contract_usd_per_mtok[2];
  }
  return kNaN;
}

}  // namespace tycoon::analysis
