#include "sim/perf/calibration_profile.h"

#include <algorithm>
#include <cmath>

#include "sim/data/json_reader.h"

namespace tycoon::perf {

Curve::Curve(std::vector<std::pair<double, double>> knots) {
  knots_.reserve(knots.size());
  for (auto [size, value] : knots) knots_.emplace_back(std::log2(size), value);
  std::sort(knots_.begin(), knots_.end());
}

Curve Curve::constant(double value) {
  Curve c;
  c.knots_.emplace_back(0.0, value);
  return c;
}

double Curve::operator()(double size) const {
  if (knots_.empty()) return 1.0;
  if (knots_.size() == 1) return knots_.front().second;
  double x = std::log2(std::max(size, 1e-30));
  if (x <= knots_.front().first) return knots_.front().second;
  if (x >= knots_.back().first) return knots_.back().second;
  auto it = std::upper_bound(knots_.begin(), knots_.end(), x,
                             [](double v, const std::pair<double, double>& k) { return v < k.first; });
  const auto& hi = *it;
  const auto& lo = *(it - 1);
  double t = (x - lo.first) / (hi.first - lo.first);
  return lo.second + t * (hi.second - lo.second);
}

bool Curve::covers(double size) const {
  if (knots_.size() <= 1) return false;
  double x = std::log2(std::max(size, 1e-30));
  return x >= knots_.front().first - 1e-9 && x <= knots_.back().first + 1e-9;
}

CalibrationProfile CalibrationProfile::datasheet(std::string chip) {
  CalibrationProfile p;
  p.chip = std::move(chip);
  p.provenance = Provenance::kDatasheet;
  p.source =
      "placeholder: memory efficiency 0.8 = aiconfigurator mem_bw_empirical_scaling_factor (NVIDIA, "
      "systems/*.yaml); 3 us per kernel = aiconfigurator mem_empirical_constant_latency; compute efficiency "
      "ramps to 0.7 at M>=1024 (estimate); all-reduce 10 us latency = aiconfigurator p2p_latency";
  Curve compute({{1, 0.02}, {16, 0.2}, {128, 0.5}, {1024, 0.7}});
  p.gemm_compute_eff = {compute, compute, compute};
  p.gemm_memory_eff = Curve::constant(0.8);
  Curve moe_compute({{1, 0.05}, {64, 0.4}, {512, 0.6}});
  p.moe_compute_eff = {moe_compute, moe_compute, moe_compute};
  p.moe_memory_eff = Curve::constant(0.7);
  p.attn_prefill_compute_eff = Curve({{128, 0.3}, {4096, 0.6}});
  p.attn_decode_memory_eff = Curve::constant(0.7);
  p.elementwise_memory_eff = Curve::constant(0.8);
  p.rotary_unfused_memory_eff = Curve::constant(0.1);
  // About 1.1 of 4.3 TB/s for the strided two-kernel silu*mul at large sizes on the H200
  // (calibration/data/h200/memory.jsonl, op silu_mul).
  p.activation_unfused_memory_eff = Curve::constant(0.25);
  // Large sizes on the H200 (calibration/data/h200/memory.jsonl): per-head norms (op qk_norm)
  // about 0.56 TB/s, the KV write (op kv_write) about 1.4 TB/s, of its 4.8 TB/s datasheet peak.
  p.qk_norm_memory_eff = Curve::constant(0.12);
  p.kv_write_memory_eff = Curve::constant(0.3);
  // Unfused MoE routing: about 0.45 TB/s of routing bytes at 8k tokens on the H200
  // (calibration/data/h200/moe_graph.jsonl); an estimate elsewhere.
  p.moe_route_memory_eff = Curve::constant(0.1);
  p.allreduce_bus_eff = Curve({{65536, 0.1}, {16777216, 0.8}});
  p.allreduce_latency_s = 10e-6;
  p.allreduce_eager_latency_s = 10e-6;
  p.kernel_floor_s = 3e-6;
  p.eager_launch_s = 8e-6;
  // PyTorch eager ops cost 12-18 us each of host time on the H200 machine (host_layer_real rows).
  p.python_op_launch_s = p.python_op_launch_tp_s = 15e-6;
  p.python_op_launch_slowest_s = p.python_op_launch_tp_slowest_s = 15e-6;
  p.graph_kernel_gap_s = 1e-6;
  return p;
}

namespace {

nlohmann::json curve_json(const Curve& c) {
  nlohmann::json a = nlohmann::json::array();
  for (auto [lx, v] : c.knots()) a.push_back({std::exp2(lx), v});
  return a;
}

Curve read_curve(data::ObjectReader& r, std::string_view key, data::Bound bound) {
  auto arr = r.array(key);
  if (arr.size() == 0) arr.fail_here("a curve needs at least one knot");
  std::vector<std::pair<double, double>> knots;
  double last = 0;
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const auto& raw = r.raw(key)[i];
    std::string ptr = arr.pointer() + "/" + std::to_string(i);
    if (!raw.is_array() || raw.size() != 2 || !raw[0].is_number() || !raw[1].is_number()) {
      throw data::LoadError(r.file(), ptr, "a knot is [size, value]");
    }
    double size = raw[0].get<double>();
    double value = raw[1].get<double>();
    if (auto why = data::check_bound(size, data::Bound::kPositive); !why.empty()) {
      throw data::LoadError(r.file(), ptr + "/0", why);
    }
    if (auto why = data::check_bound(value, bound); !why.empty()) throw data::LoadError(r.file(), ptr + "/1", why);
    if (i > 0 && size <= last) throw data::LoadError(r.file(), ptr + "/0", "sizes must increase");
    last = size;
    knots.emplace_back(size, value);
  }
  return Curve(std::move(knots));
}

}  // namespace

nlohmann::json to_json(const CalibrationProfile& p) {
  return {{"chip", p.chip},
          {"provenance", to_string(p.provenance)},
          {"source", p.source},
          {"gemm_compute_eff_bf16", curve_json(p.gemm_compute_eff[0])},
          {"gemm_compute_eff_fp8", curve_json(p.gemm_compute_eff[1])},
          {"gemm_compute_eff_fp4", curve_json(p.gemm_compute_eff[2])},
          {"gemm_memory_eff", curve_json(p.gemm_memory_eff)},
          {"moe_compute_eff_bf16", curve_json(p.moe_compute_eff[0])},
          {"moe_compute_eff_fp8", curve_json(p.moe_compute_eff[1])},
          {"moe_compute_eff_fp4", curve_json(p.moe_compute_eff[2])},
          {"moe_memory_eff", curve_json(p.moe_memory_eff)},
          {"attn_prefill_compute_eff", curve_json(p.attn_prefill_compute_eff)},
          {"attn_decode_memory_eff", curve_json(p.attn_decode_memory_eff)},
          {"elementwise_memory_eff", curve_json(p.elementwise_memory_eff)},
          {"rotary_unfused_memory_eff", curve_json(p.rotary_unfused_memory_eff)},
          {"activation_unfused_memory_eff", curve_json(p.activation_unfused_memory_eff)},
          {"qk_norm_memory_eff", curve_json(p.qk_norm_memory_eff)},
          {"kv_write_memory_eff", curve_json(p.kv_write_memory_eff)},
          {"moe_route_memory_eff", curve_json(p.moe_route_memory_eff)},
          {"allreduce_bus_eff", curve_json(p.allreduce_bus_eff)},
          {"allreduce_latency_s", p.allreduce_latency_s},
          {"allreduce_eager_latency_s", p.allreduce_eager_latency_s},
          {"kernel_floor_s", p.kernel_floor_s},
          {"eager_launch_s", p.eager_launch_s},
          {"python_op_launch_s", p.python_op_launch_s},
          {"python_op_launch_tp_s", p.python_op_launch_tp_s},
          {"python_op_launch_slowest_s", p.python_op_launch_slowest_s},
          {"python_op_launch_tp_slowest_s", p.python_op_launch_tp_slowest_s},
          {"graph_kernel_gap_s", p.graph_kernel_gap_s},
          {"max_measured_tokens", p.max_measured_tokens},
          {"max_measured_context", p.max_measured_context}};
}

CalibrationProfile load_calibration_profile(const std::filesystem::path& path) {
  using data::Bound;
  auto json = data::parse_json_file(path);
  data::ObjectReader r(json, path.string(), "");
  CalibrationProfile p;
  p.chip = r.string("chip");
  p.provenance = static_cast<Provenance>(r.choice("provenance", kProvenanceNames));
  p.source = r.string("source");
  p.gemm_compute_eff[0] = read_curve(r, "gemm_compute_eff_bf16", Bound::kUnit);
  p.gemm_compute_eff[1] = read_curve(r, "gemm_compute_eff_fp8", Bound::kUnit);
  p.gemm_compute_eff[2] = read_curve(r, "gemm_compute_eff_fp4", Bound::kUnit);
  p.gemm_memory_eff = read_curve(r, "gemm_memory_eff", Bound::kUnit);
  p.moe_compute_eff[0] = read_curve(r, "moe_compute_eff_bf16", Bound::kUnit);
  p.moe_compute_eff[1] = read_curve(r, "moe_compute_eff_fp8", Bound::kUnit);
  p.moe_compute_eff[2] = read_curve(r, "moe_compute_eff_fp4", Bound::kUnit);
  p.moe_memory_eff = read_curve(r, "moe_memory_eff", Bound::kUnit);
  p.attn_prefill_compute_eff = read_curve(r, "attn_prefill_compute_eff", Bound::kUnit);
  p.attn_decode_memory_eff = read_curve(r, "attn_decode_memory_eff", Bound::kUnit);
  p.elementwise_memory_eff = read_curve(r, "elementwise_memory_eff", Bound::kUnit);
  p.rotary_unfused_memory_eff = read_curve(r, "rotary_unfused_memory_eff", Bound::kUnit);
  p.activation_unfused_memory_eff = read_curve(r, "activation_unfused_memory_eff", Bound::kUnit);
  p.qk_norm_memory_eff = read_curve(r, "qk_norm_memory_eff", Bound::kUnit);
  p.kv_write_memory_eff = read_curve(r, "kv_write_memory_eff", Bound::kUnit);
  p.moe_route_memory_eff = read_curve(r, "moe_route_memory_eff", Bound::kUnit);
  p.allreduce_bus_eff = read_curve(r, "allreduce_bus_eff", Bound::kUnit);
  p.allreduce_latency_s = r.number("allreduce_latency_s", Bound::kNonNegative);
  p.allreduce_eager_latency_s = r.number("allreduce_eager_latency_s", Bound::kNonNegative);
  p.kernel_floor_s = r.number("kernel_floor_s", Bound::kNonNegative);
  p.eager_launch_s = r.number("eager_launch_s", Bound::kNonNegative);
  p.python_op_launch_s = r.number("python_op_launch_s", Bound::kNonNegative);
  p.python_op_launch_tp_s = r.number("python_op_launch_tp_s", Bound::kNonNegative);
  p.python_op_launch_slowest_s = r.number("python_op_launch_slowest_s", Bound::kNonNegative);
  p.python_op_launch_tp_slowest_s = r.number("python_op_launch_tp_slowest_s", Bound::kNonNegative);
  if (p.python_op_launch_slowest_s < p.python_op_launch_s) {
    r.fail("python_op_launch_slowest_s", "must be at least python_op_launch_s (the typical cost)");
  }
  if (p.python_op_launch_tp_slowest_s < p.python_op_launch_tp_s) {
    r.fail("python_op_launch_tp_slowest_s", "must be at least python_op_launch_tp_s (the typical cost)");
  }
  p.graph_kernel_gap_s = r.number("graph_kernel_gap_s", Bound::kNonNegative);
  p.max_measured_tokens = r.number("max_measured_tokens", Bound::kNonNegative);
  p.max_measured_context = r.number("max_measured_context", Bound::kNonNegative);
  r.finish();
  return p;
}

bool has_measured_curve(const perf::CalibrationProfile& p) {
  const perf::Curve* curves[] = {&p.gemm_compute_eff[0],      &p.gemm_compute_eff[1],    &p.gemm_compute_eff[2],
                                 &p.gemm_memory_eff,          &p.moe_compute_eff[0],     &p.moe_memory_eff,
                                 &p.attn_prefill_compute_eff, &p.attn_decode_memory_eff, &p.elementwise_memory_eff,
                                 &p.kv_write_memory_eff,      &p.allreduce_bus_eff};
  for (const auto* c : curves) {
    if (c->knots().size() > 1) return true;
  }
  return false;
}

}  // namespace tycoon::perf
