#include "calibration/fit/fit_profile.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include <Eigen/Dense>

namespace tycoon::calibration {

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// A string field of a row, "" when absent or not a string.
std::string text_of(const Row& r, const char* key) {
  auto it = r.value.find(key);
  return it != r.value.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool is_fp8(const Row& r) {
  auto it = r.value.find("dtype");
  return it != r.value.end() && it->is_string() && it->get<std::string>().rfind("fp8", 0) == 0;
}

CurveFit residuals(const std::string& name, const perf::Curve& c, const std::vector<std::pair<double, double>>& s) {
  CurveFit f;
  f.name = name;
  f.num_rows = static_cast<int>(s.size());
  std::vector<double> err;
  for (auto [x, y] : s) err.push_back(std::fabs(c(x) / y - 1.0));
  f.median_abs_residual = median(err);
  return f;
}

}  // namespace

perf::Curve monotone_curve(std::vector<std::pair<double, double>> samples, double lo, double hi) {
  if (samples.empty()) return perf::Curve::constant(std::clamp(0.5, lo, hi));
  std::map<long, std::vector<double>> groups;  // quarter-octave bucket -> values
  std::map<long, std::vector<double>> sizes;
  for (auto [x, y] : samples) {
    long key = std::lround(std::log2(x) * 4.0);
    groups[key].push_back(y);
    sizes[key].push_back(x);
  }
  std::vector<double> xs, ys, ws;
  for (auto& [key, vals] : groups) {
    xs.push_back(median(sizes[key]));
    ys.push_back(std::clamp(median(vals), lo, hi));
    ws.push_back(static_cast<double>(vals.size()));
  }
  // Pool adjacent violators (weighted) for a non-decreasing sequence.
  struct Block {
    double sum_wy, sum_w;
    std::size_t first, last;
  };
  std::vector<Block> blocks;
  for (std::size_t i = 0; i < ys.size(); ++i) {
    blocks.push_back({ys[i] * ws[i], ws[i], i, i});
    while (blocks.size() > 1) {
      auto& b = blocks.back();
      auto& a = blocks[blocks.size() - 2];
      if (a.sum_wy / a.sum_w <= b.sum_wy / b.sum_w) break;
      a.sum_wy += b.sum_wy;
      a.sum_w += b.sum_w;
      a.last = b.last;
      blocks.pop_back();
    }
  }
  for (const auto& b : blocks) {
    for (std::size_t i = b.first; i <= b.last; ++i) ys[i] = b.sum_wy / b.sum_w;
  }
  std::vector<std::pair<double, double>> knots;
  for (std::size_t i = 0; i < xs.size(); ++i) knots.emplace_back(xs[i], ys[i]);
  return perf::Curve(std::move(knots));
}

namespace {

// What every section of the fit shares: the rows, the chip's datasheet rates, and the kernel's
// own time (a kernel timed alone pays `overhead` that one inside a CUDA graph, or behind a queue
// of launches, does not: the efficiencies are of t - overhead, never less than a third of t).
struct FitContext {
  const std::vector<Row>& rows;
  const data::Accelerator& chip;
  double bw = 0, peak_bf16 = 0, peak_fp8 = 0;
  double overhead = 0;  // fixed cost of timing one kernel in isolation (launch latency + events)
  double own(double t, int kernels = 1) const { return std::max(t - kernels * overhead, t / 3.0); }
};

// Launch floors from the launch probes, else the copy regression's intercept; returns that
// intercept (the isolated-kernel overhead).
double fit_fixed_costs(const FitContext& f, FitReport& rep) {
  const auto& rows = f.rows;
  auto& p = rep.profile;
  // --- fixed costs: launch probes, else the copy regression's intercept ---
  for (const auto& r : rows) {
    if (r.op() == "launch_graph" && r.number_or("num_kernels", 0) >= 1000) p.kernel_floor_s = r.number("per_kernel_s");
    if (r.op() == "launch_eager" && r.number_or("num_kernels", 0) >= 1000) p.eager_launch_s = r.number("per_kernel_s");
  }
  double overhead = 0;
  {
    // t = a + bytes / bandwidth, least squares over the copy rows (Eigen).
    std::vector<std::pair<double, double>> pts;
    for (const auto& r : rows) {
      if (r.op() == "copy_d2d") pts.emplace_back(r.number("bytes"), r.number("median_s"));
    }
    if (pts.size() >= 2) {
      Eigen::MatrixXd A(pts.size(), 2);
      Eigen::VectorXd t(pts.size());
      for (std::size_t i = 0; i < pts.size(); ++i) {
        // Weight by 1/t so small and large copies count alike (relative error).
        double w = 1.0 / pts[i].second;
        A(i, 0) = w;
        A(i, 1) = pts[i].first * w;
        t(i) = 1.0;
      }
      Eigen::Vector2d x = A.colPivHouseholderQr().solve(t);
      if (x(1) > 0) rep.copy_bandwidth_bytes_per_s = 1.0 / x(1);
      overhead = std::max(0.0, x(0));
      if (p.kernel_floor_s == 0) p.kernel_floor_s = overhead;
    }
  }
  return overhead;
}

void fit_host_launch(const FitContext& f, FitReport& rep) {
  const auto& rows = f.rows;
  auto& p = rep.profile;
  const auto& chip = f.chip;
  // CPU cost per kernel of the reference engine's PyTorch eager ops at real shapes: rows
  // host_layer_real (one layer's Python call, 3 layers minus 1, over the kernels that layer
  // launches), median and slowest over models and modes, separately for one process and for each
  // process of a TP group. Only rows that say where they were measured (`measured_in`, since
  // 2026-11-30 07:00): earlier rows timed steps after torch.profiler had run in the same process,
  // which slows the host 2-3x. Real ops cost more than the trivial-kernel probe above (~10 us):
  // argument parsing, dispatch and output allocation (12-18 us each in a process of its own).
  {
    std::vector<double> one, multi;
    for (const auto& r : rows) {
      if (r.op() != "host_layer_real" || !r.value.contains("measured_in")) continue;
      double k = r.number("per_kernel_s");
      if (k <= 0) continue;
      (r.number_or("tp", 1) > 1 ? multi : one).push_back(k);
    }
    auto fallback = perf::CalibrationProfile::datasheet(chip.id);
    p.python_op_launch_s = one.empty() ? fallback.python_op_launch_s : median(one);
    p.python_op_launch_slowest_s = one.empty() ? p.python_op_launch_s : *std::max_element(one.begin(), one.end());
    p.python_op_launch_tp_s = multi.empty() ? p.python_op_launch_s : median(multi);
    p.python_op_launch_tp_slowest_s =
        multi.empty() ? p.python_op_launch_slowest_s : *std::max_element(multi.begin(), multi.end());
    rep.eager_launch_rows = static_cast<int>(one.size() + multi.size());
  }
}

// Elementwise ops, the unfused rotary embedding and gated activation, QK-norm, KV write.
void fit_elementwise(const FitContext& f, FitReport& rep) {
  const auto& rows = f.rows;
  auto& p = rep.profile;
  const double bw = f.bw;
  // --- elementwise: norms, residual adds, activations, copies ---
  std::vector<std::pair<double, double>> ew;
  for (const auto& r : rows) {
    auto op = r.op();
    if (op == "copy_d2d" || op == "rmsnorm" || op == "residual_add") {
      ew.emplace_back(r.number("bytes"), r.number("bytes") / (bw * f.own(r.number("median_s"))));
    }
  }
  p.elementwise_memory_eff = monotone_curve(ew);
  rep.curves.push_back(residuals("elementwise_memory_eff", p.elementwise_memory_eff, ew));

  // --- the reference engine's unfused rotary embedding ---
  std::vector<std::pair<double, double>> rope;
  for (const auto& r : rows) {
    // engine.rope launches 7 kernels (6 elementwise + cat), each timed-alone overhead included.
    if (r.op() == "rope")
      rope.emplace_back(r.number("bytes"), r.number("bytes") / (bw * f.own(r.number("median_s"), 7)));
  }
  p.rotary_unfused_memory_eff = rope.empty() ? p.elementwise_memory_eff : monotone_curve(rope);
  rep.curves.push_back(residuals("rotary_unfused_memory_eff", p.rotary_unfused_memory_eff, rope));

  // --- the reference engine's unfused gated activation (silu on one strided half, multiply by
  // the other: two kernels at about a quarter of the copy bandwidth, unlike the contiguous
  // norms and adds above, so it gets its own curve rather than dragging theirs down) ---
  std::vector<std::pair<double, double>> act;
  for (const auto& r : rows) {
    if (r.op() == "silu_mul")
      act.emplace_back(r.number("bytes"), r.number("bytes") / (bw * f.own(r.number("median_s"), 2)));
  }
  p.activation_unfused_memory_eff = act.empty() ? p.elementwise_memory_eff : monotone_curve(act);
  rep.curves.push_back(residuals("activation_unfused_memory_eff", p.activation_unfused_memory_eff, act));

  // --- per-head QK-norm and the KV-cache write: one curve each (kernels over short rows or
  // strided views, well below the contiguous elementwise curve) ---
  for (auto [op, curve, kernels] :
       {std::tuple{"qk_norm", &p.qk_norm_memory_eff, 1}, std::tuple{"kv_write", &p.kv_write_memory_eff, 1}}) {
    std::vector<std::pair<double, double>> pts;
    for (const auto& r : rows) {
      if (r.op() == op)
        pts.emplace_back(r.number("bytes"), r.number("bytes") / (bw * f.own(r.number("median_s"), kernels)));
    }
    *curve = pts.empty() ? p.elementwise_memory_eff : monotone_curve(pts);
    rep.curves.push_back(residuals(std::string(op) + "_memory_eff", *curve, pts));
  }
}

void fit_dense_gemm(const FitContext& f, FitReport& rep) {
  const auto& rows = f.rows;
  auto& p = rep.profile;
  const double bw = f.bw, peak_bf16 = f.peak_bf16, peak_fp8 = f.peak_fp8;
  // --- dense GEMMs: memory efficiency from clearly memory-bound rows, then compute efficiency ---
  auto gemm_bytes = [](const Row& r, double weight_bytes_per_value) {
    double m = r.number("M"), n = r.number("N"), k = r.number("K");
    return n * k * weight_bytes_per_value + m * k * 2.0 + m * n * 2.0;  // as predict_iteration counts
  };
  std::vector<std::pair<double, double>> gm;
  for (const auto& r : rows) {
    if (r.op() != "gemm") continue;
    double wb = is_fp8(r) ? 1.0 : 2.0;
    double peak = is_fp8(r) ? peak_fp8 : peak_bf16;
    double flop = 2.0 * r.number("M") * r.number("N") * r.number("K");
    double bytes = gemm_bytes(r, wb);
    if (flop / peak < 0.25 * bytes / bw) gm.emplace_back(bytes, bytes / (bw * f.own(r.number("median_s"))));
  }
  p.gemm_memory_eff = monotone_curve(gm);
  rep.curves.push_back(residuals("gemm_memory_eff", p.gemm_memory_eff, gm));
  for (int fp8 = 0; fp8 < 2; ++fp8) {
    std::vector<std::pair<double, double>> bound, lower;
    for (const auto& r : rows) {
      if (r.op() != "gemm" || is_fp8(r) != static_cast<bool>(fp8)) continue;
      double m = r.number("M"), t = f.own(r.number("median_s"));
      double flop = 2.0 * m * r.number("N") * r.number("K");
      double bytes = gemm_bytes(r, fp8 ? 1.0 : 2.0);
      double mem_t = bytes / (bw * p.gemm_memory_eff(bytes));
      double peak = fp8 ? peak_fp8 : peak_bf16;
      double ce = flop / (peak * t);
      // Only rows above the datasheet ridge point (compute time >= memory time at peak rates)
      // identify the compute efficiency; below it a row only bounds it from below.
      bool compute_side = flop / peak >= bytes / bw;
      (compute_side && t > 1.15 * mem_t ? bound : lower).emplace_back(m, ce);
    }
    // Rows bound by memory only bound the compute efficiency from below. Where an M has no
    // compute-limited row, take the curve of the compute-limited rows there (below the first
    // such M, scaled by M: tensor-core tiles pad M, so work per tile grows with M), raised to the
    // largest lower bound.
    std::map<double, double> best_lower;
    for (auto [m, ce] : lower) best_lower[m] = std::max(best_lower[m], ce);
    std::map<double, int> has_bound;
    for (auto [m, ce] : bound) has_bound[m]++;
    auto measured = monotone_curve(bound);
    double first_m = bound.empty() ? 1.0 : std::min_element(bound.begin(), bound.end())->first;
    for (auto [m, ce] : best_lower) {
      if (has_bound.contains(m)) continue;
      double model = bound.empty() ? ce : (m < first_m ? measured(first_m) * m / first_m : measured(m));
      bound.emplace_back(m, std::max(ce, model));
    }
    auto c = monotone_curve(bound);
    if (fp8 == 0) {
      p.gemm_compute_eff[0] = c;
      rep.curves.push_back(residuals("gemm_compute_eff_bf16", c, bound));
    } else {
      p.gemm_compute_eff[1] = bound.empty() ? p.gemm_compute_eff[0] : c;
      rep.curves.push_back(residuals("gemm_compute_eff_fp8", p.gemm_compute_eff[1], bound));
    }
  }
  // No fp4 tensor cores on the calibrated chip: fp4 shares the fp8 curve (transferred chips
  // with fp4 units scale it by their fp4 peak; labelled extrapolated there).
  p.gemm_compute_eff[2] = p.gemm_compute_eff[1];
}

void fit_moe_gemm(const FitContext& f, FitReport& rep) {
  const auto& rows = f.rows;
  auto& p = rep.profile;
  const double bw = f.bw, peak_bf16 = f.peak_bf16;
  // --- MoE grouped GEMMs: gate_up + down at the same token count and expert shape form one
  // sample; rows timed eagerly (moe_gate_up / moe_down) and replayed from a CUDA graph
  // (moe_*_graph, which also cover the tensor-parallel shard of each expert) alike ---
  {
    // (graph?, tokens, expert intermediate) -> {t, flop, bytes, rows/touched}
    std::map<std::tuple<bool, double, double>, std::array<double, 4>> by_tokens;
    for (const auto& r : rows) {
      auto op = r.op();
      bool graph = op == "moe_gate_up_graph" || op == "moe_down_graph";
      bool gate_up = op == "moe_gate_up" || op == "moe_gate_up_graph";
      if (!graph && op != "moe_gate_up" && op != "moe_down") continue;
      double rows_n = r.number("rows"), touched = r.number("experts_touched");
      double n, k, inter;
      if (graph) {  // shapes from the block's fields
        double h = r.number("hidden");
        inter = r.number("expert_dim");
        n = gate_up ? 2 * inter : h;
        k = gate_up ? h : inter;
      } else {
        n = r.number("N");
        k = r.number("K");
        inter = gate_up ? n / 2 : k;
      }
      auto& acc = by_tokens[{graph, r.number("tokens"), inter}];
      acc[0] += f.own(r.number("median_s"));
      acc[1] += 2.0 * rows_n * n * k;
      acc[2] += touched * n * k * 2.0 + rows_n * (n + k) * 2.0;
      acc[3] = rows_n / touched;
    }
    std::vector<std::pair<double, double>> mem, comp, lower;
    for (auto& [tokens, a] : by_tokens) {
      double flop_t = a[1] / peak_bf16, mem_bytes = a[2];
      if (flop_t < 0.25 * mem_bytes / bw) mem.emplace_back(mem_bytes, mem_bytes / (bw * a[0]));
    }
    p.moe_memory_eff = monotone_curve(mem);
    for (auto& [tokens, a] : by_tokens) {
      double mem_t = a[2] / (bw * p.moe_memory_eff(a[2]));
      (a[0] > 1.15 * mem_t ? comp : lower).emplace_back(a[3], a[1] / (peak_bf16 * a[0]));
    }
    if (comp.empty()) comp = lower;
    p.moe_compute_eff[0] = monotone_curve(comp);
    rep.curves.push_back(residuals("moe_memory_eff", p.moe_memory_eff, mem));
    rep.curves.push_back(residuals("moe_compute_eff_bf16", p.moe_compute_eff[0], comp));
  }
  // --- fp8 grouped expert GEMMs (CUTLASS's sm90 grouped GEMM with rowwise scales,
  // torch._scaled_grouped_mm: the kind vLLM's cutlass_moe_fp8 runs; moe_fp8_grouped.jsonl):
  // their own compute curve as a fraction of the fp8 peak. Scaling the bf16 curve by the fp8
  // peak made prefill-sized expert GEMMs 1.2-1.6x too fast (prefill_moe_mla_notes.md, §1).
  // Without fp8 rows the bf16 curve serves, as before. ---
  {
    // (model, tokens) -> {t, flop, bytes, rows/touched}
    std::map<std::pair<std::string, double>, std::array<double, 4>> by_tokens;
    for (const auto& r : rows) {
      if (r.op() != "moe_expert_gemm" || text_of(r, "impl") != "torch._scaled_grouped_mm") continue;
      double rows_n = r.number("rows"), touched = r.number("experts_touched");
      double n = r.number("N"), k = r.number("K");
      auto& acc = by_tokens[{text_of(r, "model"), r.number("tokens")}];
      acc[0] += f.own(r.number("median_s"));
      acc[1] += 2.0 * rows_n * n * k;
      acc[2] += touched * n * k * 1.0 + rows_n * (n + k) * 2.0;
      acc[3] = rows_n / touched;
    }
    std::vector<std::pair<double, double>> comp;
    for (auto& [key, a] : by_tokens) {
      double mem_t = a[2] / (bw * p.moe_memory_eff(a[2]));
      if (a[0] > 1.15 * mem_t) comp.emplace_back(a[3], a[1] / (f.peak_fp8 * a[0]));
    }
    p.moe_compute_eff[1] = comp.empty() ? p.moe_compute_eff[0] : monotone_curve(comp);
    if (!comp.empty()) rep.curves.push_back(residuals("moe_compute_eff_fp8", p.moe_compute_eff[1], comp));
  }
  // No fp4 tensor cores on the calibrated chip: fp4 shares the fp8 curve, as the dense GEMMs do.
  p.moe_compute_eff[2] = p.moe_compute_eff[1];
}

void fit_moe_route(const FitContext& f, FitReport& rep) {
  const auto& rows = f.rows;
  auto& p = rep.profile;
  const double bw = f.bw, peak_bf16 = f.peak_bf16;
  // --- MoE dispatch and combine of an engine without fused routing (the reference engine's
  // moe.moe_forward: top-k, softmax, sort, gather of the routed rows, weighting, scatter-add
  // into the output): the whole expert block replayed from a CUDA graph minus its two grouped
  // GEMMs (same routing, same graphs), minus the router GEMM and the activation as the curves
  // above predict them. What is left is expressed as an efficiency over the nominal routing
  // bytes predict_iteration counts (moe_route_bytes). ---
  {
    using Key = std::pair<double, double>;           // (tokens, expert intermediate)
    std::map<Key, std::array<double, 5>> by_tokens;  // -> {layer, gate_up, down, hidden, expert_dim}
    std::map<Key, std::array<double, 3>> shape;      // -> {rows, experts, top_k}
    for (const auto& r : rows) {
      auto op = r.op();
      int slot = op == "moe_layer_graph" ? 0 : op == "moe_gate_up_graph" ? 1 : op == "moe_down_graph" ? 2 : -1;
      if (slot < 0) continue;
      Key key{r.number("tokens"), r.number("expert_dim")};
      auto& a = by_tokens.try_emplace(key, std::array<double, 5>{-1, -1, -1, 0, 0}).first->second;
      a[static_cast<std::size_t>(slot)] = f.own(r.number("median_s"));
      a[3] = r.number("hidden");
      a[4] = r.number("expert_dim");
      shape[key] = {r.number("rows"), r.number("num_experts"), r.number("top_k")};
    }
    std::vector<std::pair<double, double>> route;
    for (auto& [key, a] : by_tokens) {
      if (a[0] < 0 || a[1] < 0 || a[2] < 0) continue;
      double tokens = key.first;
      double h = a[3], inter = a[4], pairs = shape[key][0], experts = shape[key][1];
      double rest = a[0] - a[1] - a[2];
      // the router GEMM [tokens x h] . [h x experts] and the unfused activation, as predicted
      double rflop = 2 * tokens * experts * h, rbytes = experts * h * 2.0 + tokens * h * 2.0 + tokens * experts * 2.0;
      double router =
          std::max(rflop / (peak_bf16 * p.gemm_compute_eff[0](tokens)), rbytes / (bw * p.gemm_memory_eff(rbytes)));
      double abytes = pairs * inter * 2.0 * 3;
      double act_s = abytes / (bw * p.activation_unfused_memory_eff(abytes));
      double t = std::max(rest - router - act_s, rest / 3.0);
      double bytes = perf::moe_route_bytes(tokens, pairs, h);
      if (t > 0) route.emplace_back(bytes, bytes / (bw * t));
    }
    p.moe_route_memory_eff = route.empty() ? p.elementwise_memory_eff : monotone_curve(route);
    rep.curves.push_back(residuals("moe_route_memory_eff", p.moe_route_memory_eff, route));
  }
}

void fit_attention(const FitContext& f, const std::string& prefill_backend, FitReport& rep) {
  const auto& rows = f.rows;
  auto& p = rep.profile;
  const double bw = f.bw, peak_bf16 = f.peak_bf16;
  // --- attention ---
  {
    std::vector<std::pair<double, double>> pre, dec;
    for (const auto& r : rows) {
      if (r.op() == "attn_prefill") {
        if (r.value.value("backend", std::string()) != prefill_backend) continue;
        double s = r.number("seq_len"), hq = r.number("num_q_heads"), d = r.number("head_dim");
        double b = r.number_or("batch", 1);
        // causal: s(s+1)/2 scores per head, QK^T and PV each 2*d flop per score (as predict counts)
        double flop = b * 2.0 * hq * (2 * d) * (s * (s + 1) / 2.0);
        pre.emplace_back(s, flop / (peak_bf16 * f.own(r.number("median_s"))));
        p.max_measured_context = std::max(p.max_measured_context, s);
      } else if (r.op() == "attn_decode") {
        double b = r.number("batch"), c = r.number("context"), hq = r.number("num_q_heads");
        double hkv = r.number("num_kv_heads"), d = r.number("head_dim");
        double bytes = b * c * hkv * 2 * d * 2.0 + b * hq * 2 * d * 2.0;
        dec.emplace_back(bytes, bytes / (bw * f.own(r.number("median_s"))));
        p.max_measured_context = std::max(p.max_measured_context, c);
      }
    }
    p.attn_prefill_compute_eff = monotone_curve(pre);
    p.attn_decode_memory_eff = monotone_curve(dec);
    rep.curves.push_back(residuals("attn_prefill_compute_eff", p.attn_prefill_compute_eff, pre));
    rep.curves.push_back(residuals("attn_decode_memory_eff", p.attn_decode_memory_eff, dec));
  }
}

void fit_allreduce(const FitContext& f, FitReport& rep) {
  const auto& rows = f.rows;
  auto& p = rep.profile;
  const auto& chip = f.chip;
  // --- all-reduce over the scale-up link: latency + bytes / (link x efficiency) ---
  {
    // Rows replayed from a CUDA graph give the latency and bandwidth a graphed step sees; eager
    // rows give the latency of an eagerly launched all-reduce (host-side NCCL launch).
    std::vector<std::pair<double, double>> ar;
    double latency = 0, eager_latency = 0;
    auto graphed = [](const Row& r) { return r.value.value("cuda_graph", false); };
    for (const auto& r : rows) {
      if (r.op() != "all_reduce") continue;
      double t = r.number("median_s");
      double& l = graphed(r) ? latency : eager_latency;
      l = l == 0 ? t : std::min(l, t);
    }
    if (latency == 0) latency = eager_latency;
    p.allreduce_eager_latency_s = std::max(eager_latency, latency);
    for (const auto& r : rows) {
      if (r.op() != "all_reduce" || !graphed(r)) continue;
      double t = r.number("median_s"), size = r.number("size_bytes"), n = r.number_or("world_size", 2);
      if (t < 1.2 * latency) continue;
      double wire = 2.0 * (n - 1) / n * size;
      ar.emplace_back(size, wire / (chip.scale_up.bandwidth_bytes_per_s * (t - latency)));
    }
    p.allreduce_latency_s = latency;
    p.allreduce_bus_eff =
        ar.empty() ? perf::CalibrationProfile::datasheet(chip.id).allreduce_bus_eff : monotone_curve(ar);
    rep.curves.push_back(residuals("allreduce_bus_eff", p.allreduce_bus_eff, ar));
  }
}

}  // namespace

FitReport fit_profile(const std::vector<Row>& rows, const data::Accelerator& chip, const std::string& source,
                      const std::string& prefill_backend) {
  FitReport rep;
  auto& p = rep.profile;
  p.chip = chip.id;
  p.provenance = perf::Provenance::kMeasured;
  p.source = source;
  FitContext f{rows, chip, chip.hbm_bandwidth_bytes_per_s, chip.peak_flop_per_s(Precision::kBf16),
               chip.peak_flop_per_s(Precision::kFp8)};
  f.overhead = fit_fixed_costs(f, rep);
  rep.isolated_kernel_overhead_s = f.overhead;
  if (p.eager_launch_s == 0) p.eager_launch_s = perf::CalibrationProfile::datasheet(chip.id).eager_launch_s;
  fit_host_launch(f, rep);
  p.graph_kernel_gap_s = 0;  // included in the floor measured from graph-replayed kernels
  fit_elementwise(f, rep);
  fit_dense_gemm(f, rep);
  fit_moe_gemm(f, rep);
  fit_moe_route(f, rep);
  fit_attention(f, prefill_backend, rep);
  fit_allreduce(f, rep);
  for (const auto& r : rows) {
    if (r.is_end_to_end()) continue;
    ++rep.num_kernel_rows;
    if (r.op() == "gemm") p.max_measured_tokens = std::max(p.max_measured_tokens, r.number("M"));
  }
  return rep;
}

}  // namespace tycoon::calibration
