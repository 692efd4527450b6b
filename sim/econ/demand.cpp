#include "sim/econ/demand.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace tycoon::econ {

double diurnal_factor(double amplitude, double peak_hour, double hour_of_day) {
  return 1.0 + amplitude * std::cos(2.0 * std::numbers::pi * (hour_of_day - peak_hour) / 24.0);
}

double growth_factor(double growth_per_day, double day) { return std::pow(1.0 + growth_per_day, day); }

double price_factor(double price_usd, double reference_usd, double elasticity) {
  if (reference_usd <= 0) return 1.0;
  if (price_usd <= 0) return kMaxPriceBoost;
  return std::min(kMaxPriceBoost, std::pow(price_usd / reference_usd, -elasticity));
}

double reputation_factor(double reputation, double sensitivity) {
  return std::clamp(1.0 - sensitivity * (1.0 - std::clamp(reputation, 0.0, 1.0)), 0.0, 1.0);
}

double offered_requests_per_s(const DemandCurve& curve, double hour, double price_usd, double reference_usd,
                              double reputation) {
  double mid = hour + 0.5;
  double hour_of_day = std::fmod(mid, 24.0);
  double rate = curve.base_requests_per_s * diurnal_factor(curve.diurnal_amplitude, curve.peak_hour, hour_of_day) *
                growth_factor(curve.growth_per_day, mid / 24.0) *
                price_factor(price_usd, reference_usd, curve.price_elasticity) *
                reputation_factor(reputation, curve.reputation_sensitivity);
  return std::max(rate, 0.0);
}

double next_reputation(double reputation, double attainment, double half_life_hours) {
  double keep = half_life_hours > 0 ? std::exp2(-1.0 / half_life_hours) : 0.0;
  return std::clamp(keep * reputation + (1.0 - keep) * attainment, 0.0, 1.0);
}

}  // namespace tycoon::econ
