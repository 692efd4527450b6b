// Per-GPU weight shapes of a layer under tensor/expert parallelism: shared by the memory plan and
// the iteration cost so both count the same bytes.
#pragma once

#include "sim/data/model_card.h"
#include "sim/perf/deployment.h"

namespace tycoon::perf {

// Parameter counts of one layer of a group, per GPU of a replica.
struct LayerParams {
  double mixer = 0;           // attention / MLA / linear attention / mamba projections
  double dense_ffn = 0;       // dense FFN
  double routed_experts = 0;  // all routed experts (this GPU's share)
  double shared_experts = 0;  // shared experts + latent projections
  double router = 0;          // replicated router
};

LayerParams layer_params_per_gpu(const data::LayerGroup& g, std::int64_t hidden, int tp);

// KV-cache values stored per token for one layer on one GPU (0 for windowed/linear/mamba layers
// that keep a fixed state instead).
double kv_values_per_token(const data::Mixer& m, int tp);
// KV values kept per sequence for one layer regardless of its length (sliding window, chunked
// attention cap) — 0 for full attention.
double windowed_kv_values_per_sequence(const data::Mixer& m, int tp);
// Recurrent state bytes per sequence for one layer on one GPU (linear attention, mamba2).
double recurrent_state_bytes_per_sequence(const data::Mixer& m, int tp);

// Heads of a kind held by one GPU: n / tp, but at least one (KV heads replicate when n < tp).
inline double heads_per_gpu(int n, int tp) { return n >= tp ? static_cast<double>(n) / tp : 1.0; }

}  // namespace tycoon::perf
