// Open-loop arrival processes: the instants at which new sessions (or single requests) arrive,
// independent of how the server keeps up. (Closed-loop users live in the serving simulation:
// their next request waits for the previous one.)
#pragma once

#include <array>
#include <string_view>

#include "sim/core/rng.h"
#include "sim/core/time.h"

namespace tycoon::traffic {

// How requests (or sessions) arrive: closed-loop users, each sending the next request when one
// ends (run by the serving simulation), or an open-loop process below. The one enum of the
// concept, used by serving, the game and the CLI; kArrivalNames is its names table.
enum class ArrivalKind { kClosedLoop, kPoisson, kBursty, kDiurnal };
inline constexpr std::array<std::string_view, 4> kArrivalNames = {"closed-loop", "poisson", "bursty", "diurnal"};

struct ArrivalParams {
  ArrivalKind kind = ArrivalKind::kPoisson;  // an open-loop kind
  double rate_per_s = 1;                     // mean arrivals per second
  double burst_factor = 4.0;                 // bursty: rate inside a burst / mean rate (> 1)
  double diurnal_amplitude = 0.5;            // diurnal: rate(t) = mean (1 + A sin(2 pi t / 24 h)), A in [0, 1]
};

// Bursty traffic is a two-state Markov-modulated Poisson process: bursts at B x the mean rate
// holding 1/(2B) of the time, calm periods at the rate that keeps the long-run mean.
inline constexpr double kBurstMeanDurationS = 10.0;
inline constexpr double kDiurnalPeriodS = 86400.0;

class ArrivalProcess {
 public:
  // Throws std::invalid_argument on a closed-loop kind (not a process of arrival instants), a
  // non-positive rate or an out-of-range shape parameter.
  ArrivalProcess(const ArrivalParams& params, std::uint64_t seed);

  // The instant of the next arrival after the previous one (the first after time zero).
  core::Time next();
  // Instantaneous rate (arrivals per second) at `t`, for tests and charts; `t` must not go back
  // in time between calls (the burst schedule advances lazily).
  double rate_at(core::Time t);

 private:
  // The modulating state at `t_s` (bursty): advances the burst schedule lazily.
  bool in_burst_at(double t_s);

  ArrivalParams p_;
  core::RngStream rng_;
  double now_s_ = 0;  // the last arrival (seconds; converted to ns once per arrival)
  double max_rate_ = 0;
  // bursty state
  bool burst_ = false;
  double state_until_s_ = 0;
};

}  // namespace tycoon::traffic
