#include "sim/perf/iteration_cost.h"

#include <algorithm>
#include <cmath>

#include "sim/perf/cost_builder.h"
#include "sim/perf/layer_ops.h"

namespace tycoon::perf {

namespace {

using namespace step;

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
  frame.outside_validation = is_outside_validation(d);
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
// (speculative decoding), extrapolated; levels fitted to published serving results: that, at any
// size (the fit has no measured range); no calibration: datasheet.
// `chip_matches`: the calibration was measured on this deployment's chip.
Provenance step_provenance(const StepFrame& frame, const CalibrationProfile& cal, bool chip_matches) {
  if (cal.provenance == Provenance::kDatasheet || cal.provenance == Provenance::kFittedToPublished) {
    return cal.provenance;
  }
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
