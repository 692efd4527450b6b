// How the command line words a refused long run: the bounds and the checks are sim's
// (sim/serving/run_budget.h, analysis::sweep_long_run); above one a command exits 2 with the
// estimate in the message and this hint, unless --allow-long-run.
#pragma once

#include "sim/serving/run_budget.h"

namespace tycoon::cli {

using serving::kMaxRunRequests;
using serving::kMaxRunUsers;
using serving::run_estimate;

inline constexpr const char* kLongRunHint = " (add --allow-long-run to run it anyway)";

}  // namespace tycoon::cli
