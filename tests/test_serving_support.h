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

// Open-loop (Poisson) traffic at `rate_per_s` for `duration_s`, prompts of `input_tokens` and
// answers of `output_tokens`, on `cfg`.
inline serving::ServingConfig poisson_run(serving::ServingConfig cfg, double rate_per_s, double duration_s,
                                          std::int64_t input_tokens, std::int64_t output_tokens) {
  cfg.arrival.kind = serving::ArrivalKind::kPoisson;
  cfg.arrival.rate_per_s = rate_per_s;
  cfg.duration_s = duration_s;
  cfg.workload.input_tokens = input_tokens;
  cfg.workload.output_tokens = output_tokens;
  return cfg;
}

// The scheduler tests' two-prompt trace on GPT-OSS-120B, one H200, no prefix caching: request 0,
// a 100-token prompt and an answer of `first_output` tokens from t = 0; request 1 (when
// `second_at_s` >= 0), a 100-token prompt arriving then with a 5-token answer.
inline serving::ServingConfig two_prompt_trace(const std::string& name, double second_at_s, int first_output = 400) {
  std::vector<std::string> rows = {R"({"arrival_s": 0, "input_tokens": 100, "output_tokens": )" +
                                   std::to_string(first_output) + "}"};
  if (second_at_s >= 0) {
    rows.push_back(R"({"arrival_s": )" + std::to_string(second_at_s) + R"(, "input_tokens": 100, "output_tokens": 5})");
  }
  auto cfg = with_trace(gpt_oss_h200(), write_trace(name, rows));
  cfg.scheduler.prefix_caching = false;
  return cfg;
}

// Request i's time to first token, in seconds.
inline double ttft_of(const serving::Simulation& sim, std::size_t i) {
  const auto& r = sim.requests().at(i);
  return core::to_seconds(r.first_token_at - r.arrived_at);
}

// Request 0 of two_prompt_trace run alone: its prefill (to its first token) and one batch-1
// decode step.
struct PromptAlone {
  double prefill_s, step_s;
};
inline PromptAlone prompt_alone() {
  serving::Simulation sim(two_prompt_trace("prompt_alone", -1), h200_calibration());
  sim.run();
  const auto& r = sim.requests().at(0);
  return {ttft_of(sim, 0),
          core::to_seconds(r.last_token_at - r.first_token_at) / static_cast<double>(r.num_output - 1)};
}

// Engine time of one step, as the simulator's clock sees it (rounded to whole nanoseconds).
inline double step_s(const perf::IterationCost& cost) { return core::to_seconds(core::from_seconds(cost.total_s)); }

inline bool finite(const serving::LatencyStats& s) {
  return std::isfinite(s.mean) && std::isfinite(s.p50) && std::isfinite(s.p90) && std::isfinite(s.p99);
}

}  // namespace tycoon::serving_test
