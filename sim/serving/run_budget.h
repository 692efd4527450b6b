// What makes a run long, in one place: the bounds above which every front end refuses a run
// (the command line's exit 2) unless its user asks for a long run (--allow-long-run). The bounds
// are wall time and memory on the machine the tool runs on, not limits of the simulation: past
// them a run is still correct, only slow or large.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sim/serving/steady_state.h"

namespace tycoon::serving {

// Measured on the 2-core dev machine: about 75,000 simulated requests per wall second and core,
// so the request bound (warm-up included) is about 15 s of one core.
inline constexpr double kSimRequestsPerWallS = 75'000;
inline constexpr std::int64_t kMaxRunRequests = 1'000'000;
// Closed-loop users at once: each is a session in memory and in the scheduler's queues.
inline constexpr std::int64_t kMaxRunUsers = 20'000;
// A benchmark's GPUs (a fleet a what-if may ask for) and its simulated span (one day).
inline constexpr std::int64_t kMaxRunGpus = 1024;
inline constexpr double kMaxRunSpanWithoutOverrideS = 86'400;
// A game's days (a year of hours, each simulated).
inline constexpr int kMaxGameDaysWithoutOverride = 365;
// The advisor's verification: re-runs × seeds per candidate.
inline constexpr int kMaxVerifyTimesSeeds = 30;
// A sweep's estimated wall time, from its points' starting requests (analysis::sweep_long_run; a
// whole sweep's timed estimate asks again above the user's own bound, cli/sweep_command.cpp; a
// shard has only this bound).
inline constexpr double kMaxSweepWallS = 3600;

struct ServingConfig;

// "about 2.0e+09 requests, ~7 h of wall time on one core": the wall time of simulating `requests`
// on `cores`, at kSimRequestsPerWallS each.
std::string run_estimate(double requests, int cores = 1);

// The bound a run passes, in the order find_long_run checks them.
enum class LongRunBound {
  kRequests,        // measured requests
  kWarmupRequests,  // warm-up and measured requests
  kUsers,           // closed-loop users at once
  kTraceRows,       // a trace's rows, each a request
  kTraceSpan,       // a timed trace's span, simulated seconds
  kReplicaGpus,     // replicas × tensor-parallel GPUs of the (prefill) pool
  kAllGpus,         // GPUs of both pools
  kSpan,            // the run's asked span, simulated seconds
  kRateTimesSpan,   // an open loop's rate × span, requests
};

struct LongRun {
  LongRunBound bound;
  double amount = 0;  // the run's requests, users, GPUs or simulated seconds
  double limit = 0;   // the bound's
};

// The first bound a run of `config` passes, if any (a trace is judged once loaded into
// config.workload.trace). The front ends word it with their own names for the fields.
std::optional<LongRun> find_long_run(const ServingConfig& config);

// The steady-state rule of a run held to the bounds: a run grows to at most kMaxRunRequests
// unless its user lifted the bounds.
SteadyStateRule budgeted_steady_rule(const ServingConfig& config, bool allow_long_run);

}  // namespace tycoon::serving
