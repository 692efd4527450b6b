// What a finished sweep reports: one CSV row per point and price, Monte Carlo groups over seeds
// (mean, spread, 95% CI of every figure), the Pareto frontier, the operating point of each
// series, a JSON summary, SVG charts and a self-contained HTML report.
#pragma once

#include <array>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/analysis/confidence.h"
#include "sim/analysis/point_result.h"
#include "sim/analysis/svg_chart.h"
#include "sim/analysis/sweep_run.h"
#include "sim/analysis/sweep_spec.h"

namespace tycoon::analysis {

struct SweepData {
  const SweepSpec* spec = nullptr;
  const ExpandedSweep* sweep = nullptr;
  const CalibrationSet* calibrations = nullptr;
  std::vector<PointPerf> perf;  // by point index
};

// A price of the spec for one model: absolute prices as given, or the card's market price scaled.
TokenPrices resolve_prices(const PriceChoice& price, const data::ModelCard& model);

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
  std::int64_t requests_failed = 0;                           // failed requests over its points
  const Estimate& operator[](Metric m) const { return stats[static_cast<std::size_t>(m)]; }
};

// Groups in order: series, then concurrency, then price.
std::vector<Group> make_groups(const SweepData& d);

// Per series at the spec's first price: the concurrency with the highest mean tok/s/GPU whose mean
// P90 interactivity meets the target (any concurrency without a target).
struct OperatingPoint {
  std::size_t series = 0;
  std::optional<std::size_t> group;  // index into make_groups(); empty: no concurrency meets the target
};
std::vector<OperatingPoint> operating_points(const SweepData& d, const std::vector<Group>& groups);

// Indices into `groups` (first price only) on the frontier of mean (P90 tok/s/user, tok/s/GPU).
std::vector<std::size_t> frontier_groups(const std::vector<Group>& groups);

void write_points_csv(std::ostream& out, const SweepData& d);
nlohmann::json summary_json(const SweepData& d, const std::vector<Group>& groups);

// The charts: Pareto frontier, cost per million output tokens vs interactivity, margin vs price.
Chart pareto_chart(const SweepData& d, const std::vector<Group>& groups);
Chart cost_chart(const SweepData& d, const std::vector<Group>& groups);
Chart margin_chart(const SweepData& d, const std::vector<Group>& groups);

// One offline HTML file: the summary tables and the charts inline.
std::string html_report(const SweepData& d, const std::vector<Group>& groups);

}  // namespace tycoon::analysis
