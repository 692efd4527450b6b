// One step's op costs as they accumulate: the roofline of a GEMM, a grouped expert GEMM, a
// memory-bound kernel, a collective, each through the calibration's efficiency curves and the
// engine's kernel efficiency. Internal to the iteration cost model (iteration_cost.cpp and
// layer_ops.cpp); nothing outside sim/perf includes it.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>

#include "sim/perf/iteration_cost.h"

namespace tycoon::perf::step {
using data::FfnKind;
using data::MixerKind;

inline constexpr double kAct = 2.0;  // activations are bf16
// Chunked delta-rule / SSD scans reach a modest share of the tensor peak (estimate, no
// calibration of these kernels yet; the op is usually memory-bound at decode).
inline constexpr double kRecurrentComputeEff = 0.3;

inline int precision_index(Precision p) {
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

// Expected distinct experts of `num_experts` that `tokens` independent tokens choosing `top_k`
// each (uniformly) touch.
inline double experts_touched(double num_experts, double top_k, double tokens) {
  return num_experts * (1.0 - std::pow(1.0 - top_k / num_experts, tokens));
}

// The work of one MoE layer's grouped expert GEMMs on a GPU: `pairs` routed token-expert pairs
// over `touched` experts of `width` x `inter` (gated: up, gate and down matrices), weights in
// `wp`, activations in bf16. EngineMoeKernel's curves are derived with the same numbers.
struct ExpertWork {
  double flop, bytes, per_expert;
};
inline ExpertWork expert_work(double pairs, double touched, double width, double inter, bool gated, Precision wp) {
  const double mats = gated ? 3.0 : 2.0;
  const double weight_bytes = touched * width * inter * mats * bytes_per_value(wp);
  return {2 * pairs * width * inter * mats, weight_bytes + pairs * (width * 2 + inter * (gated ? 3 : 2)) * kAct,
          pairs / touched};
}

// One kernel group's time before multiplying by layers: the roofline terms through the engine's
// kernel efficiency, at least the kernel floor (launched eagerly, a step cannot outrun the CPU
// issuing it).
struct KernelTerms {
  double comp, mem, t;
};
inline KernelTerms kernel_terms(double comp, double mem, int kernels, double engine_eff, double kernel_floor_s) {
  comp /= engine_eff;
  mem /= engine_eff;
  return {comp, mem, std::max({comp, mem, kernels * kernel_floor_s})};
}

// Decode attention's roofline terms (before the engine efficiency) for `flop` and `bytes`.
inline void decode_attention_roofline(const Deployment& d, const CalibrationProfile& cal, double flop, double bytes,
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
    w4a16_kernel_ = d.w4a16_moe_kernel();
    if (w4a16_kernel_) {
      // The best efficiency the chip's dense GEMM curve reaches streaming weights (1 without knots).
      best_weight_streaming_ = 0;
      for (const auto& knot : cal.gemm_memory_eff.knots())
        best_weight_streaming_ = std::max(best_weight_streaming_, knot.second);
      if (best_weight_streaming_ <= 0) best_weight_streaming_ = 1;
    }
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

  // Grouped expert GEMMs: `pairs` routed token-expert pairs over `touched` experts of the GPU.
  // Where the chip's profile holds the engine's own published MoE kernel for these weights and
  // this math (EngineMoeKernel), its curves price the op and it is one fused call that includes
  // the activation and the combine: returns true, and the caller adds neither.
  bool experts(double pairs, double touched, double width, double inter, bool gated, Precision wp, double layers) {
    if (pairs <= 0 || touched <= 0) return false;
    Precision math = d_.expert_math_precision(wp);
    const ExpertWork w = expert_work(pairs, touched, width, inter, gated, wp);
    const double peak = d_.hardware->peak_flop_per_s(math);
    // A W4A16 kernel the operator chose over the engine's default (Deployment::mxfp4_backend)
    // prices 4-bit weights multiplied in bf16 on a chip without 4-bit math, in place of the
    // engine's published table (which times its default kernel).
    const data::W4a16MoeKernel* chosen =
        wp == Precision::kFp4 && math == Precision::kBf16 && !d_.hardware->supports(Precision::kFp4) ? w4a16_kernel_
                                                                                                     : nullptr;
    const EngineMoeKernel* k = chosen ? nullptr : cal_.engine_moe_kernel(d_.engine->id, wp, math);
    if (k) {
      // The published kernel is the engine's own: its efficiency is not discounted again.
      double comp = w.flop / (peak * k->compute_eff(w.per_expert)) * engine_eff_;
      double mem = w.bytes / (bw_ * k->memory_eff(w.bytes)) * engine_eff_;
      add(OpClass::kMoeExperts, w.flop, w.bytes, comp, mem, layers, 1);
      return true;
    }
    double comp_eff = cal_.moe_compute_eff[precision_index(math)](w.per_expert);
    double mem_eff = cal_.moe_memory_eff(w.bytes);
    if (chosen) {
      // The chip's curves at the chosen kernel's shares: never past the peak, nor faster than the
      // chip's best measured weight streaming (its dense GEMM curve's best).
      comp_eff = std::min(1.0, comp_eff * chosen->compute_share);
      mem_eff = std::min(best_weight_streaming_, mem_eff * chosen->memory_share);
    }
    double comp = w.flop / (peak * comp_eff);
    double mem = w.bytes / (bw_ * mem_eff);
    add(OpClass::kMoeExperts, w.flop, w.bytes, comp, mem, layers, 3);
    return false;
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
  const data::W4a16MoeKernel* w4a16_kernel_ = nullptr;  // Deployment::w4a16_moe_kernel
  double best_weight_streaming_ = 1;                    // the cap of its weight streaming
  double kernels_ = 0;
  double extra_kernels_ = 0;
};

}  // namespace tycoon::perf::step
