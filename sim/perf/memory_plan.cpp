#include "sim/perf/memory_plan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/perf/layer_shapes.h"

namespace tycoon::perf {

namespace {

// aiconfigurator models 3.5 GB of "other_mem" per GPU (CUDA context, allocator slack) and a
// 342–392 MB NCCL buffer (ai-dynamo/aiconfigurator systems/h200_sxm.yaml, via shared/reference).
constexpr double kRuntimeReserveBytes = 3.5e9;
constexpr double kNcclBufferBytes = 0.4e9;

double weights_per_gpu(const Deployment& d) {
  const auto& m = *d.model;
  const int tp = d.tensor_parallel;
  const double dense_b = bytes_per_value(d.dense_weight_precision());
  const double expert_b = bytes_per_value(d.expert_weight_precision());
  double bytes = 0;
  for (const auto& g : m.layer_groups) {
    auto p = layer_params_per_gpu(g, m.hidden_size, tp);
    double per_layer =
        (p.mixer + p.dense_ffn + p.shared_experts) * dense_b + p.routed_experts * expert_b + p.router * 2.0;
    bytes += per_layer * g.count;
  }
  // Embedding and LM head stay bf16 and are vocab-parallel across TP ranks.
  double table = static_cast<double>(m.vocab_size) * static_cast<double>(m.hidden_size) * 2.0 / tp;
  bytes += m.tied_embeddings ? table : 2 * table;
  return bytes;
}

std::string gb(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GB", bytes / 1e9);
  return buf;
}

std::string format_percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g%%", fraction * 100);
  return buf;
}

}  // namespace

double model_weight_bytes(const Deployment& d) { return weights_per_gpu(d) * d.tensor_parallel; }

std::int64_t MemoryPlan::max_sequences(std::int64_t context_tokens) const {
  double per_seq = kv_bytes_per_token * static_cast<double>(context_tokens) + fixed_bytes_per_sequence;
  if (kv_capacity_bytes <= 0) return 0;
  if (per_seq <= 0) return std::numeric_limits<std::int32_t>::max();
  return static_cast<std::int64_t>(kv_capacity_bytes / per_seq);
}

MemoryPlan plan_memory(const Deployment& d, int max_num_batched_tokens, int max_num_seqs) {
  const auto& m = *d.model;
  const int tp = d.tensor_parallel;
  MemoryPlan p;
  // What the runtime sees, not the datasheet's marketing figure (H200: 150.1e9 B, not 141e9).
  p.hbm_bytes = d.hardware->runtime_memory_bytes;
  const double fraction =
      d.gpu_memory_utilization > 0 ? d.gpu_memory_utilization : (d.engine ? d.engine->kv_memory_fraction : 0.9);
  const auto basis = d.engine ? d.engine->kv_memory_basis : data::KvMemoryBasis::kTotal;
  p.weight_bytes = weights_per_gpu(d);
  p.runtime_reserve_bytes = kRuntimeReserveBytes + (tp > 1 ? kNcclBufferBytes : 0.0);

  // Peak activations: the widest intermediate of one layer for a full token budget (bf16),
  // plus fp32 logits for every sequence.
  double widest = static_cast<double>(m.hidden_size) * 4;
  for (const auto& g : m.layer_groups) {
    if (!g.ffn) continue;
    double inter = g.ffn->kind == data::FfnKind::kDense
                       ? static_cast<double>(g.ffn->intermediate_size)
                       : static_cast<double>(g.ffn->expert_intermediate_size) * g.ffn->top_k;
    widest = std::max(widest, 2.0 * inter / tp + 2.0 * static_cast<double>(m.hidden_size));
  }
  p.activation_bytes = static_cast<double>(max_num_batched_tokens) * widest * 2.0 +
                       static_cast<double>(max_num_seqs) * static_cast<double>(m.vocab_size) / tp * 4.0;

  const double kv_b = bytes_per_value(d.kv_cache_dtype);
  for (const auto& g : m.layer_groups) {
    if (!g.mixer) continue;
    p.kv_bytes_per_token += kv_values_per_token(*g.mixer, tp) * kv_b * g.count;
    p.fixed_bytes_per_sequence += windowed_kv_values_per_sequence(*g.mixer, tp) * kv_b * g.count +
                                  recurrent_state_bytes_per_sequence(*g.mixer, tp) * g.count;
  }
  // vLLM takes its fraction of the whole memory for everything; TensorRT-LLM of what the weights
  // and activations leave free (vllm-project/vllm PR #5158); SGLang of the whole memory for the
  // weights and its KV pool, with activations and CUDA graphs in the rest.
  const double fixed = p.weight_bytes + p.runtime_reserve_bytes + p.activation_bytes;
  switch (basis) {
    case data::KvMemoryBasis::kTotal:
      p.usable_bytes = p.hbm_bytes * fraction;
      p.kv_capacity_bytes = p.usable_bytes - fixed;
      break;
    case data::KvMemoryBasis::kFree:
      p.kv_capacity_bytes = fraction * (p.hbm_bytes - fixed);
      p.usable_bytes = std::min(p.hbm_bytes, fixed + std::max(0.0, p.kv_capacity_bytes));
      break;
    case data::KvMemoryBasis::kStatic:
      p.kv_capacity_bytes = p.hbm_bytes * fraction - p.weight_bytes;
      p.usable_bytes = std::min(p.hbm_bytes, fixed + std::max(0.0, p.kv_capacity_bytes));
      break;
  }
  if (p.kv_bytes_per_token > 0) {
    p.kv_capacity_tokens = static_cast<std::int64_t>(std::max(0.0, p.kv_capacity_bytes) / p.kv_bytes_per_token);
  } else {
    p.kv_capacity_tokens = p.kv_capacity_bytes > 0 ? static_cast<std::int64_t>(m.max_context_tokens) * 1024 : 0;
  }
  // At least one sequence of a modest prompt must fit.
  double need_one = p.fixed_bytes_per_sequence + p.kv_bytes_per_token * 1024;
  p.fits = p.kv_capacity_bytes > need_one;
  if (!p.fits) {
    // Said the way the engine budgets its memory, so that the figures add up.
    const std::string chips = std::to_string(tp) + " x " + d.hardware->name + " (" + gb(p.hbm_bytes) + " each)";
    const std::string fixed_parts = "weights " + gb(p.weight_bytes) + " + runtime " + gb(p.runtime_reserve_bytes) +
                                    " + activations " + gb(p.activation_bytes);
    const std::string pct = format_percent(fraction);
    switch (basis) {
      case data::KvMemoryBasis::kTotal:
        p.reason = "does not fit: " + chips + ", " + pct + " of it usable (" + gb(p.usable_bytes) + "), holds " +
                   fixed_parts + " per GPU, leaving " + gb(p.kv_capacity_bytes) + " for the KV cache";
        break;
      case data::KvMemoryBasis::kFree:
        p.reason = "does not fit: " + chips + " holds " + fixed_parts + " = " + gb(fixed) + " per GPU";
        p.reason += fixed >= p.hbm_bytes ? ", more than it has"
                                         : "; the KV cache gets " + pct + " of the " + gb(p.hbm_bytes - fixed) +
                                               " left, " + gb(p.kv_capacity_bytes);
        break;
      case data::KvMemoryBasis::kStatic:
        p.reason = "does not fit: " + chips + ": " + pct + " of it (" + gb(p.hbm_bytes * fraction) +
                   ") holds weights " + gb(p.weight_bytes) + " per GPU and the KV pool, leaving " +
                   gb(p.kv_capacity_bytes) + " for the KV pool";
        break;
    }
    if (p.kv_capacity_bytes > 0) p.reason += ", less than one 1,024-token sequence needs (" + gb(need_one) + ")";
  }
  return p;
}

}  // namespace tycoon::perf
