// The report of a `tycoon benchmark` run as text (cli/benchmark_command.cpp; --json prints
// serving::summary_json instead).
#pragma once

#include "sim/perf/calibration_profile.h"
#include "sim/serving/serving_sim.h"

namespace tycoon::cli {

// The run in words, for a reader matching it with a published harness: the deployment and
// scheduler it ran with, the traffic, the latency percentiles and throughput, the calibration.
void print_benchmark_report(const serving::ServingConfig& c, const serving::ServingSummary& r,
                            const perf::CalibrationProfile& cal, double wall_s);

}  // namespace tycoon::cli
