// Efficiency curves of one chip: how much of the datasheet peak each op class reaches at each size.
// Filled by calibration/fit from measurements (hardware_db/calibrated/<chip>.json) or, without a
// calibration, by the documented datasheet placeholder below.
#pragma once

#include <array>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/types.h"

namespace tycoon::perf {

// Where a predicted number comes from. Fitted-to-published: a chip nobody here can measure, its
// efficiency levels fitted to a few published end-to-end serving measurements of other engine
// versions (calibration/fit/fit_published.py); weaker than extrapolated (curves measured on a
// chip, moved by its datasheet), since no kernel of the chip was timed and the fit's held-out
// error is larger, but stronger than the uncalibrated placeholder.
enum class Provenance { kMeasured, kInterpolated, kExtrapolated, kFittedToPublished, kDatasheet };
inline constexpr std::array<std::string_view, 5> kProvenanceNames = {"measured", "interpolated", "extrapolated",
                                                                     "fitted-to-published", "datasheet"};
inline std::string_view to_string(Provenance p) { return kProvenanceNames[static_cast<std::size_t>(p)]; }
// The weaker of two provenances (measured < interpolated < extrapolated < fitted-to-published <
// datasheet).
inline Provenance weaker(Provenance a, Provenance b) { return a > b ? a : b; }

// A function of a positive size, piecewise linear in log2(size), held flat beyond its knots.
// Values are efficiencies in (0, 1] (fraction of a datasheet peak) unless a field says otherwise.
class Curve {
 public:
  Curve() = default;
  explicit Curve(std::vector<std::pair<double, double>> knots);  // (size, value), sizes increasing
  static Curve constant(double value);

  double operator()(double size) const;
  // True when `size` lies inside the measured range [first knot, last knot].
  bool covers(double size) const;
  const std::vector<std::pair<double, double>>& knots() const { return knots_; }
  bool empty() const { return knots_.empty(); }

 private:
  std::vector<std::pair<double, double>> knots_;  // (log2 size, value)
};

// An engine's own routed-expert (MoE) kernel on a chip, from a published measurement of it
// (hardware_db/engine_kernels/moe.json, sim/perf/engine_kernels.cpp): the expert efficiency
// curves derived so that the published model's expert op, priced as CostBuilder::experts prices
// it, takes the published time at each measured token count. The engine uses them instead of the
// chip's moe curves for experts stored in `weights` and multiplied in `math`; the published time
// is one fused call, so the activation and the combine are inside it.
struct EngineMoeKernel {
  std::string engine;  // engine id
  Precision weights = Precision::kBf16;
  Precision math = Precision::kBf16;
  Curve compute_eff;  // vs tokens per touched expert, a fraction of the math's peak
  Curve memory_eff;   // vs bytes moved (weights of the touched experts + activations)
  std::string source;
};

struct CalibrationProfile {
  std::string chip;  // accelerator id the curves were measured on
  Provenance provenance = Provenance::kDatasheet;
  std::string source;  // where the curves come from (fit command, data folder, or rationale)

  // GEMM: compute efficiency vs M (tokens), per math precision [bf16, fp8, fp4]; memory
  // efficiency vs bytes moved by the GEMM (weights + activations).
  std::array<Curve, 3> gemm_compute_eff;
  Curve gemm_memory_eff;
  // MoE grouped GEMM: compute efficiency vs tokens per touched expert, per math precision [bf16,
  // fp8, fp4] as a fraction of that math's peak (an fp8 grouped GEMM reaches a smaller share of
  // its peak than a bf16 one: calibration/data/h200/diagnostics/prefill_moe_mla_notes.md, §1);
  // memory efficiency vs bytes.
  std::array<Curve, 3> moe_compute_eff;
  Curve moe_memory_eff;
  // Attention prefill (flash): compute efficiency vs query tokens in the chunk.
  Curve attn_prefill_compute_eff;
  // Attention decode: memory efficiency vs KV bytes read per layer (whole batch).
  Curve attn_decode_memory_eff;
  // Norms, activations, residuals, copies: memory efficiency vs bytes moved.
  Curve elementwise_memory_eff;
  // Rotary embedding done as separate strided kernels (an engine without a fused rotary kernel):
  // memory efficiency vs nominal bytes (one read and one write of the tensor).
  Curve rotary_unfused_memory_eff;
  // Gated activation silu(gate) * up done as two kernels over strided halves (an engine without
  // a fused activation kernel): memory efficiency vs nominal bytes (read gate and up, write out).
  Curve activation_unfused_memory_eff;
  // Per-head RMSNorm of q and k (QK-norm: Qwen3, Llama 4, MiniMax-M2): rows of head_dim
  // elements, far slower per byte than the hidden-size norms; memory efficiency vs bytes (read +
  // write of q and k).
  Curve qk_norm_memory_eff;
  // Writing a step's new keys and values into the KV cache (a strided copy): memory efficiency vs
  // bytes (read + write).
  Curve kv_write_memory_eff;
  // MoE dispatch and combine done as separate gather / sort / scatter-add kernels (an engine
  // without fused MoE routing): memory efficiency vs moe_route_bytes. Includes the fixed cost of
  // its ~20 small kernels, so it is far below 1 at small token counts.
  Curve moe_route_memory_eff;
  // All-reduce across the scale-up fabric: achieved bus bandwidth as a fraction of the link's
  // per-direction bandwidth, vs message bytes; plus a fixed latency.
  Curve allreduce_bus_eff;
  double allreduce_latency_s = 0;        // launched inside a CUDA graph
  double allreduce_eager_latency_s = 0;  // launched eagerly (host-side NCCL call)
  // Fixed GPU time of one kernel (launch to completion of an empty-ish kernel).
  double kernel_floor_s = 0;
  // CPU time to launch one kernel without CUDA graphs, for an engine that launches its own
  // kernels (a minimal launch through the runtime: the launch_eager probe).
  double eager_launch_s = 0;
  // CPU time per kernel of an engine that issues its ops one by one from Python (PyTorch eager,
  // engine.python_eager_ops): argument parsing, dispatch and output allocation on top of the
  // launch. In a process driving one GPU, and in each process of a TP group (several processes
  // on one host). The slowest measured, too (host speed varies between processes on a shared
  // machine): a step whose launches at that speed would outlast its GPU work may be host-bound.
  double python_op_launch_s = 0;
  double python_op_launch_tp_s = 0;
  double python_op_launch_slowest_s = 0;
  double python_op_launch_tp_slowest_s = 0;
  // Per-kernel gap when a whole step is replayed from a CUDA graph.
  double graph_kernel_gap_s = 0;
  // Measurement ranges, for provenance: a size outside them is extrapolated.
  double max_measured_tokens = 0;
  double max_measured_context = 0;

  // The engines' own MoE kernels on this chip, where published and the chip's curves are not
  // this project's measurements (attached by calibration_for; not part of the profile's file).
  std::vector<EngineMoeKernel> engine_moe;
  const EngineMoeKernel* engine_moe_kernel(std::string_view engine, Precision weights, Precision math) const {
    for (const auto& k : engine_moe) {
      if (k.engine == engine && k.weights == weights && k.math == math) return &k;
    }
    return nullptr;
  }

  // The placeholder used when a chip has no calibration: constant efficiencies from published
  // simulator settings (see the .cpp for each number's source).
  static CalibrationProfile datasheet(std::string chip);
};

// Nominal bytes of unfused MoE dispatch and combine for `tokens` tokens routed to `pairs`
// (token, expert) rows of `width` values: gather the routed rows (read + write), weight them
// (read + write), zero the output and scatter-add into it; activations in bf16.
inline double moe_route_bytes(double tokens, double pairs, double width) {
  return (4.0 * pairs + 2.0 * tokens) * width * 2.0;
}

// Reads and writes hardware_db/calibrated/<chip>.json (strict; errors name file and pointer).
CalibrationProfile load_calibration_profile(const std::filesystem::path& path);
nlohmann::json to_json(const CalibrationProfile& p);

// Whether any efficiency curve of `p` has more than one knot: a profile fitted from no rows has a
// single placeholder point on every curve, so one that says "measured" must pass this.
bool has_measured_curve(const CalibrationProfile& p);

}  // namespace tycoon::perf
