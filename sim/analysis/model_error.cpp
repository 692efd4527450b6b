#include "sim/analysis/model_error.h"

#include <cmath>
#include <cstdio>

#include "sim/data/json_reader.h"

namespace tycoon::analysis {

ModelErrors load_model_errors(const std::filesystem::path& root) {
  const auto path = root / "hardware_db" / "model_error.json";
  ModelErrors out;
  out.file = "hardware_db/model_error.json";  // relative to the data root: outputs do not depend on the checkout
  const auto j = data::parse_json_file(path);
  data::ObjectReader r(j, path.string(), "");
  if (r.integer("format_version") != 1) r.fail("format_version", "must be 1");
  r.string("description");
  auto classes = r.object("classes");
  for (std::size_t p = 0; p < perf::kProvenanceNames.size(); ++p) {
    auto c = classes.object(perf::kProvenanceNames[p]);
    const double e = c.number("relative_error", data::Bound::kNonNegative);
    if (e >= 1) c.fail("relative_error", "must be below 1 (a fraction: 0.127 is 12.7%)");
    out.relative[p] = e;
    out.source[p] = c.string("source");
    if (out.source[p].empty()) c.fail("source", "must say where the number comes from");
    c.finish();
  }
  classes.finish();
  r.finish();
  return out;
}

std::string provenance_explanation(perf::Provenance p, const ModelErrors& errors) {
  std::string what;
  switch (p) {
    case perf::Provenance::kMeasured:
      what = "Calibrated on this chip, inside the measured range.";
      break;
    case perf::Provenance::kInterpolated:
      what = "Between measured points of this chip's calibration.";
      break;
    case perf::Provenance::kExtrapolated:
      what = "Beyond the measurements, or another chip's curves scaled by the spec sheet: an estimate.";
      break;
    case perf::Provenance::kFittedToPublished:
      what = "Not measured here: levels fitted to published benchmarks of this chip (hardware_db/calibrated).";
      break;
    case perf::Provenance::kDatasheet:
      what = "No calibration: datasheet peaks with generic efficiencies.";
      break;
  }
  const double pct = 100 * errors.of(p);
  char buf[160];
  std::snprintf(buf, sizeof buf,
                " Predictions of this kind land within about %.0f%% of measured or published results (%s).", pct,
                errors.file.c_str());
  return what + buf;
}

double model_half_width(Metric m, double mean, double e) {
  if (!std::isfinite(mean)) return std::nan("");
  if (m == Metric::kGrossMargin) return e * std::fabs(1 - mean);
  return e * std::fabs(mean);
}

void set_output_price_model_half_width(std::array<Estimate, kNumMetrics>& stats, double target_margin, double e) {
  const double rent_term =
      stats[static_cast<std::size_t>(Metric::kCostOutputOnlyUsdPerMtok)].mean / (1 - target_margin);
  auto& price = stats[static_cast<std::size_t>(Metric::kOutputPriceForTargetMarginUsdPerMtok)];
  price.model_half_width =
      std::isfinite(price.mean) && std::isfinite(rent_term) ? e * std::fabs(rent_term) : std::nan("");
}

}  // namespace tycoon::analysis
