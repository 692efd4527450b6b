#include "sim/analysis/chart_scale.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tycoon::analysis {

double nice_step(double lo, double hi, int target) {
  const double raw = (hi - lo) / std::max(1, target);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * mag;
    if (step >= raw) break;
  }
  return step;
}

std::vector<double> nice_ticks(double lo, double hi, int target) {
  if (!(hi > lo)) hi = lo + 1;
  const double step = nice_step(lo, hi, target);
  // Integer multiples of the step (no accumulated rounding), the last one at or above `hi`.
  const auto first = static_cast<long long>(std::floor(lo / step + 1e-9));
  auto last = static_cast<long long>(std::ceil(hi / step - 1e-9));
  if (last <= first) last = first + 1;
  std::vector<double> ticks;
  for (long long k = first; k <= last; ++k) ticks.push_back(static_cast<double>(k) * step);
  return ticks;
}

std::vector<double> nice_ticks_within(double lo, double hi, int target) {
  if (!(hi > lo) || target < 1 || !std::isfinite(lo) || !std::isfinite(hi)) return {};
  const double step = nice_step(lo, hi, target);
  const double slack = step * 1e-6;
  std::vector<double> ticks;
  for (double t : nice_ticks(lo, hi, target)) {
    if (t >= lo - slack && t <= hi + slack) ticks.push_back(t);
  }
  return ticks;
}

std::string tick_label(double v, double step, bool percent) {
  if (percent) {
    v *= 100;
    step *= 100;
  }
  int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
  if (std::fabs(v) < step * 1e-6) v = 0;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f%s", decimals, v, percent ? "%" : "");
  return buf;
}

}  // namespace tycoon::analysis
