// The profiler's representative steps of a deployment: one decode step and one prefill chunk
// from the performance model, shaped by the deployment's segment and the batch its serving runs.
#pragma once

#include <cstdint>
#include <optional>

#include "sim/game/scenario.h"
#include "sim/game/state.h"
#include "sim/perf/iteration_cost.h"

namespace tycoon::game {

// The decode batch profiled before a run has measured one.
inline constexpr int kProfileBatchWithoutRun = 16;
// The lengths profiled for a deployment whose segment is not in the scenario.
inline constexpr std::int64_t kProfileInputTokensWithoutSegment = 1024;
inline constexpr std::int64_t kProfileOutputTokensWithoutSegment = 256;

struct ProfiledSteps {
  int decode_batch = 0;                    // sequences in the decode step
  std::int64_t decode_context_tokens = 0;  // each sequence's context before the step
  std::int64_t prefill_tokens = 0;         // the prefill chunk's prompt tokens (no context cached)
  perf::IterationCost decode;
  perf::IterationCost prefill;
};

// `d` (run as `deployment` with `calibration`, its plan's) at its segment's workload: a decode
// step of the run's mean batch (`mean_batch_size` rounded, at least 1; unset:
// kProfileBatchWithoutRun) halfway through the answers (context = input + output / 2 tokens), and
// the prefill of one prompt, or of the step's token budget (max_num_batched_tokens) when the
// prompt is longer.
ProfiledSteps profile_steps(const Scenario& scenario, const DeploymentState& d, const perf::Deployment& deployment,
                            const perf::CalibrationProfile& calibration, std::optional<double> mean_batch_size);

}  // namespace tycoon::game
