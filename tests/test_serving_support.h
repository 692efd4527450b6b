// Shared fixtures of the serving-simulator tests: the catalog, a GPT-OSS-120B-on-H200 config
// built from the recipe, and temporary trace files.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sim/data/catalog.h"
#include "sim/perf/iteration_cost.h"
#include "sim/perf/profile_lookup.h"
#include "sim/serving/resolve_config.h"
#include "sim/serving/serving_sim.h"
#include "sim/serving/simulation.h"
#include "tests/test_common.h"

namespace tycoon::serving_test {

using test::catalog;

// GPT-OSS-120B on one H200 with the recipe's settings; speculative decoding off unless asked.
inline serving::ServingConfig gpt_oss_h200(bool spec_decode = false) {
  const auto& c = catalog();
  const auto* recipe = c.find_recipe("gpt-oss-120b", "h200");
  REQUIRE(recipe != nullptr);
  serving::ServingConfig cfg;
  auto resolved = serving::resolve_serving(c, c.model("gpt-oss-120b"), c.accelerator("h200"), {});
  cfg.deployment = resolved.deployment;
  if (!spec_decode) cfg.deployment.spec_decode.reset();
  cfg.scheduler = resolved.scheduler;
  // Token ids straight to the engine: the closed forms of the scheduler's specifications are
  // GPU steps; the API server's latency and tokenization have their own (test_serving_frontend).
  cfg.api_server = false;
  cfg.seed = 1;
  return cfg;
}

// The datasheet placeholder profile: fixed, so the closed forms below do not move when a
// measured calibration lands (every expectation is computed with the same profile anyway).
inline const perf::CalibrationProfile& h200_calibration() {
  static const perf::CalibrationProfile cal = perf::CalibrationProfile::datasheet("h200");
  return cal;
}

// Writes `lines` to a fresh file under the temp directory and returns its path.
inline std::string write_trace(const std::string& name, const std::vector<std::string>& lines) {
  auto path = std::filesystem::temp_directory_path() / ("tycoon_test_" + name + ".jsonl");
  std::ofstream out(path);
  for (const auto& l : lines) out << l << "\n";
  return path.string();
}

// A trace config: requests at the file's times, nothing else arriving.
inline serving::ServingConfig with_trace(serving::ServingConfig cfg, const std::string& path) {
  cfg.workload.kind = serving::WorkloadKind::kTrace;
  cfg.workload.trace_path = path;
  cfg.workload.trace_timestamps = true;
  return cfg;
}

// Engine time of one step, as the simulator's clock sees it (rounded to whole nanoseconds).
inline double step_s(const perf::IterationCost& cost) { return core::to_seconds(core::from_seconds(cost.total_s)); }

inline bool finite(const serving::LatencyStats& s) {
  return std::isfinite(s.mean) && std::isfinite(s.p50) && std::isfinite(s.p90) && std::isfinite(s.p99);
}

}  // namespace tycoon::serving_test
