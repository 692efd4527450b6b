// Fits a chip's efficiency curves from kernel measurements (never from end-to-end rows).
#pragma once

#include <string>
#include <vector>

#include "calibration/fit/calibration_data.h"
#include "sim/data/accelerator.h"
#include "sim/perf/calibration_profile.h"

namespace tycoon::calibration {

struct CurveFit {
  std::string name;
  int num_rows = 0;
  double median_abs_residual = 0;  // |predicted/measured - 1| over the rows used
};

struct FitReport {
  perf::CalibrationProfile profile;
  std::vector<CurveFit> curves;
  double copy_bandwidth_bytes_per_s = 0;  // least-squares slope of the copy rows
  double isolated_kernel_overhead_s = 0;  // least-squares intercept of the copy rows
  int num_kernel_rows = 0;
  int eager_launch_rows = 0;  // host_layer_real rows behind the python_op_launch_* costs
};

// `source` is recorded in the profile (e.g. the data folders and the command). Attention prefill
// rows of `prefill_backend` only: the reference engine forces flash attention for prefill.
FitReport fit_profile(const std::vector<Row>& rows, const data::Accelerator& chip, const std::string& source,
                      const std::string& prefill_backend = "flash");

// Monotone (non-decreasing) piecewise-linear curve in log2(size) through (size, value) samples:
// samples are grouped by size (a power-of-two grid rounded to a quarter octave), each group's
// median is a knot, then adjacent violators are pooled. Efficiencies rise with size (more
// parallel work, fixed costs amortised) and saturate; the median resists outliers and isotonic
// pooling removes noise that would make a larger problem look slower per unit of work.
perf::Curve monotone_curve(std::vector<std::pair<double, double>> samples, double lo = 1e-4, double hi = 1.0);

}  // namespace tycoon::calibration
