// One limit check for what makes a run long: warm-up and measured requests, trace rows,
// closed-loop users, sweep points times their requests. Above a bound a command is refused (exit 2)
// with the estimate in the message, unless --allow-long-run.
#pragma once

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

using serving::run_estimate;

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
