// Simulation time: integer nanoseconds on a simulation clock (STYLE.md point 2). Instants are
// `Time` and end in `_at`; spans are `Duration`. The performance model computes in double
// seconds and crosses into event time through `from_seconds`, the one conversion.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace tycoon::core {

// The clock of one simulation: its epoch is the simulation start, it never reads a wall clock.
struct SimClock {
  using rep = std::int64_t;
  using period = std::nano;
  using duration = std::chrono::duration<rep, period>;
  using time_point = std::chrono::time_point<SimClock>;
  static constexpr bool is_steady = true;
};

using Duration = SimClock::duration;
using Time = SimClock::time_point;

inline constexpr Time kSimStart{};
inline constexpr Time kNever = Time::max();

// Rounds a duration in seconds to the nearest nanosecond. Throws std::invalid_argument on NaN,
// negative or out-of-range input (a duration that cannot be simulated is a bug upstream).
inline Duration from_seconds(double seconds) {
  if (!(seconds >= 0) || seconds > 9.0e9) {  // !(x >= 0) also catches NaN; 9e9 s ~ 285 years
    throw std::invalid_argument("duration out of range: " + std::to_string(seconds) + " s");
  }
  return Duration{std::llround(seconds * 1e9)};
}

inline constexpr double to_seconds(Duration d) { return static_cast<double>(d.count()) * 1e-9; }
inline constexpr double to_seconds(Time t) { return to_seconds(t.time_since_epoch()); }
inline constexpr Time at_seconds_ns(std::int64_t ns) { return Time{Duration{ns}}; }

}  // namespace tycoon::core
