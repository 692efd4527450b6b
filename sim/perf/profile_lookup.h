// Which calibration profile a chip gets: its own measured curves, another chip's of the same
// vendor family (efficiencies are fractions of peak, so they transfer by spec ratios), or the
// datasheet placeholder.
#pragma once

#include <map>
#include <string>

#include "sim/data/catalog.h"
#include "sim/perf/calibration_profile.h"

namespace tycoon::perf {

CalibrationProfile calibration_for(const data::Catalog& catalog, const data::Accelerator& chip);

// The calibrations of the chips a caller asks for, each read once (calibration_for). One per
// owner (the game, the advisor, the UI's previews): not thread-safe; a copy copies what was read.
class CalibrationCache {
 public:
  explicit CalibrationCache(const data::Catalog& catalog) : catalog_(&catalog) {}
  const CalibrationProfile& operator()(const std::string& chip);

 private:
  const data::Catalog* catalog_;
  std::map<std::string, CalibrationProfile> profiles_;
};

}  // namespace tycoon::perf
