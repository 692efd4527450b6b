#include "sim/traffic/arrivals.h"
#include "sim/core/input_error.h"

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace tycoon::traffic {

ArrivalProcess::ArrivalProcess(const ArrivalParams& params, std::uint64_t seed)
    : p_(params), rng_(seed, core::RngPurpose::kArrivals) {
  if (p_.kind == ArrivalKind::kClosedLoop) {
    throw std::invalid_argument("closed-loop users have no arrival process (the serving simulation runs them)");
  }
  if (!(p_.rate_per_s > 0) || !std::isfinite(p_.rate_per_s)) {
    throw core::InputError("arrival rate must be a positive number of requests per second");
  }
  switch (p_.kind) {
    case ArrivalKind::kClosedLoop:
      break;  // refused above
    case ArrivalKind::kPoisson:
      max_rate_ = p_.rate_per_s;
      break;
    case ArrivalKind::kBursty:
      if (!(p_.burst_factor > 1) || !std::isfinite(p_.burst_factor)) {
        throw core::InputError("burst factor must be greater than 1");
      }
      max_rate_ = p_.rate_per_s * p_.burst_factor;
      burst_ = false;
      // Calm periods last (2B - 1) x the burst duration, so bursts hold 1/(2B) of the time.
      state_until_s_ = rng_.exponential(kBurstMeanDurationS * (2 * p_.burst_factor - 1));
      break;
    case ArrivalKind::kDiurnal:
      if (!(p_.diurnal_amplitude >= 0 && p_.diurnal_amplitude <= 1)) {
        throw core::InputError("diurnal amplitude must be in [0, 1]");
      }
      max_rate_ = p_.rate_per_s * (1 + p_.diurnal_amplitude);
      break;
  }
}

bool ArrivalProcess::in_burst_at(double t_s) {
  while (t_s >= state_until_s_) {
    burst_ = !burst_;
    double mean = burst_ ? kBurstMeanDurationS : kBurstMeanDurationS * (2 * p_.burst_factor - 1);
    state_until_s_ += rng_.exponential(mean);
  }
  return burst_;
}

double ArrivalProcess::rate_at(core::Time t) {
  const double t_s = core::to_seconds(t);
  switch (p_.kind) {
    case ArrivalKind::kClosedLoop:  // refused by the constructor
    case ArrivalKind::kPoisson:
      return p_.rate_per_s;
    case ArrivalKind::kBursty: {
      const double b = p_.burst_factor;
      // Burst share f = 1/(2B): f·B·m + (1 - f)·r_calm = m  =>  r_calm = m·B/(2B - 1).
      return in_burst_at(t_s) ? p_.rate_per_s * b : p_.rate_per_s * b / (2 * b - 1);
    }
    case ArrivalKind::kDiurnal:
      return p_.rate_per_s * (1 + p_.diurnal_amplitude * std::sin(2 * std::numbers::pi * t_s / kDiurnalPeriodS));
  }
  return p_.rate_per_s;
}

core::Time ArrivalProcess::next() {
  // Thinning (Lewis & Shedler): candidates at the peak rate, each kept with probability
  // rate(t) / peak. For Poisson every candidate is kept and no extra draw is made.
  for (;;) {
    now_s_ += rng_.exponential(1.0 / max_rate_);
    if (p_.kind == ArrivalKind::kPoisson) break;
    const double rate = rate_at(core::Time{core::from_seconds(now_s_)});
    if (rng_.uniform01() * max_rate_ < rate) break;
  }
  return core::Time{core::from_seconds(now_s_)};
}

}  // namespace tycoon::traffic
