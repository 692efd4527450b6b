#include "sim/serving/run_budget.h"

#include <algorithm>
#include <cstdio>

#include "sim/serving/benchmark_run.h"
#include "sim/serving/serving_sim.h"
#include "sim/traffic/trace.h"

namespace tycoon::serving {

std::string run_estimate(double requests, int cores) {
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

std::optional<LongRun> find_long_run(const ServingConfig& c) {
  const auto past = [](LongRunBound b, double amount, double limit) -> std::optional<LongRun> {
    if (amount > limit) return LongRun{b, amount, limit};
    return std::nullopt;
  };
  const double requests = static_cast<double>(c.num_requests);
  const double max_requests = static_cast<double>(kMaxRunRequests);
  if (auto r = past(LongRunBound::kRequests, requests, max_requests)) return r;
  // Warm-up requests are simulated like measured ones.
  if (auto r = past(LongRunBound::kWarmupRequests, static_cast<double>(c.warmup_requests) + requests, max_requests))
    return r;
  if (c.arrival.kind == ArrivalKind::kClosedLoop) {
    if (auto r = past(LongRunBound::kUsers, c.arrival.concurrency, static_cast<double>(kMaxRunUsers))) return r;
  }
  // A trace is replayed row by row: its rows are the run's requests, its span the run's length.
  if (c.workload.trace && !c.workload.trace->entries.empty()) {
    const auto& rows = c.workload.trace->entries;
    if (auto r = past(LongRunBound::kTraceRows, static_cast<double>(rows.size()), max_requests)) return r;
    if (c.workload.trace_timestamps) {
      if (auto r = past(LongRunBound::kTraceSpan, rows.back().arrival_s - rows.front().arrival_s,
                        kMaxRunSpanWithoutOverrideS))
        return r;
    }
  }
  const double limit_gpus = static_cast<double>(kMaxRunGpus);
  const double replica_gpus = static_cast<double>(c.replicas) * c.deployment.tensor_parallel;
  if (auto r = past(LongRunBound::kReplicaGpus, replica_gpus, limit_gpus)) return r;
  if (auto r = past(LongRunBound::kAllGpus, static_cast<double>(num_gpus(c)), limit_gpus)) return r;
  if (auto r = past(LongRunBound::kSpan, c.duration_s, kMaxRunSpanWithoutOverrideS)) return r;
  if (c.arrival.kind != ArrivalKind::kClosedLoop && c.num_requests == 0 && c.duration_s > 0) {
    if (auto r = past(LongRunBound::kRateTimesSpan, c.arrival.rate_per_s * c.duration_s, max_requests)) return r;
  }
  return std::nullopt;
}

SteadyStateRule budgeted_steady_rule(const ServingConfig& config, bool allow_long_run) {
  SteadyStateRule rule;
  rule.max_requests =
      allow_long_run ? default_max_requests(config) : std::min(kMaxRunRequests, default_max_requests(config));
  return rule;
}

}  // namespace tycoon::serving
