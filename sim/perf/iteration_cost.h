// predict_iteration: how long one engine step takes on one replica, and where the time goes.
// A pure function of the batch, the deployment and the chip's calibration profile.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "sim/perf/calibration_profile.h"
#include "sim/perf/deployment.h"
#include "sim/perf/op_class.h"

namespace tycoon::perf {

// One prefill chunk: `num_new_tokens` computed now after `num_context_tokens` already cached.
struct PrefillChunk {
  std::int64_t num_new_tokens = 0;
  std::int64_t num_context_tokens = 0;
  bool last_chunk = true;  // the prompt completes: its last token produces logits
};

// A batch: prefill chunks plus decoding sequences (context length before this step each).
// With speculative decoding each decode sequence verifies 1 + k tokens.
struct BatchShape {
  std::span<const PrefillChunk> prefills;
  std::span<const std::int64_t> decode_context_tokens;
};

struct OpCost {
  double time_s = 0;
  double compute_s = 0;  // roofline compute term (before max)
  double memory_s = 0;   // roofline memory term
  double flop = 0;
  double bytes = 0;
  bool memory_bound() const { return memory_s >= compute_s; }
};

struct IterationCost {
  std::array<OpCost, kNumOpClasses> ops{};
  double total_s = 0;
  std::int64_t num_tokens = 0;        // tokens through the target model this step
  std::int64_t num_decode_seqs = 0;
  Provenance provenance = Provenance::kDatasheet;
  // The GPU's own work this step, and (launched eagerly) the CPU time to issue its kernels; the
  // step is host-bound when the second is the longer.
  double gpu_s = 0;
  double host_launch_s = 0;

  const OpCost& op(OpClass c) const { return ops[static_cast<std::size_t>(c)]; }
  // At the typical launch cost the profile gives (validation also asks about the slowest).
  bool host_bound() const { return host_launch_s > gpu_s; }
  double iteration_s() const { return total_s; }
};

IterationCost predict_iteration(const BatchShape& batch, const Deployment& d, const CalibrationProfile& cal);

// Convenience for tests and the CLI: a uniform decode batch or a single prefill.
IterationCost predict_decode(const Deployment& d, const CalibrationProfile& cal, int batch, std::int64_t context);
IterationCost predict_prefill(const Deployment& d, const CalibrationProfile& cal, std::int64_t tokens,
                              std::int64_t context = 0, int num_prompts = 1);

}  // namespace tycoon::perf
