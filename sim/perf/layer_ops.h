// The op families of one layer and of the model's ends, each adding its kernels to a step's
// CostBuilder: attention (GQA, MLA), linear attention, Mamba-2, dense FFN, MoE, embedding and LM
// head. Internal to the iteration cost model: iteration_cost.cpp assembles them into a step.
#pragma once

#include "sim/data/model_card.h"
#include "sim/perf/cost_builder.h"
#include "sim/perf/layer_shapes.h"

namespace tycoon::perf::step {

using data::FfnKind;
using data::MixerKind;

// Keys a query at absolute position `pos` (0-based) attends to under the mixer's pattern.
inline double keys_for_position(const data::Mixer& m, double pos) {
  double keys = pos + 1;
  if (m.sliding_window_tokens > 0) keys = std::min(keys, static_cast<double>(m.sliding_window_tokens));
  if (m.chunk_tokens > 0) keys = std::fmod(pos, static_cast<double>(m.chunk_tokens)) + 1;
  if (m.kind == MixerKind::kAttention) keys /= m.kv_compression_ratio;
  if (m.sparse_top_k_tokens > 0) keys = std::min(keys, static_cast<double>(m.sparse_top_k_tokens));
  return keys;
}

// Sum of attended keys over queries at positions [c, c + n): closed forms for causal attention
// with a window cap; chunked attention uses the mean chunk fill.
inline double keys_for_span(const data::Mixer& m, double c, double n) {
  if (n <= 0) return 0;
  double w = m.sliding_window_tokens > 0 ? static_cast<double>(m.sliding_window_tokens) : 0;
  double sum;
  if (m.chunk_tokens > 0) {
    double ch = static_cast<double>(m.chunk_tokens);
    sum = n * std::min((c + n) / 2.0 + 0.5, ch / 2.0 + 0.5);
  } else if (w > 0) {
    // positions p in [c, c+n): keys = min(p + 1, w)
    double start = c + 1, end = c + n;  // keys before cap run from start to end
    if (end <= w) {
      sum = (start + end) * n / 2.0;
    } else if (start >= w) {
      sum = w * n;
    } else {
      double below = w - start;  // count of positions with keys < w
      sum = (start + (w - 1)) * below / 2.0 + w * (n - below);
    }
  } else {
    sum = n * c + n * (n + 1) / 2.0;
  }
  if (m.kind == MixerKind::kAttention) sum /= m.kv_compression_ratio;
  if (m.sparse_top_k_tokens > 0) sum = std::min(sum, n * static_cast<double>(m.sparse_top_k_tokens));
  return sum;
}

struct MixerDims {
  double qk_dim = 0;             // per head, for scores
  double v_dim = 0;              // per head, for the weighted sum
  double heads = 0;              // query heads on this GPU
  double kv_values_per_key = 0;  // KV values read per attended key per GPU
};

inline MixerDims mixer_dims(const data::Mixer& m, int tp) {
  MixerDims x;
  x.heads = heads_per_gpu(m.num_q_heads, tp);
  if (m.kind == MixerKind::kMla) {
    // Decode runs in the latent space (weight absorption): scores over kv_lora + rope, values kv_lora.
    x.qk_dim = m.kv_lora_rank + m.qk_rope_head_dim;
    x.v_dim = m.kv_lora_rank;
    x.kv_values_per_key = m.kv_lora_rank + m.qk_rope_head_dim;
  } else {
    x.qk_dim = m.head_dim;
    x.v_dim = m.v_head_dim;
    x.kv_values_per_key = heads_per_gpu(m.num_kv_heads, tp) * (m.kv_shared ? m.head_dim : m.head_dim + m.v_head_dim);
  }
  return x;
}

// Decode attention of one layer group: the work for `keys_total` attended keys summed over the
// decoding sequences (and `index_total` contexts for a sparse-attention indexer).
struct DecodeAttentionWork {
  double flop = 0, bytes = 0;
};
inline DecodeAttentionWork decode_attention_work(const data::Mixer& m, const MixerDims& dims, double keys_total,
                                                 double index_total, double q_per_seq, double decode_tokens,
                                                 double kv_b) {
  DecodeAttentionWork w;
  w.flop = 2.0 * dims.heads * (dims.qk_dim + dims.v_dim) * keys_total * q_per_seq +
           2.0 * m.indexer_num_heads * m.indexer_head_dim * index_total * q_per_seq;
  w.bytes = keys_total * dims.kv_values_per_key * kv_b + index_total * m.indexer_head_dim +
            decode_tokens * dims.heads * (dims.qk_dim + dims.v_dim) * kAct;
  return w;
}

// What every op family of one step reads: the deployment, the batch's token counts, and the
// builder its ops accumulate into.
struct StepShape {
  const BatchShape& batch;
  const Deployment& d;
  const CalibrationProfile& cal;
  CostBuilder& b;
  int tp = 1, ep = 1;
  double h = 0;               // hidden size
  double kv_b = 2;            // bytes per KV-cache value
  double prefill_tokens = 0;  // new tokens of the prefill chunks
  double decode_tokens = 0;   // decoding sequences x tokens verified per sequence
  double num_decode = 0;      // decoding sequences
  double T = 0;               // tokens through the target model
  double logits = 0;          // positions that produce logits
  double q_per_seq = 1;       // positions each decoding sequence verifies (1 + draft tokens)
  Precision dense_p = Precision::kBf16, expert_p = Precision::kBf16;
};

// GQA/MHA attention: QKV and output projections, QK-norm, rotary and the KV-cache write.
void add_gqa_projections(const StepShape& s, const data::Mixer& m, double L);
// MLA: the down/up projections of q and the latent, the latent's expansion for prefill and its
// absorption for decode, the output projection and (DeepSeek sparse attention) the indexer's.
void add_mla_projections(const StepShape& s, const data::Mixer& m, double L);
// Prefill attention (flash, causal, varlen): one kernel per layer over every chunk of the batch.
void add_prefill_attention(const StepShape& s, const data::Mixer& m, const MixerDims& dims, double L);
// Linear attention (gated delta rule): projections and the state update.
void add_linear_attention(const StepShape& s, const data::Mixer& m, double L);
// Mamba-2: projections and the SSD state update.
void add_mamba2(const StepShape& s, const data::Mixer& m, double L);
// The FFN block of a layer group: its norms, then a dense FFN or an MoE layer.
void add_ffn(const StepShape& s, const data::Ffn& f, double L);
// Embedding gather, final norm, LM head on the positions that produce logits, sampling.
void add_embed_lm_head(const StepShape& s);

}  // namespace tycoon::perf::step
