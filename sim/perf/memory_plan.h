// How a deployment uses each GPU's memory: weights, runtime reserve, activations, and what is left
// for the KV cache.
#pragma once

#include <cstdint>
#include <string>

#include "sim/perf/deployment.h"

namespace tycoon::perf {

struct MemoryPlan {
  double hbm_bytes = 0;  // per GPU, as the runtime sees it (Accelerator::runtime_memory_bytes)
  // What the engine takes: hbm x its fraction (vLLM); weights, runtime, activations and the KV
  // cache its fraction gives (TensorRT-LLM, SGLang).
  double usable_bytes = 0;
  double weight_bytes = 0;              // per GPU
  double runtime_reserve_bytes = 0;     // CUDA context, NCCL buffers, graphs
  double activation_bytes = 0;          // peak activations of the largest step
  double kv_capacity_bytes = 0;         // per GPU, what remains for KV pages and states
  double kv_bytes_per_token = 0;        // per GPU, growing with context (full-attention layers)
  double fixed_bytes_per_sequence = 0;  // per GPU: sliding-window caps + recurrent states
  std::int64_t kv_capacity_tokens = 0;  // tokens of context the cache holds (no fixed state counted)
  bool fits = false;
  std::string reason;  // why it does not fit, with the numbers

  // Sequences of `context_tokens` each that fit at once.
  std::int64_t max_sequences(std::int64_t context_tokens) const;
};

// `max_num_batched_tokens` and `max_num_seqs` size the activation reserve.
MemoryPlan plan_memory(const Deployment& d, int max_num_batched_tokens = 8192, int max_num_seqs = 256);

// Total weight bytes of the whole model at the deployment's precision (all GPUs together).
double model_weight_bytes(const Deployment& d);

}  // namespace tycoon::perf
