// Hourly time series of a game, named by a closed enum whose names are the CSV headers and chart
// legends.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tycoon::game {

enum class Series {
  kCashUsd,            // at the end of the hour
  kRevenueUsd,         // this hour
  kGpuCostUsd,         // this hour: rent and early-release fees
  kFixedCostUsd,       // this hour
  kProfitUsd,          // this hour: revenue − GPU cost − fixed cost
  kInputTokens,        // this hour, cached included
  kCachedInputTokens,  // this hour
  kOutputTokens,       // this hour
  kRequestsOffered,    // this hour, all segments
  kRequestsCompleted,  // this hour
  kRequestsFailed,     // this hour: rejected, timed out, interrupted, or no deployment
  kSloAttainment,      // this hour: requests within SLO / offered
  kReputation,         // end of hour, mean over segments
  kGpusRented,         // serving-ready GPUs under contract
  kGpusServing,        // GPUs running a replica
  kCount
};
inline constexpr std::size_t kNumSeries = static_cast<std::size_t>(Series::kCount);
inline constexpr std::array<std::string_view, kNumSeries> kSeriesNames = {
    "cash_usd",        "revenue_usd",         "gpu_cost_usd",  "fixed_cost_usd",   "profit_usd",
    "input_tokens",    "cached_input_tokens", "output_tokens", "requests_offered", "requests_completed",
    "requests_failed", "slo_attainment",      "reputation",    "gpus_rented",      "gpus_serving"};
inline std::string_view to_string(Series s) { return kSeriesNames[static_cast<std::size_t>(s)]; }

// One value per series per game hour; hour h is at index h.
struct History {
  std::array<std::vector<double>, kNumSeries> series;

  std::size_t num_hours() const { return series[0].size(); }
  const std::vector<double>& operator[](Series s) const { return series[static_cast<std::size_t>(s)]; }
  void push(const std::array<double, kNumSeries>& row) {
    for (std::size_t i = 0; i < kNumSeries; ++i) series[i].push_back(row[i]);
  }
  bool operator==(const History&) const = default;
};

// The days before hour 0 that a scenario puts on the charts (Scenario::history_days), so players
// plan from data: the world run with the scenario's starting company, prices and market and no
// player (Game generates it; see make_past). Hour −num_hours() + i is at index i. Shown, never
// counted: the score, the profit and every total are the played period's alone.
struct PastHistory {
  History series;
  // Per past hour: the company's output price of `priced_model` (USD per million output tokens),
  // the market's list output price of the same model (competitors' price), and the on-demand rent
  // of the first offered chip (USD per GPU-hour).
  std::string priced_model;
  std::vector<double> output_price_usd_per_mtok;
  std::vector<double> market_output_price_usd_per_mtok;
  std::string rent_chip;
  std::vector<double> rent_usd_per_gpu_hour;

  std::int64_t num_hours() const { return static_cast<std::int64_t>(series.num_hours()); }
  bool empty() const { return series.num_hours() == 0; }
  bool operator==(const PastHistory&) const = default;
};

// One deployment's hour, for the per-deployment CSV and the UI.
struct DeploymentHour {
  std::int64_t hour = 0;
  std::int64_t deployment_id = 0;
  int gpus_serving = 0;
  double offered_requests_per_s = 0;
  double requests_offered = 0;
  double requests_completed = 0;
  double requests_failed = 0;
  double requests_within_slo = 0;
  double output_tokens = 0;
  double revenue_usd = 0;
  double ttft_p90_s = 0;
  double tpot_p90_s = 0;
  double output_tok_per_s_per_gpu = 0;
  bool interrupted = false;  // a spot contract under it was reclaimed this hour

  // The decode speed 90% of the hour's requests met or beat (tok/s per user): a request's speed is
  // 1 / its time per output token, so the 10th percentile of speed is 1 / the 90th of TPOT (0 when
  // the hour served nothing).
  double p90_interactivity_tok_per_s() const { return tpot_p90_s > 0 ? 1.0 / tpot_p90_s : 0.0; }
  bool operator==(const DeploymentHour&) const = default;
};

}  // namespace tycoon::game
