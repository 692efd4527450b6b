#include "sim/analysis/confidence.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace tycoon::analysis {

double student_t_975(int dof) {
  // t(0.975, dof) for dof 1..30 (standard tables, e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2).
  static constexpr std::array<double, 30> kTable = {
      12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
      2.120,  2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (dof < 1) return std::numeric_limits<double>::quiet_NaN();
  if (dof <= 30) return kTable[static_cast<std::size_t>(dof - 1)];
  const double z = 1.959963984540054;  // the normal 97.5% quantile
  const double n = dof;
  const double z3 = z * z * z, z5 = z3 * z * z;
  return z + (z3 + z) / (4 * n) + (5 * z5 + 16 * z3 + 3 * z) / (96 * n * n);
}

double Estimate::relative_half_width() const {
  if (!std::isfinite(half_width_95) || mean == 0) return std::numeric_limits<double>::quiet_NaN();
  return half_width_95 / std::fabs(mean);
}

double Estimate::total_half_width() const {
  const bool seeds = std::isfinite(half_width_95);
  const bool model = std::isfinite(model_half_width) && model_half_width > 0;
  const bool run = std::isfinite(run_half_width) && run_half_width > 0;
  if (!seeds && !model && !run) return std::numeric_limits<double>::quiet_NaN();
  const double a = seeds ? half_width_95 : 0, b = model ? model_half_width : 0, c = run ? run_half_width : 0;
  return std::sqrt(a * a + b * b + c * c);
}

bool Estimate::overlap(const Estimate& a, const Estimate& b) {
  const double ha = std::isfinite(a.half_width_95) ? a.half_width_95 : 0;
  const double hb = std::isfinite(b.half_width_95) ? b.half_width_95 : 0;
  return std::fabs(a.mean - b.mean) <= ha + hb;
}

Estimate estimate(std::span<const double> samples) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  Estimate e;
  double sum = 0;
  e.min = std::numeric_limits<double>::infinity();
  e.max = -e.min;
  for (double x : samples) {
    if (!std::isfinite(x)) continue;
    ++e.n;
    sum += x;
    e.min = std::min(e.min, x);
    e.max = std::max(e.max, x);
  }
  if (e.n == 0) return Estimate{kNaN, kNaN, kNaN, kNaN, kNaN, 0};
  e.mean = sum / e.n;
  if (e.n == 1) {
    e.stddev = kNaN;
    e.half_width_95 = kNaN;
    return e;
  }
  double ss = 0;
  for (double x : samples) {
    if (std::isfinite(x)) ss += (x - e.mean) * (x - e.mean);
  }
  e.stddev = std::sqrt(ss / (e.n - 1));
  e.half_width_95 = student_t_975(e.n - 1) * e.stddev / std::sqrt(static_cast<double>(e.n));
  return e;
}

}  // namespace tycoon::analysis
