// A memo of serving simulations, for work that asks the same question many times: each
// simulate() call made while it is installed is keyed by its fingerprint
// (simulation_fingerprint, sim/serving/deployment_plan.h); a key seen before is answered with the
// summary computed then, any other is computed (through whatever interceptor was installed
// before it) and kept. The simulation is a deterministic function of what the fingerprint names
// (the decode fast path, left out of it, changes no result: tests/test_serving_fast_forward.cpp),
// so the answers are the bytes the calls would compute.
//
// The fingerprint names the model, chip, engine and calibration by their ids (and the fields a
// tuned chip changes), not by their contents: a memo is valid for one catalog, and lives for one
// piece of work over it (the balance table of one level, sim/advisor/balance.cpp). A call that
// replays a trace given in memory rather than by its path is always computed. Errors are not kept:
// a call that threw throws again.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "sim/serving/serving_sim.h"

namespace tycoon::serving {

class SimulationMemo final : public SimulateInterceptor {
 public:
  // Installed on this thread for the memo's lifetime (innermost wins, as ScopedSimulateInterceptor).
  SimulationMemo();
  ServingSummary simulate(const ServingConfig& config, const perf::CalibrationProfile& calibration) override;

  std::int64_t hits() const { return hits_; }
  std::int64_t misses() const { return misses_; }

 private:
  std::unordered_map<std::string, ServingSummary> results_;
  std::int64_t hits_ = 0, misses_ = 0;
  ScopedSimulateInterceptor installed_;  // last: installed once the rest is built
};

}  // namespace tycoon::serving
