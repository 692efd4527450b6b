#include "sim/game/profile_steps.h"

#include <algorithm>
#include <cmath>

namespace tycoon::game {

ProfiledSteps profile_steps(const Scenario& scenario, const DeploymentState& d, const perf::Deployment& deployment,
                            const perf::CalibrationProfile& calibration, std::optional<double> mean_batch_size) {
  const auto* seg = scenario.find_segment(d.segment);
  const std::int64_t isl = seg ? seg->workload.input_tokens : kProfileInputTokensWithoutSegment;
  const std::int64_t osl = seg ? seg->workload.output_tokens : kProfileOutputTokensWithoutSegment;
  ProfiledSteps p;
  p.decode_batch =
      mean_batch_size ? std::max(1, static_cast<int>(std::lround(*mean_batch_size))) : kProfileBatchWithoutRun;
  p.decode_context_tokens = isl + osl / 2;
  p.prefill_tokens = std::min<std::int64_t>(d.recipe.max_num_batched_tokens, isl);
  p.decode = perf::predict_decode(deployment, calibration, p.decode_batch, p.decode_context_tokens);
  p.prefill = perf::predict_prefill(deployment, calibration, p.prefill_tokens, 0, 1);
  return p;
}

}  // namespace tycoon::game
