// Which calibration profile a chip gets: its own measured curves, another chip's of the same
// vendor family (efficiencies are fractions of peak, so they transfer by spec ratios), or the
// datasheet placeholder.
#pragma once

#include "sim/data/catalog.h"
#include "sim/perf/calibration_profile.h"

namespace tycoon::perf {

CalibrationProfile calibration_for(const data::Catalog& catalog, const data::Accelerator& chip);

}  // namespace tycoon::perf
