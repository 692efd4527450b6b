#include "sim/perf/layer_ops.h"

#include <algorithm>
#include <cmath>

namespace tycoon::perf::step {

// GQA/MHA attention: QKV and output projections, QK-norm, rotary and the KV-cache write.
void add_gqa_projections(const StepShape& s, const data::Mixer& m, double L) {
  CostBuilder& b = s.b;
  const double T = s.T;
  double q = heads_per_gpu(m.num_q_heads, s.tp), kv = heads_per_gpu(m.num_kv_heads, s.tp);
  b.gemm(OpClass::kAttentionProj, T, q * m.head_dim + kv * (m.kv_shared ? m.head_dim : m.head_dim + m.v_head_dim), s.h,
         s.dense_p, L);
  b.gemm(OpClass::kAttentionProj, T, s.h, q * m.v_head_dim, s.dense_p, L);
  if (m.qk_norm) {  // per-head RMSNorm of q, then of k: read + write each
    for (double heads : {q, kv}) {
      b.fusable(OpClass::kNormElementwise, T * heads * m.head_dim * kAct * 2, L, s.d.engine->fused_qk_norm,
                s.cal.qk_norm_memory_eff, 1);
    }
    b.note_extra_kernels(2 * L);
  }
  b.rotary(T * q * m.head_dim * kAct * 2, L);  // one read + one write of q, then of k
  b.rotary(T * kv * m.head_dim * kAct * 2, L);
  // The new keys and values into the paged cache: read in activation precision, write in the
  // cache's; one copy each for K and V.
  if (s.d.engine->fused_kv_write) {
    double kv_width = kv * (m.kv_shared ? m.head_dim : m.head_dim + m.v_head_dim);
    b.elementwise(OpClass::kNormElementwise, T * kv_width * (kAct + s.kv_b), L, 1);
  } else {  // one strided copy for K, one for V, each as measured (kv_write rows)
    b.memory_op(OpClass::kNormElementwise, T * kv * m.head_dim * (kAct + s.kv_b), s.cal.kv_write_memory_eff, L, 1);
    if (!m.kv_shared) {
      b.memory_op(OpClass::kNormElementwise, T * kv * m.v_head_dim * (kAct + s.kv_b), s.cal.kv_write_memory_eff, L, 1);
    }
  }
}

// MLA: the down/up projections of q and the latent, the latent's expansion for prefill and its
// absorption for decode, the output projection and (DeepSeek sparse attention) the indexer's.
void add_mla_projections(const StepShape& s, const data::Mixer& m, double L) {
  CostBuilder& b = s.b;
  const double T = s.T, h = s.h;
  const Precision p = s.dense_p;
  double q = heads_per_gpu(m.num_q_heads, s.tp);
  double qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
  if (m.q_lora_rank > 0) {
    b.gemm(OpClass::kAttentionProj, T, m.q_lora_rank + m.kv_lora_rank + m.qk_rope_head_dim, h, p, L);
    b.gemm(OpClass::kAttentionProj, T, q * qk, m.q_lora_rank, p, L);
  } else {
    b.gemm(OpClass::kAttentionProj, T, q * qk + m.kv_lora_rank + m.qk_rope_head_dim, h, p, L);
  }
  // Prefill expands the latent to per-head K/V; decode absorbs it into q and the output.
  b.gemm(OpClass::kAttentionProj, s.prefill_tokens, q * (m.qk_nope_head_dim + m.v_head_dim), m.kv_lora_rank, p, L);
  b.gemm(OpClass::kAttentionProj, s.decode_tokens, q * m.kv_lora_rank, m.qk_nope_head_dim, p, L);
  b.gemm(OpClass::kAttentionProj, s.decode_tokens, q * m.v_head_dim, m.kv_lora_rank, p, L);
  b.gemm(OpClass::kAttentionProj, T, h, q * m.v_head_dim, p, L);
  if (m.indexer_num_heads > 0) {
    b.gemm(OpClass::kAttentionProj, T, double(m.indexer_num_heads) * m.indexer_head_dim + m.indexer_head_dim,
           std::max(m.q_lora_rank, 1), p, L);
  }
}

// The length of the causal prefill from an empty cache that attends to `keys` query-key pairs per
// head (n(n+1)/2 = keys): the size at which a chunk's attention efficiency is looked up. The
// measured curve (calibration/data/h200/attention.jsonl, attn_prefill rows) is of prefills from an
// empty cache by length, and a flash kernel's efficiency follows the work of its tiles: a chunk
// of n new tokens over c cached ones attends to n*c + n(n+1)/2 keys, so a 2k-token chunk over a
// 60k context runs like a 16k-token prefill, not a 2k one. Exactly n when
// c = 0 (sqrt(1 + 4n(n+1)) = 2n + 1).
static double equivalent_prefill_tokens(double keys) { return (std::sqrt(1.0 + 8.0 * keys) - 1.0) / 2.0; }

// Prefill attention (flash, causal, varlen): one kernel per layer over every chunk of the batch.
void add_prefill_attention(const StepShape& s, const data::Mixer& m, const MixerDims& dims, double L) {
  for (const auto& p : s.batch.prefills) {
    double n = static_cast<double>(p.num_new_tokens), c = static_cast<double>(p.num_context_tokens);
    double keys = keys_for_span(m, c, n);
    double pre_dims =
        m.kind == MixerKind::kMla ? (m.qk_nope_head_dim + m.qk_rope_head_dim + m.v_head_dim) : dims.qk_dim + dims.v_dim;
    double flop = 2.0 * dims.heads * pre_dims * keys;
    double kv_read = std::min(c, keys_for_span(m, c, 1)) * dims.kv_values_per_key * s.kv_b;
    double bytes = n * (dims.heads * (dims.qk_dim + dims.v_dim)) * kAct + n * dims.kv_values_per_key * s.kv_b + kv_read;
    if (m.sparse_top_k_tokens > 0 && m.indexer_num_heads > 0) {
      flop += 2.0 * m.indexer_num_heads * m.indexer_head_dim * (n * c + n * (n + 1) / 2.0);
    }
    s.b.attention_prefill(flop, bytes, equivalent_prefill_tokens(keys), L);
  }
}

// A recurrent mixer's state update (delta rule, SSD scan): ~6 flop per state element per token;
// each sequence's fp32 state read and written once per step, plus the token-wise inputs.
static void add_recurrent_state(const StepShape& s, double state, double input_values, double L) {
  double seqs = s.num_decode + static_cast<double>(s.batch.prefills.size());
  double flop = 6.0 * state * s.T;
  double bytes = seqs * state * 4.0 * 2 + s.T * input_values * kAct;
  s.b.mixed(OpClass::kLinearMixer, flop, bytes, kRecurrentComputeEff, L, 3);
}

// Linear attention (gated delta rule): projections and the state update.
void add_linear_attention(const StepShape& s, const data::Mixer& m, double L) {
  double qk = heads_per_gpu(m.num_qk_heads, s.tp), v = heads_per_gpu(m.num_v_heads, s.tp);
  s.b.gemm(OpClass::kLinearMixer, s.T, 2 * qk * m.head_dim + 2 * v * m.v_head_dim + 2 * v, s.h, s.dense_p, L);
  s.b.gemm(OpClass::kLinearMixer, s.T, s.h, v * m.v_head_dim, s.dense_p, L);
  add_recurrent_state(s, v * m.head_dim * m.v_head_dim, 2 * qk * m.head_dim + 2 * v * m.v_head_dim, L);
}

// Mamba-2: projections and the SSD state update.
void add_mamba2(const StepShape& s, const data::Mixer& m, double L) {
  double heads = heads_per_gpu(m.num_heads, s.tp), groups = heads_per_gpu(m.num_groups, s.tp);
  double inner = heads * m.head_dim;
  s.b.gemm(OpClass::kLinearMixer, s.T, 2 * inner + 2 * groups * m.state_size + heads, s.h, s.dense_p, L);
  s.b.gemm(OpClass::kLinearMixer, s.T, s.h, inner, s.dense_p, L);
  add_recurrent_state(s, inner * m.state_size, 2 * inner + 2 * groups * m.state_size, L);
}

// Dense FFN: up (and gate) projection, activation, down projection.
static void add_dense_ffn(const StepShape& s, const data::Ffn& f, double L) {
  double mats_in = f.gated ? 2.0 : 1.0;
  double inter = static_cast<double>(f.intermediate_size) / s.tp;
  s.b.gemm(OpClass::kDenseFfn, s.T, mats_in * inter, s.h, s.dense_p, L);
  if (f.gated) {
    s.b.activation(OpClass::kNormElementwise, s.T * inter * kAct * 3, L);
  } else {
    s.b.elementwise(OpClass::kNormElementwise, s.T * inter * kAct * 2, L, 1);
  }
  s.b.gemm(OpClass::kDenseFfn, s.T, s.h, inter, s.dense_p, L);
}

// An MoE layer's replicated part: router, routing bookkeeping, latent projections, shared experts.
static void add_moe_shared(const StepShape& s, const data::Ffn& f, double width, double L) {
  CostBuilder& b = s.b;
  const double T = s.T, h = s.h;
  double E = f.num_experts, k = f.top_k;
  b.gemm(OpClass::kMoeShared, T, E, h, Precision::kBf16, L);  // router
  if (s.d.engine->fused_moe_routing) {
    b.elementwise(OpClass::kMoeShared, T * E * 4.0 + T * k * 8.0, L, 2);  // top-k + permute bookkeeping
  }
  if (f.latent_size > 0) {
    b.gemm(OpClass::kMoeShared, T, width, h, s.dense_p, L);
    b.gemm(OpClass::kMoeShared, T, h, width, s.dense_p, L);
  }
  if (f.num_shared_experts > 0) {
    double mats_in = f.gated ? 2.0 : 1.0;
    double inter = static_cast<double>(f.shared_intermediate_size) * f.num_shared_experts / s.tp;
    b.gemm(OpClass::kMoeShared, T, mats_in * inter, h, s.dense_p, L);
    b.gemm(OpClass::kMoeShared, T, h, inter, s.dense_p, L);
  }
}

// An MoE layer's routed experts on this GPU: grouped GEMMs, activation, combine (fused, or the
// unfused dispatch and combine kernels), and the expert-parallel all-to-all.
static void add_moe_experts(const StepShape& s, const data::Ffn& f, double width, double L) {
  CostBuilder& b = s.b;
  const double T = s.T;
  double E = f.num_experts, k = f.top_k;
  // Expected distinct experts touched by T tokens choosing k of E uniformly, except that
  // the q_per_seq positions one sequence verifies together (speculative decoding) reuse
  // experts: they touch k x (1 + (q - 1) x f) distinct ones (f: the model card's
  // sequence_new_expert_fraction), counted as the number of independent tokens that
  // would touch as many.
  double independent_tokens = T;
  const double f_new = s.d.model->sequence_new_expert_fraction;
  const double q_per_seq = s.q_per_seq;
  if (q_per_seq > 1 && s.num_decode > 0 && f_new < 1.0 && k < E) {
    const double per_seq = k * (1.0 + (q_per_seq - 1.0) * f_new);
    const double n_eff = per_seq < E ? std::log1p(-per_seq / E) / std::log1p(-k / E) : q_per_seq;
    independent_tokens = s.prefill_tokens + s.num_decode * std::min(n_eff, q_per_seq);
  }
  double touched = experts_touched(E, k, independent_tokens);
  // Each GPU holds E/ep experts, each split over tp/ep ranks.
  double shard = static_cast<double>(s.tp) / s.ep;
  double touched_gpu = touched / s.ep;
  double pairs_gpu = T * k / s.ep;
  double inter_gpu = static_cast<double>(f.expert_intermediate_size) / shard;
  // Between the two grouped GEMMs the activation runs as its own kernel (vLLM's fused_moe too);
  // after them each token's k expert outputs are read and summed into one vector. An engine's
  // published MoE kernel (CostBuilder::experts returns true) is one fused call that does both.
  if (!b.experts(pairs_gpu, touched_gpu, width, inter_gpu, f.gated, s.expert_p, L)) {
    if (f.gated) {
      b.activation(OpClass::kMoeExperts, pairs_gpu * inter_gpu * kAct * 3, L);
    } else {
      b.elementwise(OpClass::kMoeExperts, pairs_gpu * inter_gpu * kAct * 2, L, 1);
    }
    if (s.d.engine->fused_moe_routing) {
      b.elementwise(OpClass::kMoeExperts, (pairs_gpu + T) * width * kAct, L, 1);
    } else {
      // Top-k, sort, gather, weighting and scatter-add as separate kernels (about 20 per layer in
      // the reference engine's profile, diagnostics/profile_prefill.json), one measured curve.
      b.memory_op(OpClass::kMoeShared, moe_route_bytes(T, pairs_gpu, width), s.cal.moe_route_memory_eff, L, 20);
    }
  }
  if (s.ep > 1) {
    // dispatch + combine of every routed token's hidden vector
    double msg = T * k * width * kAct / s.ep;
    b.allreduce(OpClass::kEpAllToAll, msg, s.ep, L, 0.5 * 2.0);
  }
}

// The FFN block of a layer group: its norms, then a dense FFN or an MoE layer.
void add_ffn(const StepShape& s, const data::Ffn& f, double L) {
  s.b.elementwise(OpClass::kNormElementwise, s.T * s.h * kAct * 4, L, 2);
  switch (f.kind) {
    case FfnKind::kDense:
      add_dense_ffn(s, f, L);
      break;
    case FfnKind::kMoe: {
      double width = f.latent_size > 0 ? static_cast<double>(f.latent_size) : s.h;
      add_moe_shared(s, f, width, L);
      add_moe_experts(s, f, width, L);
      break;
    }
  }
}

// Embedding gather, final norm, LM head on the positions that produce logits, sampling.
void add_embed_lm_head(const StepShape& s) {
  const double vocab = static_cast<double>(s.d.model->vocab_size);
  s.b.elementwise(OpClass::kEmbedLmHead, s.T * s.h * kAct * 2, 1, 1);
  s.b.gemm(OpClass::kEmbedLmHead, s.logits, vocab / s.tp, s.h, Precision::kBf16, 1);
  s.b.elementwise(OpClass::kEmbedLmHead, s.logits * vocab / s.tp * 4.0 * 2, 1, 2);
}

}  // namespace tycoon::perf::step
