// What a finished sweep reports: one CSV row per point and price, Monte Carlo groups over seeds
// (mean, spread, 95% CI of every figure), the Pareto frontier, the operating point of each
// series, a JSON summary, SVG charts and a self-contained HTML report.
#pragma once

#include <array>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/analysis/confidence.h"
#include "sim/analysis/model_error.h"
#include "sim/analysis/point_result.h"
#include "sim/analysis/svg_chart.h"
#include "sim/analysis/sweep_run.h"
#include "sim/analysis/sweep_spec.h"

namespace tycoon::analysis {

struct SweepData {
  const SweepSpec* spec = nullptr;
  const ExpandedSweep* sweep = nullptr;
  const CalibrationSet* calibrations = nullptr;
  std::vector<PointPerf> perf;          // by point index
  const ModelErrors* errors = nullptr;  // the model's error per provenance class; null: seeds only
};

// What of a series' configuration the performance model's validation set does not cover
// ("speculative decoding"; perf::outside_validation): its points are extrapolated and carry the
// extrapolated class's error, never the calibrated one. Empty when nothing.
std::string series_outside_validation(const SweepData& d, std::size_t series);

// A price of the spec for one model: absolute prices as given, or the card's market price scaled.
econ::TokenPrices resolve_prices(const PriceChoice& price, const data::ModelCard& model);

PointEconomics economics_of(const SweepData& d, std::size_t point, std::size_t price);

// The points of one series at one concurrency and price, over the spec's seeds.
struct Group {
  std::size_t series = 0;
  int concurrency = 0;
  std::size_t price = 0;
  std::vector<std::size_t> points;
  std::array<Estimate, kNumMetrics> stats{};
  perf::Provenance provenance = perf::Provenance::kMeasured;  // the weakest of its points
  int num_failed_points = 0;                                  // points the simulator refused
  int num_not_stationary = 0;        // points whose P90s did not settle by the cap (PointPerf::why_not_stationary)
  std::int64_t requests_failed = 0;  // failed requests over its points
  std::int64_t requests_total = 0;   // completed + failed over its points
  double failed_share() const {
    return requests_total > 0 ? static_cast<double>(requests_failed) / static_cast<double>(requests_total) : 0.0;
  }
  const Estimate& operator[](Metric m) const { return stats[static_cast<std::size_t>(m)]; }
};

// Groups in order: series, then concurrency, then price.
std::vector<Group> make_groups(const SweepData& d);

// The targets a point misses, each as a readable reason ("P90 TTFT 812 ms > 500 ms"): the
// interactivity floor and every service-level target of the spec. Empty: it meets them all. With
// `conservative`, a figure meets its target only at the far end of its interval (mean plus the
// total half width for a latency ceiling, minus it for the interactivity floor).
std::vector<std::string> target_misses(const SweepSpec& spec, const std::array<Estimate, kNumMetrics>& stats,
                                       double failed_share, bool conservative = false);

// Monotone cubic (Fritsch-Carlson / PCHIP) interpolation through (xs[i], ys[i]), xs increasing, at
// x in [xs.front(), xs.back()]: between two knots it never leaves the range of their values, so a
// metric that falls with concurrency keeps falling between measured concurrencies. NaN when a knot
// bracketing x is not finite.
double pchip(std::span<const double> xs, std::span<const double> ys, double x);

// Per series: the highest mean tok/s/GPU that meets every target. Between the last measured
// concurrency that meets every target and the next, which misses, every metric is interpolated
// (PCHIP over log2 concurrency) and the pick is the highest concurrency where every crossing
// target — the interactivity floor, the P90 and P99 TTFT and P90 TPOT ceilings — is still met
// ("interpolated at target"), when it beats every measured point that meets them all; else the
// best measured concurrency ("grid"). With SweepSpec::conservative every target is met at the far
// end of the figure's interval (target_misses). A pick whose figure lies within its interval of a
// target it does not sit on by construction is marked marginal (OperatingPoint::marginal).
struct OperatingPoint {
  std::size_t series = 0;
  std::optional<std::size_t> group;  // the measured group picked (first price); the lower bracket when interpolated
  std::optional<std::size_t> upper_group;                // the upper bracket when interpolated
  bool interpolated = false;                             // interpolated at a crossing target
  std::vector<std::string> binding;                      // interpolated: the targets it sits on ("P90 TTFT")
  double concurrency = 0;                                // users; fractional when interpolated
  std::vector<std::array<Estimate, kNumMetrics>> stats;  // by price index
  perf::Provenance provenance = perf::Provenance::kMeasured;
  double failed_share = 0;  // failed / (completed + failed) requests
  // Targets the pick meets on its mean but not across its interval, each "P90 TTFT 1994 ± 540 ms
  // vs 2000 ms"; empty: clear of every target it does not sit on.
  std::vector<std::string> marginal;
  // Measured concurrencies that miss a target, each "64 users: P90 TTFT 812 ms > 500 ms".
  std::vector<std::string> rejected;
  // Per entry of `rejected`: true when its only miss is being slower per user than the
  // interactivity target (expected of every concurrency past the target; the console skips those).
  std::vector<bool> rejected_for_interactivity_only;
  bool found() const { return group.has_value(); }
  const Estimate& at(Metric m, std::size_t price = 0) const { return stats[price][static_cast<std::size_t>(m)]; }
  // "interpolated at target", "grid", with ", marginal" when it is: how the pick was made.
  std::string pick_label() const;
};
std::vector<OperatingPoint> operating_points(const SweepData& d, const std::vector<Group>& groups);
// The same, ranked by output throughput per GPU, highest first (a target not met ranks last, in
// the spec's order): the order of the report, summary.json and the console.
std::vector<OperatingPoint> ranked_operating_points(const SweepData& d, const std::vector<Group>& groups);

// The spec's first price for `op`'s model, scaled by the mean price scale that reaches the target
// gross margin at `op` (Metric::kPriceScaleForTargetMargin). Unset without a target or when no
// finite scale reaches it.
std::optional<econ::TokenPrices> prices_for_target_margin(const SweepData& d, const OperatingPoint& op);

// Indices into `groups` (first price only) on the frontier of mean (P90 tok/s/user, tok/s/GPU), one
// frontier per workload (a frontier across workloads compares different work): by workload index.
std::vector<std::vector<std::size_t>> frontier_groups(const SweepData& d, const std::vector<Group>& groups);

void write_points_csv(std::ostream& out, const SweepData& d);

// operating_points.csv: one row per operating point and figure (a price-dependent figure once per
// price, analysis::depends_on_price), with its value, its interval [low, high] = value ± the seeds'
// 95% half width and the model error in quadrature (Estimate::total_half_width; empty when
// unknown), both parts, and its provenance: how it was picked ("interpolated at target" or "grid"),
// the calibration class and what of the configuration is outside the validation set. A series
// with no operating point has one row that says so. Series in grid order.
void write_operating_points_csv(std::ostream& out, const SweepData& d, const std::vector<Group>& groups);
nlohmann::json summary_json(const SweepData& d, const std::vector<Group>& groups);

// The charts: Pareto frontier, cost per million output tokens vs interactivity, margin vs price
// (analytic curves through each operating point), TTFT vs throughput.
Chart pareto_chart(const SweepData& d, const std::vector<Group>& groups);
Chart cost_chart(const SweepData& d, const std::vector<Group>& groups);
Chart margin_chart(const SweepData& d, const std::vector<Group>& groups);
// P90 TTFT (log scale) vs output tok/s/GPU, one line per series over concurrency.
Chart ttft_chart(const SweepData& d, const std::vector<Group>& groups);

// The recipe fields of configuration `config` that differ between the sweep's configurations and
// that its label does not already say ("eagle3 k=7 @3.10", "TP8"): a comparison is only
// like-for-like when this is empty for every configuration.
std::vector<std::string> recipe_differences(const ExpandedSweep& sweep, std::size_t config);
// A series' name for legends and tables: its label plus its recipe differences.
std::string series_legend(const SweepData& d, std::size_t series);

// One offline HTML file: the summary tables and the charts inline.
std::string html_report(const SweepData& d, const std::vector<Group>& groups);

}  // namespace tycoon::analysis
