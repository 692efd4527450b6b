#include "sim/perf/profile_lookup.h"

#include <filesystem>

namespace tycoon::perf {

CalibrationProfile calibration_for(const data::Catalog& catalog, const data::Accelerator& chip) {
  const auto dir = catalog.root / "hardware_db" / "calibrated";
  const auto own = dir / (chip.id + ".json");
  if (std::filesystem::exists(own)) return load_calibration_profile(own);
  // A calibrated sibling: same vendor and family first, then same vendor.
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& other : catalog.accelerators) {
      if (other.id == chip.id || other.vendor != chip.vendor) continue;
      if (pass == 0 && other.family != chip.family) continue;
      auto path = dir / (other.id + ".json");
      if (!std::filesystem::exists(path)) continue;
      auto p = load_calibration_profile(path);
      p.provenance = Provenance::kExtrapolated;
      p.source = "curves of " + other.id + " scaled by " + chip.id + "'s datasheet peaks (" + p.source + ")";
      return p;
    }
  }
  return CalibrationProfile::datasheet(chip.id);
}

}  // namespace tycoon::perf
