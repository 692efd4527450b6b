// One limit check for what makes a run long: warm-up and measured requests, trace rows,
// closed-loop users, sweep points times their requests. Above a bound a command is refused (exit 2)
// with the estimate in the message, unless --allow-long-run.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include "sim/core/input_error.h"
#include "sim/serving/run_budget.h"

namespace tycoon::cli {

// The bounds are sim's (sim/serving/run_budget.h); this prints and refuses by them.
using serving::kMaxRunRequests;
using serving::kMaxRunUsers;
using serving::kSimRequestsPerWallS;

// "about 2.0e+09 requests, ~7 h of wall time on one core"
inline std::string run_estimate(double requests, int cores = 1) {
  const double wall_s = requests / (kSimRequestsPerWallS * std::max(1, cores));
  char buf[128];
  if (wall_s >= 7200) {
    std::snprintf(buf, sizeof buf, "about %.3g requests, ~%.0f h of wall time", requests, wall_s / 3600);
  } else if (wall_s >= 120) {
    std::snprintf(buf, sizeof buf, "about %.3g requests, ~%.0f min of wall time", requests, wall_s / 60);
  } else {
    std::snprintf(buf, sizeof buf, "about %.3g requests, ~%.0f s of wall time", requests, wall_s);
  }
  return std::string(buf) + (cores > 1 ? " on " + std::to_string(cores) + " cores" : " on one core");
}

inline constexpr const char* kLongRunHint = " (add --allow-long-run to run it anyway)";

// Refuses `requests` simulated requests above kMaxRunRequests; `what` says where they come from.
inline void check_run_requests(const std::string& what, double requests, int cores = 1) {
  if (requests > static_cast<double>(kMaxRunRequests)) {
    throw core::InputError(what + ": " + run_estimate(requests, cores) + ", more than " +
                           std::to_string(kMaxRunRequests) + " requests" + kLongRunHint);
  }
}

inline void check_run_users(const std::string& what, std::int64_t users) {
  if (users > kMaxRunUsers) {
    throw core::InputError(what + ": " + std::to_string(users) + " users at once, more than " +
                           std::to_string(kMaxRunUsers) + kLongRunHint);
  }
}

}  // namespace tycoon::cli
