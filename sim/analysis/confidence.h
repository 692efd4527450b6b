// Monte Carlo statistics over seeds: the mean of a figure, its run-to-run spread, and a 95%
// confidence interval on the mean (Student t, since a sweep runs few seeds).
#pragma once

#include <cstdint>
#include <span>

namespace tycoon::analysis {

struct Estimate {
  double mean = 0;
  double stddev = 0;         // sample standard deviation (n − 1): the run-to-run spread
  double half_width_95 = 0;  // t(0.975, n − 1) · stddev / sqrt(n); NaN with one sample
  double min = 0, max = 0;
  int n = 0;  // finite samples used (NaN samples are left out)
  // The performance model's own error on this figure (its provenance class's validation error,
  // sim/analysis/model_error.h): a half width that more seeds do not shrink. 0 when not applied.
  double model_half_width = 0;
  // A percentile's own 95% half width within each run (the steady-state rule's batch means,
  // serving/steady_state.h; the mean over the seeds' runs): what one run's length leaves
  // uncertain. 0 when not applied (every figure but the P90 latencies).
  double run_half_width = 0;

  // The interval to report: the seeds' 95% half width, the model error and the run's own half
  // width in quadrature, so none hides another. NaN when none is known (one seed and no model
  // error).
  double total_half_width() const;

  double relative_half_width() const;  // half_width_95 / |mean| (NaN when undefined)
  // True when the interval [mean ± half width] of `a` and of `b` overlap: the difference is
  // within run-to-run noise at this number of seeds.
  static bool overlap(const Estimate& a, const Estimate& b);
};

// The two-sided 95% quantile of Student's t with `dof` degrees of freedom (dof >= 1): exact
// table values to 30, the Cornish-Fisher expansion above (error below 1e-4).
double student_t_975(int dof);

Estimate estimate(std::span<const double> samples);

}  // namespace tycoon::analysis
