// The engines' own MoE kernels on chips this project has not measured itself, from published
// kernel measurements (hardware_db/engine_kernels/moe.json; docs/calibration.md, "The engines' own
// MoE kernels").
#pragma once

#include <filesystem>

#include "sim/data/catalog.h"
#include "sim/perf/calibration_profile.h"

namespace tycoon::perf {

// Reads `file` (strict: errors name the file, the pointer and the reason) and appends to
// `p.engine_moe` every kernel published for `chip`: each series of (tokens, milliseconds) is
// turned into compute and memory efficiency curves with CostBuilder's own expert work
// (expert_work), so that the published model's expert op at each measured token count takes the
// published time.
void attach_engine_moe_kernels(CalibrationProfile& p, const data::Catalog& catalog, const data::Accelerator& chip,
                               const std::filesystem::path& file);

}  // namespace tycoon::perf
