#include "sim/serving/simulation_memo.h"

#include "sim/serving/deployment_plan.h"

namespace tycoon::serving {

SimulationMemo::SimulationMemo() : installed_(this) {}

ServingSummary SimulationMemo::simulate(const ServingConfig& config, const perf::CalibrationProfile& calibration) {
  // The call runs past this memo: through the interceptor it hides, or the kernel.
  auto compute = [&] {
    ScopedSimulateInterceptor outer(installed_.previous());
    return serving::simulate(config, calibration);
  };
  // A trace in memory is not in the fingerprint (its path is): never answered from the memo.
  if (config.workload.trace && config.workload.trace_path.empty()) return compute();
  std::string key = simulation_fingerprint(config, calibration);
  if (auto it = results_.find(key); it != results_.end()) {
    ++hits_;
    return it->second;
  }
  ++misses_;
  ServingSummary s = compute();
  return results_.emplace(std::move(key), std::move(s)).first->second;
}

}  // namespace tycoon::serving
