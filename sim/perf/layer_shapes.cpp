#include "sim/perf/layer_shapes.h"

#include <algorithm>

namespace tycoon::perf {

using data::FfnKind;
using data::MixerKind;

LayerParams layer_params_per_gpu(const data::LayerGroup& g, std::int64_t hidden_i, int tp) {
  const double h = static_cast<double>(hidden_i);
  LayerParams p;
  if (g.mixer) {
    const auto& m = *g.mixer;
    switch (m.kind) {
      case MixerKind::kAttention: {
        double q = heads_per_gpu(m.num_q_heads, tp);
        double kv = heads_per_gpu(m.num_kv_heads, tp);
        p.mixer =
            h * q * m.head_dim + h * kv * (m.kv_shared ? m.head_dim : m.head_dim + m.v_head_dim) + q * m.v_head_dim * h;
        break;
      }
      case MixerKind::kMla: {
        double q = heads_per_gpu(m.num_q_heads, tp);
        double qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
        double q_path = m.q_lora_rank > 0 ? h * m.q_lora_rank + m.q_lora_rank * q * qk : h * q * qk;
        double kv_a = h * (m.kv_lora_rank + m.qk_rope_head_dim);
        double kv_b = m.kv_lora_rank * q * (m.qk_nope_head_dim + m.v_head_dim);
        double o = q * m.v_head_dim * h;
        double indexer =
            m.indexer_num_heads > 0
                ? std::max(m.q_lora_rank, 1) * double(m.indexer_num_heads) * m.indexer_head_dim + h * m.indexer_head_dim
                : 0.0;
        p.mixer = q_path + kv_a + kv_b + o + indexer;
        break;
      }
      case MixerKind::kLinearAttention: {
        double qk = heads_per_gpu(m.num_qk_heads, tp);
        double v = heads_per_gpu(m.num_v_heads, tp);
        // q, k, v, output gate, decay and beta gates in; output projection out.
        p.mixer = h * (2 * qk * m.head_dim + 2 * v * m.v_head_dim + 2 * v) + v * m.v_head_dim * h;
        break;
      }
      case MixerKind::kMamba2: {
        double heads = heads_per_gpu(m.num_heads, tp);
        double inner = heads * m.head_dim;
        double groups = heads_per_gpu(m.num_groups, tp);
        // z, x, B, C, dt in; output projection out.
        p.mixer = h * (2 * inner + 2 * groups * m.state_size + heads) + inner * h;
        break;
      }
    }
  }
  if (g.ffn) {
    const auto& f = *g.ffn;
    double mats = f.gated ? 3.0 : 2.0;
    switch (f.kind) {
      case FfnKind::kDense:
        p.dense_ffn = mats * h * static_cast<double>(f.intermediate_size) / tp;
        break;
      case FfnKind::kMoe: {
        double width = f.latent_size > 0 ? static_cast<double>(f.latent_size) : h;
        p.routed_experts = mats * width * static_cast<double>(f.expert_intermediate_size) * f.num_experts / tp;
        p.shared_experts = mats * h * static_cast<double>(f.shared_intermediate_size) * f.num_shared_experts / tp;
        if (f.latent_size > 0) p.shared_experts += 2.0 * h * static_cast<double>(f.latent_size);  // replicated
        p.router = h * f.num_experts;
        break;
      }
    }
  }
  return p;
}

double kv_values_per_token(const data::Mixer& m, int tp) {
  switch (m.kind) {
    case MixerKind::kAttention:
      if (m.sliding_window_tokens > 0 || m.chunk_tokens > 0) return 0.0;
      return heads_per_gpu(m.num_kv_heads, tp) * (m.kv_shared ? m.head_dim : m.head_dim + m.v_head_dim) /
             m.kv_compression_ratio;
    case MixerKind::kMla:
      // The latent and the rope key are stored once per token and replicated on every TP rank;
      // DSA adds an fp8 indexer key (counted as half a bf16 value per dim).
      return m.kv_lora_rank + m.qk_rope_head_dim + (m.indexer_head_dim > 0 ? 0.5 * m.indexer_head_dim : 0.0);
    case MixerKind::kLinearAttention:
    case MixerKind::kMamba2:
      return 0.0;
  }
  return 0.0;
}

double windowed_kv_values_per_sequence(const data::Mixer& m, int tp) {
  if (m.kind != MixerKind::kAttention) return 0.0;
  std::int64_t cap = m.sliding_window_tokens > 0 ? m.sliding_window_tokens : m.chunk_tokens;
  if (cap <= 0) return 0.0;
  return static_cast<double>(cap) * heads_per_gpu(m.num_kv_heads, tp) *
         (m.kv_shared ? m.head_dim : m.head_dim + m.v_head_dim);
}

double recurrent_state_bytes_per_sequence(const data::Mixer& m, int tp) {
  constexpr double kStateBytes = 4.0;  // fp32 recurrent state, as vLLM keeps it
  constexpr double kConvBytes = 2.0;
  switch (m.kind) {
    case MixerKind::kLinearAttention: {
      double v = heads_per_gpu(m.num_v_heads, tp);
      double qk = heads_per_gpu(m.num_qk_heads, tp);
      double state = v * m.head_dim * m.v_head_dim * kStateBytes;
      double conv = (2 * qk * m.head_dim + v * m.v_head_dim) * (m.conv_kernel - 1) * kConvBytes;
      return state + conv;
    }
    case MixerKind::kMamba2: {
      double heads = heads_per_gpu(m.num_heads, tp);
      double groups = heads_per_gpu(m.num_groups, tp);
      double state = heads * m.head_dim * m.state_size * kStateBytes;
      double conv = (heads * m.head_dim + 2 * groups * m.state_size) * (m.conv_kernel - 1) * kConvBytes;
      return state + conv;
    }
    case MixerKind::kAttention:
    case MixerKind::kMla:
      return 0.0;
  }
  return 0.0;
}

}  // namespace tycoon::perf
