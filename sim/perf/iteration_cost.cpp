#include "sim/perf/iteration_cost.h"

#include <algorithm>
#include <cmath>

#include "sim/perf/layer_shapes.h"

namespace tycoon::perf {

namespace {

using data::FfnKind;
using data::MixerKind;

constexpr double kAct = 2.0;  // activations are bf16
// Chunked delta-rule / SSD scans reach a modest share of the tensor peak (estimate, no
// calibration of these kernels yet; the op is usually memory-bound at decode).
constexpr double kRecurrentComputeEff = 0.3;

int precision_index(Precision p) {
  switch (p) {
    case Precision::kBf16:
    case Precision::kInt4:
      return 0;
    case Precision::kFp8:
      return 1;
    case Precision::kFp4:
      return 2;
  }
  return 0;
}

// One kernel group's time before multiplying by layers: the roofline terms through the engine's
// kernel efficiency, at least the kernel floor (launched eagerly, a step cannot outrun the CPU
// issuing it).
struct KernelTerms {
  double comp, mem, t;
};
KernelTerms kernel_terms(double comp, double mem, int kernels, double engine_eff, double kernel_floor_s) {
  comp /= engine_eff;
  mem /= engine_eff;
  return {comp, mem, std::max({comp, mem, kernels * kernel_floor_s})};
}

// Decode attention's roofline terms (before the engine efficiency) for `flop` and `bytes`.
void decode_attention_roofline(const Deployment& d, const CalibrationProfile& cal, double flop, double bytes,
                               double& comp, double& mem) {
  comp = flop / (d.hardware->peak_flop_per_s(Precision::kBf16) * 0.5);
  mem = bytes / (d.hardware->hbm_bandwidth_bytes_per_s * cal.attn_decode_memory_eff(bytes));
}

// Curve::operator() (calibration_profile.cpp), the same operations, inlined for the per-step
// decode attention of DecodeStepModel::step_times.
// `hint`: the segment found last time (its upper knot), tried first: sizes move slowly from one
// step to the next, and the segment holding x is the one upper_bound finds.
inline double curve_at(const Curve& curve, double size, std::size_t& hint) {
  const auto& k = curve.knots();
  if (k.empty()) return 1.0;
  if (k.size() == 1) return k.front().second;
  double x = std::log2(std::max(size, 1e-30));
  if (x <= k.front().first) return k.front().second;
  if (x >= k.back().first) return k.back().second;
  std::size_t i = hint;
  if (i == 0 || i >= k.size() || !(k[i - 1].first <= x && x < k[i].first)) {
    auto it = std::upper_bound(k.begin(), k.end(), x,
                               [](double v, const std::pair<double, double>& knot) { return v < knot.first; });
    i = static_cast<std::size_t>(it - k.begin());
    hint = i;
  }
  const auto& hi = k[i];
  const auto& lo = k[i - 1];
  double t = (x - lo.first) / (hi.first - lo.first);
  return lo.second + t * (hi.second - lo.second);
}

// Accumulates op costs for one step. Each add_* computes one layer's work and multiplies by the
// number of identical layers.
class CostBuilder {
 public:
  CostBuilder(const Deployment& d, const CalibrationProfile& cal, IterationCost& out, bool eager)
      : CostBuilder(d, cal, out, eager, d.engine->efficiency_on(d.hardware->vendor)) {}
  CostBuilder(const Deployment& d, const CalibrationProfile& cal, IterationCost& out, bool eager, double engine_eff)
      : d_(d), cal_(cal), out_(out), eager_(eager) {
    bw_ = d.hardware->hbm_bandwidth_bytes_per_s;
    engine_eff_ = engine_eff;
  }

  // Small kernels the engine launches that the op accounting above does not model (reshapes,
  // cache writes, unfused rotary steps, ...): each costs one kernel floor, or one CPU launch
  // when the step runs eagerly.
  void glue_kernels(double kernels) {
    if (kernels <= 0) return;
    double t = kernels * cal_.kernel_floor_s;
    auto& o = out_.ops[static_cast<std::size_t>(OpClass::kLaunchOverhead)];
    o.time_s += t;
    o.memory_s += t;
    kernels_ += kernels;
  }

  // A dense GEMM [M x K] · [K x N] with weights in `wp`.
  void gemm(OpClass c, double m, double n, double k, Precision wp, double layers, int kernels = 1) {
    if (m <= 0 || n <= 0 || k <= 0) return;
    Precision math = d_.math_precision(wp);
    double flop = 2 * m * n * k;
    double bytes = n * k * bytes_per_value(wp) + m * k * kAct + m * n * kAct;
    double comp = flop / (d_.hardware->peak_flop_per_s(math) * cal_.gemm_compute_eff[precision_index(math)](m));
    double mem = bytes / (bw_ * cal_.gemm_memory_eff(bytes));
    add(c, flop, bytes, comp, mem, layers, kernels);
  }

  // Grouped expert GEMMs: `tokens` routed token-expert pairs over `touched` experts of the GPU.
  void experts(double pairs, double touched, double width, double inter, bool gated, Precision wp, double layers) {
    if (pairs <= 0 || touched <= 0) return;
    Precision math = d_.math_precision(wp);
    double mats = gated ? 3.0 : 2.0;
    double flop = 2 * pairs * width * inter * mats;
    double weight_bytes = touched * width * inter * mats * bytes_per_value(wp);
    double bytes = weight_bytes + pairs * (width * 2 + inter * (gated ? 3 : 2)) * kAct;
    double per_expert = pairs / touched;
    double comp = flop / (d_.hardware->peak_flop_per_s(math) * cal_.moe_compute_eff(per_expert));
    double mem = bytes / (bw_ * cal_.moe_memory_eff(bytes));
    add(OpClass::kMoeExperts, flop, bytes, comp, mem, layers, 3);
  }

  // A kernel with both arithmetic (at `compute_eff` of the bf16 peak) and memory traffic.
  void mixed(OpClass c, double flop, double bytes, double compute_eff, double layers, int kernels) {
    double comp = flop / (d_.hardware->peak_flop_per_s(Precision::kBf16) * compute_eff);
    double mem = bytes / (bw_ * cal_.elementwise_memory_eff(bytes));
    add(c, flop, bytes, comp, mem, layers, kernels);
  }

  // Rotary embedding of one tensor of `bytes` (read + write): one fused kernel, or the unfused
  // strided version (7 kernels) with its own measured efficiency.
  void rotary(double bytes, double layers) {
    fusable(OpClass::kNormElementwise, bytes, layers, d_.engine->fused_rotary, cal_.rotary_unfused_memory_eff, 7);
  }

  // Gated activation silu(gate) * up over `bytes` (read both halves, write the product): one
  // fused kernel, or the unfused strided pair with its own measured efficiency.
  void activation(OpClass c, double bytes, double layers) {
    fusable(c, bytes, layers, d_.engine->fused_activation, cal_.activation_unfused_memory_eff, 2);
  }

  // A memory-bound step an engine either fuses into one kernel at elementwise speed, or runs as
  // `unfused_kernels` separate kernels at the efficiency measured for that form (`unfused_eff`).
  void fusable(OpClass c, double bytes, double layers, bool fused, const Curve& unfused_eff, int unfused_kernels) {
    if (fused) {
      elementwise(c, bytes, layers, 1);
    } else {
      memory_op(c, bytes, unfused_eff, layers, unfused_kernels);
    }
  }

  // A memory-bound kernel at the efficiency curve `eff`.
  void memory_op(OpClass c, double bytes, const Curve& eff, double layers, int kernels) {
    if (bytes <= 0) return;
    double mem = bytes / (bw_ * eff(bytes));
    add(c, 0, bytes, 0, mem, layers, kernels);
  }

  void elementwise(OpClass c, double bytes, double layers, int kernels) {
    memory_op(c, bytes, cal_.elementwise_memory_eff, layers, kernels);
  }

  // Prefill attention of `flop` and `bytes` whose efficiency is that of a causal prefill of
  // `equivalent_tokens` from an empty cache (equivalent_prefill_tokens says which).
  void attention_prefill(double flop, double bytes, double equivalent_tokens, double layers) {
    if (flop <= 0) return;
    double comp =
        flop / (d_.hardware->peak_flop_per_s(Precision::kBf16) * cal_.attn_prefill_compute_eff(equivalent_tokens));
    double mem = bytes / (bw_ * cal_.elementwise_memory_eff(bytes));
    add(OpClass::kAttentionPrefill, flop, bytes, comp, mem, layers, 1);
  }

  void attention_decode(double flop, double bytes, double layers) {
    if (bytes <= 0) return;
    double comp, mem;
    decode_attention_roofline(d_, cal_, flop, bytes, comp, mem);
    add(OpClass::kAttentionDecode, flop, bytes, comp, mem, layers, 1);
  }
  // The kernel count attention_decode() adds, without its time (DecodeStepModel adds the time
  // per step; the count, a running sum, stays where the full model takes it).
  void count_attention_decode_kernels(double layers) { kernels_ += 1 * layers; }

  // A collective over the scale-up fabric: ring all-reduce moves 2(n-1)/n of the message.
  void allreduce(OpClass c, double message_bytes, int ranks, double layers, double factor = 1.0) {
    if (ranks <= 1 || message_bytes <= 0) return;
    double wire = factor * 2.0 * (ranks - 1) / ranks * message_bytes;
    // A ring spanning nodes runs at its slowest hop: the scale-out network.
    double link_bw = ranks > d_.hardware->scale_up.domain_size ? d_.hardware->scale_out_bandwidth_bytes_per_s
                                                               : d_.hardware->scale_up.bandwidth_bytes_per_s;
    double link = link_bw * cal_.allreduce_bus_eff(message_bytes);
    double t = (eager_ ? cal_.allreduce_eager_latency_s : cal_.allreduce_latency_s) + wire / link;
    auto& o = out_.ops[static_cast<std::size_t>(c)];
    o.time_s += t * layers;
    o.memory_s += t * layers;
    o.bytes += wire * layers;
    kernels_ += layers;
    extra_kernels_ += layers;
  }

  double kernels() const { return kernels_; }
  bool eager() const { return eager_; }
  double engine_eff() const { return engine_eff_; }
  // Adds every op of `part` (one pass of `part_kernels` kernels) `times` over into class `c`.
  void absorb(OpClass c, const IterationCost& part, double part_kernels, double times) {
    auto& o = out_.ops[static_cast<std::size_t>(c)];
    for (const auto& x : part.ops) {
      o.time_s += x.time_s * times;
      o.compute_s += x.compute_s * times;
      o.memory_s += x.memory_s * times;
      o.flop += x.flop * times;
      o.bytes += x.bytes * times;
    }
    kernels_ += part_kernels * times;
  }
  // Kernels that an engine's per-layer count (measured on a layer without them) leaves out:
  // collectives and QK-norm.
  double extra_kernels() const { return extra_kernels_; }
  void note_extra_kernels(double k) { extra_kernels_ += k; }

 private:
  void add(OpClass c, double flop, double bytes, double comp, double mem, double layers, int kernels) {
    const KernelTerms k = kernel_terms(comp, mem, kernels, engine_eff_, cal_.kernel_floor_s);
    auto& o = out_.ops[static_cast<std::size_t>(c)];
    o.time_s += k.t * layers;
    o.compute_s += k.comp * layers;
    o.memory_s += k.mem * layers;
    o.flop += flop * layers;
    o.bytes += bytes * layers;
    kernels_ += kernels * layers;
  }

  const Deployment& d_;
  const CalibrationProfile& cal_;
  IterationCost& out_;
  bool eager_ = false;
  double bw_ = 1;
  double engine_eff_ = 1;
  double kernels_ = 0;
  double extra_kernels_ = 0;
};

// Keys a query at absolute position `pos` (0-based) attends to under the mixer's pattern.
double keys_for_position(const data::Mixer& m, double pos) {
  double keys = pos + 1;
  if (m.sliding_window_tokens > 0) keys = std::min(keys, static_cast<double>(m.sliding_window_tokens));
  if (m.chunk_tokens > 0) keys = std::fmod(pos, static_cast<double>(m.chunk_tokens)) + 1;
  if (m.kind == MixerKind::kAttention) keys /= m.kv_compression_ratio;
  if (m.sparse_top_k_tokens > 0) keys = std::min(keys, static_cast<double>(m.sparse_top_k_tokens));
  return keys;
}

// Sum of attended keys over queries at positions [c, c + n): closed forms for causal attention
// with a window cap; chunked attention uses the mean chunk fill.
double keys_for_span(const data::Mixer& m, double c, double n) {
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

MixerDims mixer_dims(const data::Mixer& m, int tp) {
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

// The dimensions a DecodeStepModel group keeps (its type is private to the class: deduced here).
template <class Group>
MixerDims dims_of(const Group& x) {
  MixerDims dims;
  dims.heads = x.heads;
  dims.qk_dim = x.qk_dim;
  dims.v_dim = x.v_dim;
  dims.kv_values_per_key = x.kv_values_per_key;
  return dims;
}

// What a step's finishing touches (finish_step) need from its build.
struct StepFrame {
  double T = 0;            // tokens through the target model
  double max_context = 0;  // longest context after the step (provenance only)
  double seqs = 0;         // decoding sequences + prefill chunks
  double kernels = 0;      // kernels launched, a running sum in op order
  bool graphed = false;
  // The step runs a mechanism the validation set does not cover (speculative decoding: no
  // end-to-end measurement of it on the calibrated chip), so its provenance is extrapolated.
  bool outside_validation = false;
};

// Decode attention of one layer group: the work for `keys_total` attended keys summed over the
// decoding sequences (and `index_total` contexts for a sparse-attention indexer).
struct DecodeAttentionWork {
  double flop = 0, bytes = 0;
};
DecodeAttentionWork decode_attention_work(const data::Mixer& m, const MixerDims& dims, double keys_total,
                                          double index_total, double q_per_seq, double decode_tokens, double kv_b) {
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
double equivalent_prefill_tokens(double keys) { return (std::sqrt(1.0 + 8.0 * keys) - 1.0) / 2.0; }

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
void add_recurrent_state(const StepShape& s, double state, double input_values, double L) {
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

// The mixer block of a layer group: its norms, projections and attention (decode attention
// through `decode_attention`, see build_step).
template <class DecodeAttention>
void add_mixer(const StepShape& s, const data::Mixer& m, double L, DecodeAttention& decode_attention) {
  s.b.elementwise(OpClass::kNormElementwise, s.T * s.h * kAct * 4, L, 2);  // norm in/out + residual
  switch (m.kind) {
    case MixerKind::kAttention:
    case MixerKind::kMla: {
      auto dims = mixer_dims(m, s.tp);
      if (m.kind == MixerKind::kAttention) {
        add_gqa_projections(s, m, L);
      } else {
        add_mla_projections(s, m, L);
      }
      add_prefill_attention(s, m, dims, L);
      // Decode attention: every sequence reads its KV once for all verified positions.
      if (s.num_decode > 0) decode_attention(s.b, m, dims, L);
      break;
    }
    case MixerKind::kLinearAttention:
      add_linear_attention(s, m, L);
      break;
    case MixerKind::kMamba2:
      add_mamba2(s, m, L);
      break;
  }
}

// Dense FFN: up (and gate) projection, activation, down projection.
void add_dense_ffn(const StepShape& s, const data::Ffn& f, double L) {
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
void add_moe_shared(const StepShape& s, const data::Ffn& f, double width, double L) {
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
void add_moe_experts(const StepShape& s, const data::Ffn& f, double width, double L) {
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
  double touched = E * (1.0 - std::pow(1.0 - k / E, independent_tokens));
  // Each GPU holds E/ep experts, each split over tp/ep ranks.
  double shard = static_cast<double>(s.tp) / s.ep;
  double touched_gpu = touched / s.ep;
  double pairs_gpu = T * k / s.ep;
  double inter_gpu = static_cast<double>(f.expert_intermediate_size) / shard;
  b.experts(pairs_gpu, touched_gpu, width, inter_gpu, f.gated, s.expert_p, L);
  // Between the two grouped GEMMs the activation runs as its own kernel (vLLM's fused_moe too);
  // after them each token's k expert outputs are read and summed into one vector.
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

// One layer group: mixer and FFN blocks, the TP all-reduce ending each residual block, and the
// engine's glue kernels (its measured per-layer kernel count minus the ones modelled above).
template <class DecodeAttention>
void add_layer_group(const StepShape& s, const data::LayerGroup& g, DecodeAttention& decode_attention) {
  CostBuilder& b = s.b;
  const double L = g.count;
  const double kernels_before = b.kernels(), extra_before = b.extra_kernels();
  double blocks = 0;  // residual blocks in this layer (each ends in a TP all-reduce)
  if (g.mixer) {
    blocks += 1;
    add_mixer(s, *g.mixer, L, decode_attention);
  }
  if (g.ffn) {
    blocks += 1;
    add_ffn(s, *g.ffn, L);
  }
  if (s.tp > 1) b.allreduce(OpClass::kTpAllReduce, s.T * s.h * kAct, s.tp, L * blocks);
  const bool moe_layer = g.ffn && g.ffn->kind == FfnKind::kMoe;
  double engine_kernels = moe_layer ? s.d.engine->kernels_per_moe_layer : s.d.engine->kernels_per_dense_layer;
  // The engine's count is of a plain layer; collectives and QK-norm come on top of it.
  double counted = (b.kernels() - kernels_before) - (b.extra_kernels() - extra_before);
  if (engine_kernels > 0) b.glue_kernels(L * engine_kernels - counted);
}

// The drafter's passes per step, as the engines run them for a chain of k drafts (vLLM V1's
// EAGLE proposer; SGLang's EAGLE worker, which runs MTP the same way): after verification the
// drafter runs once over every position the target just verified (b(k+1) rows: vLLM's first
// proposer pass, SGLang's draft extend after decode), which also yields the first draft token,
// then k - 1 passes of one row per sequence for the rest. Each pass samples one token per
// sequence and its attention reads the sequence's context.
struct DraftPasses {
  double extend_rows = 0;  // rows of the pass over the verified positions
  double rows = 0;         // rows of each later pass (one per sequence)
  double later = 0;        // later passes: k - 1
  double all() const { return 1 + later; }
};
DraftPasses draft_passes(const StepShape& s) {
  const double k = s.d.spec_decode->num_draft_tokens;
  return {s.decode_tokens, s.num_decode, std::max(0.0, k - 1)};
}

// EAGLE head: one dense decoder layer of the target's width (fused input + QKV, output, gated
// FFN) and a 32k-token draft vocabulary head. Width and vocabulary are estimates of a typical
// EAGLE-3 head.
void add_eagle_head_gemms(const StepShape& s, double rows, double passes) {
  CostBuilder& b = s.b;
  const double h = s.h;
  const int tp = s.tp;
  const double draft_vocab = std::min(32000.0, static_cast<double>(s.d.model->vocab_size));
  b.gemm(OpClass::kDrafter, rows, 4 * h / tp, 2 * h, Precision::kBf16, passes);  // fused input + qkv
  b.gemm(OpClass::kDrafter, rows, h, h / tp, Precision::kBf16, passes);
  b.gemm(OpClass::kDrafter, rows, 2 * 3 * h / tp, h, Precision::kBf16, passes);
  b.gemm(OpClass::kDrafter, rows, h, 3 * h / tp, Precision::kBf16, passes);
  b.gemm(OpClass::kDrafter, rows, draft_vocab / tp, h, Precision::kBf16, passes);
}

template <class DecodeAttention>
void add_eagle_drafter(const StepShape& s, const DraftPasses& p, DecodeAttention& decode_attention) {
  CostBuilder& b = s.b;
  const int tp = s.tp;
  add_eagle_head_gemms(s, p.extend_rows, 1);
  if (p.later > 0) add_eagle_head_gemms(s, p.rows, p.later);
  // Each pass samples its draft token from its own logits (as the target's sampler does below
  // the LM head), and its one attention layer reads the sequence's whole context from the
  // drafter's own KV cache, shaped as the target's full-attention layer it is built on.
  const double draft_vocab = std::min(32000.0, static_cast<double>(s.d.model->vocab_size));
  b.elementwise(OpClass::kDrafter, p.rows * draft_vocab / tp * 4.0 * 2, p.all(), 2);
  for (const auto& g : s.d.model->layer_groups) {
    if (g.mixer && g.mixer->kind == MixerKind::kAttention && g.mixer->sliding_window_tokens == 0 &&
        g.mixer->chunk_tokens == 0) {
      decode_attention(b, *g.mixer, mixer_dims(*g.mixer, tp), p.all());
      break;
    }
  }
}

// Multi-token prediction: each pass runs one block of the target's last layer group (its mixer
// and its FFN, routed experts included, as DeepSeek-V3's MTP module is one full transformer
// block) and the target's full-vocabulary LM head it shares, over `rows` positions of the step's
// decoding sequences (one token sampled per sequence), `passes` times. The block's ops are built
// as the target's and counted as the drafter's; its attention reads the context through
// `decode_attention` on the step's own builder (so that the serving simulator's per-step model
// defers it as it defers the target's).
template <class DecodeAttention>
void add_mtp_pass(const StepShape& s, double rows, double passes, DecodeAttention& decode_attention) {
  const data::LayerGroup& last = s.d.model->layer_groups.back();
  data::LayerGroup block = last;
  block.count = 1;
  IterationCost part;
  CostBuilder pb(s.d, s.cal, part, s.b.eager(), s.b.engine_eff());
  const std::vector<PrefillChunk> no_prefills;
  const std::vector<std::int64_t> no_decodes;
  const BatchShape empty{no_prefills, no_decodes};
  StepShape ps{empty, s.d, s.cal, pb};
  ps.tp = s.tp;
  ps.ep = s.ep;
  ps.h = s.h;
  ps.kv_b = s.kv_b;
  ps.decode_tokens = rows;
  ps.num_decode = s.num_decode;
  ps.T = rows;
  ps.logits = s.num_decode;  // one draft token sampled per sequence
  ps.q_per_seq = rows / s.num_decode;
  ps.dense_p = s.dense_p;
  ps.expert_p = s.expert_p;
  auto attention = [&](CostBuilder&, const data::Mixer&, const MixerDims& dims, double) {
    decode_attention(s.b, *last.mixer, dims, passes);
  };
  add_layer_group(ps, block, attention);
  add_embed_lm_head(ps);
  s.b.absorb(OpClass::kDrafter, part, pb.kernels(), passes);
}

// The drafter's work for the step's decoding sequences, by the deployment's drafting method.
template <class DecodeAttention>
void add_drafter(const StepShape& s, DecodeAttention& decode_attention) {
  if (!s.d.spec_decode || s.num_decode <= 0 || s.d.spec_decode->num_draft_tokens < 1) return;
  const DraftPasses p = draft_passes(s);
  switch (parse_draft_method(s.d.spec_decode->method).value_or(DraftMethod::kEagle)) {
    case DraftMethod::kEagle:
      add_eagle_drafter(s, p, decode_attention);
      break;
    case DraftMethod::kMtp:
      add_mtp_pass(s, p.extend_rows, 1, decode_attention);
      if (p.later > 0) add_mtp_pass(s, p.rows, p.later, decode_attention);
      break;
  }
}

// Accumulates every op of the step into `out` except decode attention, for which it calls
// `decode_attention(b, mixer, dims, layers)` at its place in each layer group that has decoding
// sequences (the callee adds the op, or counts its kernels and defers its time: the op class is
// touched by nothing else, so its sum over groups is the same either way). False when the batch
// is empty (`out` then holds only the counts).
template <class DecodeAttention>
bool build_step(const BatchShape& batch, const Deployment& d, const CalibrationProfile& cal, IterationCost& out,
                StepFrame& frame, DecodeAttention&& decode_attention) {
  const double q_per_seq = d.spec_decode ? 1.0 + d.spec_decode->num_draft_tokens : 1.0;
  double prefill_tokens = 0, logits = 0, max_context = 0;
  for (const auto& p : batch.prefills) {
    prefill_tokens += static_cast<double>(p.num_new_tokens);
    if (p.last_chunk) logits += 1;
    max_context = std::max(max_context, static_cast<double>(p.num_context_tokens + p.num_new_tokens));
  }
  const double num_decode = static_cast<double>(batch.decode_context_tokens.size());
  for (auto c : batch.decode_context_tokens) max_context = std::max(max_context, static_cast<double>(c) + q_per_seq);
  const double decode_tokens = num_decode * q_per_seq;
  const double T = prefill_tokens + decode_tokens;
  logits += decode_tokens;
  out.num_tokens = static_cast<std::int64_t>(T);
  out.num_decode_seqs = static_cast<std::int64_t>(num_decode);
  if (T <= 0) return false;

  const bool graphed = d.cuda_graphs && batch.prefills.empty();
  CostBuilder b(d, cal, out, !graphed);
  StepShape s{batch, d, cal, b};
  s.tp = d.tensor_parallel;
  s.ep = d.expert_parallel;
  s.h = static_cast<double>(d.model->hidden_size);
  s.kv_b = bytes_per_value(d.kv_cache_dtype);
  s.prefill_tokens = prefill_tokens;
  s.decode_tokens = decode_tokens;
  s.num_decode = num_decode;
  s.T = T;
  s.logits = logits;
  s.q_per_seq = q_per_seq;
  s.dense_p = d.dense_weight_precision();
  s.expert_p = d.expert_weight_precision();

  for (const auto& g : d.model->layer_groups) add_layer_group(s, g, decode_attention);
  add_embed_lm_head(s);
  add_drafter(s, decode_attention);

  frame.T = T;
  frame.max_context = max_context;
  frame.seqs = num_decode + static_cast<double>(batch.prefills.size());
  frame.kernels = b.kernels();
  frame.graphed = graphed;
  frame.outside_validation = !outside_validation(d).empty();
  return true;
}

// The time fields of a step's finishing touches, on `time_s` (each op class's time as built):
// code-change scaling of the GPU op classes, launch gaps, engine overhead, then the total.
struct FinishedTimes {
  double gpu_s = 0, host_launch_s = 0, extra_launch_s = 0, engine_unscaled_s = 0, total_s = 0;
};
FinishedTimes finish_times(std::array<double, kNumOpClasses>& time_s, const StepFrame& frame, const Deployment& d,
                           const CalibrationProfile& cal) {
  constexpr auto lo = static_cast<std::size_t>(OpClass::kLaunchOverhead);
  constexpr auto eo = static_cast<std::size_t>(OpClass::kEngineOverhead);
  const int tp = d.tensor_parallel;
  FinishedTimes f;
  // Code changes scale each GPU op class (before launch gaps, which depend on the GPU time).
  for (std::size_t i = 0; i < kNumOpClasses; ++i) {
    if (i != lo && i != eo) time_s[i] *= d.op_time_scale[i];
  }
  // Graph replay leaves a small gap between kernels. Launched eagerly, the CPU issues kernels
  // asynchronously: the step takes the longer of the GPU work and the CPU launching it.
  // Sums skip zero terms: the terms are >= 0 (never -0), and x + 0.0 == x, so the bits are those
  // of the plain sum in op order, with a shorter chain of dependent additions.
  for (double t : time_s) {
    if (t != 0.0) f.gpu_s += t;
  }
  double per_kernel =
      d.engine->python_eager_ops ? (tp > 1 ? cal.python_op_launch_tp_s : cal.python_op_launch_s) : cal.eager_launch_s;
  f.host_launch_s = frame.graphed ? 0.0 : frame.kernels * per_kernel;
  f.extra_launch_s = frame.graphed ? frame.kernels * cal.graph_kernel_gap_s : std::max(0.0, f.host_launch_s - f.gpu_s);
  time_s[lo] += f.extra_launch_s;
  f.engine_unscaled_s = d.engine->iteration_overhead_s + d.engine->per_sequence_overhead_s * frame.seqs;
  time_s[eo] = f.engine_unscaled_s;
  time_s[lo] *= d.op_time_scale[lo];
  time_s[eo] *= d.op_time_scale[eo];
  for (double t : time_s) {
    if (t != 0.0) f.total_s += t;
  }
  return f;
}

// Provenance: the chip's own curves inside their measured range are interpolated; outside the
// range, curves transferred from another chip, or a mechanism outside the validation set
// (speculative decoding), extrapolated; no calibration: datasheet.
// `chip_matches`: the calibration was measured on this deployment's chip.
Provenance step_provenance(const StepFrame& frame, const CalibrationProfile& cal, bool chip_matches) {
  if (cal.provenance == Provenance::kDatasheet) return Provenance::kDatasheet;
  if (!chip_matches || cal.provenance == Provenance::kExtrapolated || frame.outside_validation) {
    return Provenance::kExtrapolated;
  }
  bool inside = frame.T <= cal.max_measured_tokens && frame.max_context <= cal.max_measured_context;
  return inside ? Provenance::kInterpolated : Provenance::kExtrapolated;
}

// Op scaling, launch gaps, engine overhead, the total and the provenance, once every op is in.
void finish_step(IterationCost& out, const StepFrame& frame, const Deployment& d, const CalibrationProfile& cal,
                 bool chip_matches) {
  constexpr auto lo = static_cast<std::size_t>(OpClass::kLaunchOverhead);
  constexpr auto eo = static_cast<std::size_t>(OpClass::kEngineOverhead);
  std::array<double, kNumOpClasses> time_s;
  for (std::size_t i = 0; i < kNumOpClasses; ++i) time_s[i] = out.ops[i].time_s;
  const FinishedTimes f = finish_times(time_s, frame, d, cal);
  for (std::size_t i = 0; i < kNumOpClasses; ++i) {
    auto& o = out.ops[i];
    o.time_s = time_s[i];
    if (i != lo && i != eo) {
      o.compute_s *= d.op_time_scale[i];
      o.memory_s *= d.op_time_scale[i];
    }
  }
  out.gpu_s = f.gpu_s;
  out.host_launch_s = f.host_launch_s;
  out.ops[lo].memory_s += f.extra_launch_s;
  out.ops[eo].memory_s = f.engine_unscaled_s;
  for (std::size_t i : {lo, eo}) {
    out.ops[i].compute_s *= d.op_time_scale[i];
    out.ops[i].memory_s *= d.op_time_scale[i];
  }
  out.total_s = f.total_s;
  out.provenance = step_provenance(frame, cal, chip_matches);
}

}  // namespace

IterationCost predict_iteration(const BatchShape& batch, const Deployment& d, const CalibrationProfile& cal) {
  IterationCost out;
  StepFrame frame;
  const double q_per_seq = d.spec_decode ? 1.0 + d.spec_decode->num_draft_tokens : 1.0;
  const double kv_b = bytes_per_value(d.kv_cache_dtype);
  const double decode_tokens = static_cast<double>(batch.decode_context_tokens.size()) * q_per_seq;
  auto decode_attention = [&](CostBuilder& b, const data::Mixer& m, const MixerDims& dims, double layers) {
    double keys_total = 0, index_total = 0;
    for (auto ctx : batch.decode_context_tokens) {
      double c = static_cast<double>(ctx) + q_per_seq;
      keys_total += keys_for_position(m, c - 1);
      if (m.sparse_top_k_tokens > 0 && m.indexer_num_heads > 0) index_total += c;
    }
    auto w = decode_attention_work(m, dims, keys_total, index_total, q_per_seq, decode_tokens, kv_b);
    b.attention_decode(w.flop, w.bytes, layers);
  };
  if (!build_step(batch, d, cal, out, frame, decode_attention)) return out;
  finish_step(out, frame, d, cal, cal.chip == d.hardware->id);
  return out;
}

DecodeStepModel::DecodeStepModel(const Deployment& d, const CalibrationProfile& cal, std::int64_t num_decode)
    : d_(&d), cal_(&cal), num_decode_(num_decode) {
  q_per_seq_ = d.spec_decode ? 1.0 + d.spec_decode->num_draft_tokens : 1.0;
  kv_b_ = bytes_per_value(d.kv_cache_dtype);
  decode_tokens_ = static_cast<double>(num_decode) * q_per_seq_;
  engine_eff_ = d.engine->efficiency_on(d.hardware->vendor);
  chip_matches_ = cal.chip == d.hardware->id;
  // Contexts do not enter any op but decode attention (deferred here) and the provenance.
  std::vector<std::int64_t> contexts(static_cast<std::size_t>(num_decode), 0);
  StepFrame frame;
  auto defer = [&](CostBuilder& b, const data::Mixer& m, const MixerDims& dims, double layers) {
    b.count_attention_decode_kernels(layers);
    groups_.push_back(Group{&m, dims.heads, dims.qk_dim, dims.v_dim, dims.kv_values_per_key, layers});
  };
  build_step(BatchShape{{}, contexts}, d, cal, fixed_, frame, defer);
  for (std::size_t i = 0; i < kNumOpClasses; ++i) fixed_time_s_[i] = fixed_.ops[i].time_s;
  T_ = frame.T;
  seqs_ = frame.seqs;
  kernels_ = frame.kernels;
  graphed_ = frame.graphed;
  outside_validation_ = frame.outside_validation;

  // step_times()'s constants, computed as finish_times computes them.
  peak_half_ = d.hardware->peak_flop_per_s(Precision::kBf16) * 0.5;
  inv_peak_half_ = 1.0 / peak_half_;
  bw_ = d.hardware->hbm_bandwidth_bytes_per_s;
  constexpr auto ad = static_cast<std::size_t>(OpClass::kAttentionDecode);
  constexpr auto lo = static_cast<std::size_t>(OpClass::kLaunchOverhead);
  constexpr auto eo = static_cast<std::size_t>(OpClass::kEngineOverhead);
  const int tp = d.tensor_parallel;
  per_kernel_launch_s_ =
      d.engine->python_eager_ops ? (tp > 1 ? cal.python_op_launch_tp_s : cal.python_op_launch_s) : cal.eager_launch_s;
  gpu_terms_ = fixed_time_s_;
  for (std::size_t i = 0; i < kNumOpClasses; ++i) {
    if (i != lo && i != eo) gpu_terms_[i] *= d.op_time_scale[i];
  }
  done_time_s_ = gpu_terms_;
  if (graphed_) {
    done_time_s_[lo] += kernels_ * cal.graph_kernel_gap_s;
    done_time_s_[lo] *= d.op_time_scale[lo];
  }
  done_time_s_[eo] = d.engine->iteration_overhead_s + d.engine->per_sequence_overhead_s * seqs_;
  done_time_s_[eo] *= d.op_time_scale[eo];
  gpu_prefix_ = 0;
  total_prefix_ = 0;
  for (std::size_t i = 0; i < ad; ++i) {
    if (gpu_terms_[i] != 0.0) gpu_prefix_ += gpu_terms_[i];
    if (done_time_s_[i] != 0.0) total_prefix_ += done_time_s_[i];
  }
}

double DecodeStepModel::keys_of(std::size_t g, std::int64_t context_tokens) const {
  double c = static_cast<double>(context_tokens) + q_per_seq_;
  return keys_for_position(*groups_[g].mixer, c - 1);
}

void DecodeStepModel::evaluate(std::span<const double> keys_total, std::span<const double> index_total,
                               double max_context, IterationCost& out) const {
  out = fixed_;
  CostBuilder b(*d_, *cal_, out, !graphed_, engine_eff_);
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    const Group& x = groups_[g];
    auto w =
        decode_attention_work(*x.mixer, dims_of(x), keys_total[g], index_total[g], q_per_seq_, decode_tokens_, kv_b_);
    b.attention_decode(w.flop, w.bytes, x.layers);
  }
  StepFrame frame;
  frame.T = T_;
  frame.max_context = max_context;
  frame.seqs = seqs_;
  frame.kernels = kernels_;
  frame.graphed = graphed_;
  frame.outside_validation = outside_validation_;
  finish_step(out, frame, *d_, *cal_, chip_matches_);
}

void DecodeStepModel::step_times(std::span<const double> keys_total, std::span<const double> index_total,
                                 double max_context, DecodeStepTimes& out) const {
  // evaluate()'s arithmetic, value for value: decode attention through the same roofline, then
  // finish_times with its constant parts (every op class but decode attention, and launch gaps
  // when graphed) taken from the constructor; the sums skip zeros and run in op order as there.
  constexpr auto ad = static_cast<std::size_t>(OpClass::kAttentionDecode);
  constexpr auto lo = static_cast<std::size_t>(OpClass::kLaunchOverhead);
  double attention = fixed_time_s_[ad];
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    const Group& x = groups_[g];
    auto w =
        decode_attention_work(*x.mixer, dims_of(x), keys_total[g], index_total[g], q_per_seq_, decode_tokens_, kv_b_);
    if (w.bytes <= 0) continue;  // as CostBuilder::attention_decode
    double mem = w.bytes / (bw_ * curve_at(cal_->attn_decode_memory_eff, w.bytes, curve_hint_));
    // The compute term only enters through the max. Decode attention is memory-bound: when an
    // estimate (a multiplication, within a few ulps of the quotient) is below the memory term
    // by far more than those ulps, so is the quotient (also after both are divided by the
    // engine efficiency), and the max is that of the other two: the division is skipped.
    const bool comp_below = w.flop * inv_peak_half_ * (1 + 1e-9) < mem;
    double comp = comp_below ? 0.0 : w.flop / peak_half_;
    if (engine_eff_ != 1.0) {  // x / 1.0 == x: kernel_terms' divisions, only where they act
      if (!comp_below) comp /= engine_eff_;
      mem /= engine_eff_;
    }
    const double floor_s = 1 * cal_->kernel_floor_s;
    attention += (comp_below ? std::max(mem, floor_s) : std::max({comp, mem, floor_s})) * x.layers;
  }
  out.time_s = done_time_s_;
  const double attention_s = d_->op_time_scale[ad] == 1.0 ? attention : attention * d_->op_time_scale[ad];
  out.time_s[ad] = attention_s;
  if (!graphed_) {
    // Launched eagerly: the launch gap is what the CPU's issuing adds beyond the GPU time.
    double gpu = gpu_prefix_;
    if (attention_s != 0.0) gpu += attention_s;
    for (std::size_t i = ad + 1; i < kNumOpClasses; ++i) {
      if (gpu_terms_[i] != 0.0) gpu += gpu_terms_[i];
    }
    const double host = kernels_ * per_kernel_launch_s_;
    out.time_s[lo] = (fixed_time_s_[lo] + std::max(0.0, host - gpu)) * d_->op_time_scale[lo];
  }
  double total = total_prefix_;
  if (attention_s != 0.0) total += attention_s;
  for (std::size_t i = ad + 1; i < kNumOpClasses; ++i) {
    if (out.time_s[i] != 0.0) total += out.time_s[i];
  }
  out.total_s = total;
  out.provenance = step_provenance(max_context);
}

Provenance DecodeStepModel::step_provenance(double max_context) const {
  StepFrame frame;
  frame.T = T_;
  frame.max_context = max_context;
  frame.seqs = seqs_;
  frame.kernels = kernels_;
  frame.graphed = graphed_;
  frame.outside_validation = outside_validation_;
  return perf::step_provenance(frame, *cal_, chip_matches_);
}

IterationCost predict_decode(const Deployment& d, const CalibrationProfile& cal, int batch, std::int64_t context) {
  std::vector<std::int64_t> ctx(static_cast<std::size_t>(std::max(batch, 0)), context);
  return predict_iteration(BatchShape{{}, ctx}, d, cal);
}

IterationCost predict_prefill(const Deployment& d, const CalibrationProfile& cal, std::int64_t tokens,
                              std::int64_t context, int num_prompts) {
  std::vector<PrefillChunk> chunks(static_cast<std::size_t>(std::max(num_prompts, 0)),
                                   PrefillChunk{tokens, context, true});
  return predict_iteration(BatchShape{chunks, {}}, d, cal);
}

}  // namespace tycoon::perf
