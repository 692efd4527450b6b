// The performance model's own error, per provenance class of a prediction: how far predictions on
// measured, extrapolated or placeholder curves land from published or measured results. Read from
// hardware_db/model_error.json, where each value carries its source; a sweep combines it with the
// seeds' spread so that an estimate on borrowed curves never shows a falsely tight interval.
#pragma once

#include <array>
#include <filesystem>
#include <string>

#include "sim/analysis/confidence.h"
#include "sim/analysis/point_result.h"
#include "sim/perf/calibration_profile.h"

namespace tycoon::analysis {

struct ModelErrors {
  std::array<double, perf::kProvenanceNames.size()> relative{};     // by perf::Provenance: 0.127 is ±12.7%
  std::array<std::string, perf::kProvenanceNames.size()> source{};  // where each number comes from
  std::string file;  // "hardware_db/model_error.json", relative to the data root

  double of(perf::Provenance p) const { return relative[static_cast<std::size_t>(p)]; }
};

// Reads `<root>/hardware_db/model_error.json`; throws data::LoadError (`file: /pointer: reason`).
ModelErrors load_model_errors(const std::filesystem::path& root);

// What a figure of provenance `p` rests on and how far it may be off, for a reader: the class's
// meaning and its model error from `errors` (the same number a sweep widens its intervals by),
// with the file it comes from.
std::string provenance_explanation(perf::Provenance p, const ModelErrors& errors);

// The half width that a relative model error `e` puts on a figure of mean `mean` (first order):
// throughputs, latencies, costs, revenue and price scales move by e·|mean|; a gross margin
// 1 − R/V moves by (R/V)·e = e·|1 − margin|.
double model_half_width(Metric m, double mean, double e);

// The output price for a target margin m, p_out* = R / ((1 − m)·O/1e6) − V_in/(O/1e6), moves only
// through its first term (input and output throughputs move together, so V_in/O does not): by e
// times that term, which is the output-only cost over (1 − m). `stats` are a group's or an operating
// point's estimates; sets the output price's model_half_width from them.
void set_output_price_model_half_width(std::array<Estimate, kNumMetrics>& stats, double target_margin, double e);

}  // namespace tycoon::analysis
