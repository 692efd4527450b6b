// The op classes the performance model splits an engine step into (IterationCost::ops).
#pragma once

#include <array>
#include <cstddef>
#include <string_view>
#include <vector>

namespace tycoon::perf {

enum class OpClass {
  kAttentionProj,     // QKV / MLA / output projections
  kAttentionPrefill,  // attention core over prefill chunks
  kAttentionDecode,   // attention core over decode sequences (KV reads)
  kLinearMixer,       // linear attention / mamba2 projections and state updates
  kDenseFfn,          // dense MLP
  kMoeExperts,        // routed experts (grouped GEMMs)
  kMoeShared,         // router, shared experts, latent projections
  kNormElementwise,   // norms, activations, residuals, rotary
  kEmbedLmHead,       // embedding gather, LM head, sampling
  kTpAllReduce,       // tensor-parallel all-reduce
  kEpAllToAll,        // expert-parallel dispatch and combine
  kDrafter,           // speculative-decoding draft model
  kLaunchOverhead,    // kernel launch gaps (eager or graph replay)
  kEngineOverhead,    // engine CPU work per step (scheduling, sampling, detokenising)
  kCount
};
inline constexpr std::size_t kNumOpClasses = static_cast<std::size_t>(OpClass::kCount);
inline constexpr std::array<std::string_view, kNumOpClasses> kOpClassNames = {
    "attention_proj", "attention_prefill", "attention_decode", "linear_mixer",   "dense_ffn",
    "moe_experts",    "moe_shared",        "norm_elementwise", "embed_lm_head",  "tp_allreduce",
    "ep_alltoall",    "drafter",           "launch_overhead",  "engine_overhead"};
inline std::string_view to_string(OpClass c) { return kOpClassNames[static_cast<std::size_t>(c)]; }

// Where the time goes: each op class with time, its seconds and its share of all classes' time
// (the profiler panel, `tycoon benchmark` and `tycoon predict` show the same shares), in class order.
struct OpShare {
  OpClass op = OpClass::kCount;
  double time_s = 0;
  double share = 0;  // of the sum over classes, 0..1
};
inline std::vector<OpShare> time_shares(const std::array<double, kNumOpClasses>& time_s) {
  double total = 0;
  for (double t : time_s) total += t > 0 ? t : 0;
  std::vector<OpShare> out;
  if (total <= 0) return out;
  for (std::size_t i = 0; i < kNumOpClasses; ++i) {
    if (time_s[i] > 0) out.push_back({static_cast<OpClass>(i), time_s[i], time_s[i] / total});
  }
  return out;
}

}  // namespace tycoon::perf
