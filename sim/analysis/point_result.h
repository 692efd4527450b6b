// What one sweep point's simulation measured, and what it costs and earns at a price.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sim/econ/prices.h"
#include "sim/perf/calibration_profile.h"
#include "sim/serving/serving_sim.h"
#include "sim/serving/steady_state.h"

namespace tycoon::analysis {

// The performance figures of one simulated point (price independent). Latencies in seconds.
struct PointPerf {
  double output_tok_per_s_per_gpu = 0;
  double input_tok_per_s_per_gpu = 0;  // prompt tokens of completed requests, same window
  double p90_interactivity_tok_per_s_per_user = 0;
  serving::LatencyStats ttft_s, tpot_s, e2e_s;
  std::int64_t requests_completed = 0;
  std::int64_t requests_failed = 0;
  std::int64_t input_tokens = 0;
  std::int64_t cached_input_tokens = 0;
  std::int64_t output_tokens = 0;
  double simulated_time_s = 0;  // the measured window: from the warm-up cut to the last request's end
  double mean_batch_size = 0;
  int num_gpus = 0;
  perf::Provenance provenance = perf::Provenance::kDatasheet;
  std::string error;  // non-empty: the simulation refused this point (why); figures are zero
  // The steady-state rule's verdict (serving/steady_state.h): whether the run's P90s settled, why
  // not, the warm-up cut, and each P90's 95% batch-means half width (seconds; NaN: too few
  // requests to batch), which the report adds to the seeds' interval.
  bool stationary = true;
  std::string why_not_stationary;
  // A point that ran but whose P90s did not settle by the rule's cap (a failed point is neither).
  bool unsettled() const { return !stationary && error.empty(); }
  double warmup_s = 0;
  std::int64_t num_requests_run = 0;  // the requests the last simulation sent (the rule may grow them)
  double ttft_p90_half_width_s = std::numeric_limits<double>::quiet_NaN();
  double tpot_p90_half_width_s = std::numeric_limits<double>::quiet_NaN();

  // Prefix-cache hits over prompt tokens, in [0, 1] (0 without prompt tokens): what revenue is
  // re-priced with (cached input is billed at the cached price).
  double cached_input_share() const {
    return input_tokens > 0 ? static_cast<double>(cached_input_tokens) / static_cast<double>(input_tokens) : 0.0;
  }
  // Failed over completed + failed requests, in [0, 1] (0 without requests).
  double failed_share() const {
    const std::int64_t total = requests_completed + requests_failed;
    return total > 0 ? static_cast<double>(requests_failed) / static_cast<double>(total) : 0.0;
  }

  static PointPerf from_summary(const serving::ServingSummary& s);
  // A run of the steady-state rule: its summary, its verdict and its measured window.
  static PointPerf from_steady_run(const serving::SteadyRun& run);
  // Round-trips exactly (doubles are written with enough digits): the resume journal's format.
  nlohmann::json to_json() const;
  static PointPerf from_json(const nlohmann::json& j);
};

// Where a point's figures do not make sense: the JSON pointer of the figure inside PointPerf's
// JSON ("/ttft_s", "/num_gpus") and the reason; both empty when they do.
struct PerfProblem {
  std::string pointer;
  std::string reason;
  bool ok() const { return reason.empty(); }
};

// The one check of figures read back from a file (the resume journal and `sweep merge`'s parts
// alike): finite and not negative; counts that add up (cached input <= input tokens); latency
// percentiles in order (p50 <= p90 <= p99); the point's GPU count (`expected_gpus`, from its
// deployment); and throughputs that agree with the counts they were computed from. A sweep
// point's simulated time is its measured window (after the warm-up cut), so the output throughput
// times GPUs times it is the tokens generated in the window: at least the completed requests' output
// tokens (kPerfAgreementTol relative), and when no request failed at most kPerfReemitFactor times
// them (a request preempted and recomputed samples its next token again; a failed request may have
// generated part of its output, so with failures there is no upper bound); and the input
// throughput is the output throughput scaled by input / output tokens (PointPerf::from_summary).
// A point the simulation refused (`error` set) carries zero figures and is checked for that only.
PerfProblem check_point_perf(const PointPerf& p, int expected_gpus);
inline constexpr double kPerfAgreementTol = 1e-6;
inline constexpr double kPerfReemitFactor = 2;

// Economics of one point at one price, per GPU-hour of steady serving at the simulated rate.
//
//   tokens per GPU-hour:  I = 3600 · input tok/s/GPU,  O = 3600 · output tok/s/GPU
//   rent:                 R = GPU rent, USD per GPU-hour (catalog price for the contract)
//   revenue:              V = (I·(1−c)·p_in + I·c·p_cached + O·p_out) / 1e6   (c: prefix-cache hit share;
//                         econ::revenue_usd)
//   gross margin:         (V − R) / V   (econ::gross_margin)
//   cost per Mtok, blended:      R / ((I + O) / 1e6)
//   cost per Mtok, output only:  R / (O / 1e6)   (all rent charged to output: InferenceX's convention)
//   cost per Mtok, input/output: p_in · R/V and p_out · R/V — the break-even prices that keep the
//                                quoted input:output ratio (the rent split in proportion to revenue)
//   price scale for a target margin m: R / ((1 − m) · V) — multiply every quoted price by it.
//   power, all in:        P = provisioned watts per GPU (chip, host, network, facility: the
//                         hardware data's all_in_power_watts, InferenceX's convention)
//   output tok/s per MW:  output tok/s/GPU · 1e6 / P
//   energy per Mtok, all charged to output:  P / (3.6 · output tok/s/GPU) kWh (every catalog rent
//                         already includes electricity: these are for a reader's own power price)
//   output price for a target margin m, input and cached input held at the quoted prices:
//                         p_out* = (R / (1 − m) − V_in) / (O / 1e6), V_in = (I·(1−c)·p_in + I·c·p_cached) / 1e6
//                         (negative when the input alone earns the margin)
// Undefined figures (no output, no revenue) are NaN, written empty in CSV and null in JSON.
struct PointEconomics {
  double gpu_usd_per_hour = 0;
  double revenue_usd_per_gpu_hour = 0;
  double gross_margin = 0;
  double cost_blended_usd_per_mtok = 0;
  double cost_output_only_usd_per_mtok = 0;
  double cost_input_usd_per_mtok = 0;
  double cost_output_usd_per_mtok = 0;
  double price_scale_for_target_margin = 0;                // NaN without a target
  double output_price_for_target_margin_usd_per_mtok = 0;  // NaN without a target or without output
  double output_tok_per_s_per_mw = 0;                      // NaN without a power figure or output
  double energy_kwh_per_output_mtok = 0;                   // NaN without a power figure or output
  // cost_output_only_usd_per_mtok at the chip's catalog price of each contract (on demand,
  // reserved, spot: data::Contract order), whatever the sweep rents at; NaN where the catalog has
  // no such price. InferenceX shows cost under three providers' prices the same way.
  std::array<double, 3> cost_output_only_by_contract_usd_per_mtok{};
};

// A chip's catalog rent under each contract (data::Contract order), NaN where it has none.
using ContractRents = std::array<double, 3>;
inline constexpr ContractRents kNoContractRents = {std::numeric_limits<double>::quiet_NaN(),
                                                   std::numeric_limits<double>::quiet_NaN(),
                                                   std::numeric_limits<double>::quiet_NaN()};

PointEconomics point_economics(const PointPerf& perf, const econ::TokenPrices& prices, double gpu_usd_per_hour,
                               double target_gross_margin /* NaN: none */,
                               double all_in_power_watts = std::numeric_limits<double>::quiet_NaN(),
                               const ContractRents& contract_rents = kNoContractRents);

// The figures every row and every Monte Carlo group report, in CSV column order.
enum class Metric {
  kOutputTokPerSPerGpu,
  kInputTokPerSPerGpu,
  kP90InteractivityTokPerSPerUser,
  kTtftP50Ms,
  kTtftP90Ms,
  kTtftP99Ms,
  kTpotP50Ms,
  kTpotP90Ms,
  kTpotP99Ms,
  kE2eP90S,
  kCostInputUsdPerMtok,
  kCostOutputUsdPerMtok,
  kCostBlendedUsdPerMtok,
  kCostOutputOnlyUsdPerMtok,
  kRevenueUsdPerGpuHour,
  kGrossMargin,
  kPriceScaleForTargetMargin,
  kOutputPriceForTargetMarginUsdPerMtok,
  kOutputTokPerSPerMw,
  kEnergyKwhPerOutputMtok,
  kCostOnDemandUsdPerMtok,  // cost_output_only at the catalog's on-demand price
  kCostReservedUsdPerMtok,
  kCostSpotUsdPerMtok,
};
inline constexpr std::size_t kNumMetrics = 23;
inline constexpr std::array<std::string_view, kNumMetrics> kMetricNames = {
    "output_tok_per_s_per_gpu",
    "input_tok_per_s_per_gpu",
    "p90_tok_per_s_per_user",
    "ttft_p50_ms",
    "ttft_p90_ms",
    "ttft_p99_ms",
    "tpot_p50_ms",
    "tpot_p90_ms",
    "tpot_p99_ms",
    "e2e_p90_s",
    "cost_input_usd_per_mtok",
    "cost_output_usd_per_mtok",
    "cost_blended_usd_per_mtok",
    "cost_output_only_usd_per_mtok",
    "revenue_usd_per_gpu_hour",
    "gross_margin",
    "price_scale_for_target_margin",
    "output_price_for_target_margin_usd_per_mtok",
    "output_tok_per_s_per_mw",
    "energy_kwh_per_output_mtok",
    "cost_on_demand_usd_per_mtok",
    "cost_reserved_usd_per_mtok",
    "cost_spot_usd_per_mtok"};
inline std::string_view to_string(Metric m) { return kMetricNames[static_cast<std::size_t>(m)]; }

double metric_value(Metric m, const PointPerf& perf, const PointEconomics& econ);

// Whether a figure changes with the token prices (revenue, margin, the break-even and target
// prices) or is the simulation's alone (throughputs, latencies, rent per token).
bool depends_on_price(Metric m);

}  // namespace tycoon::analysis
