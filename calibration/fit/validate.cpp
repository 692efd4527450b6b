#include "calibration/fit/validate.h"

#include <algorithm>
#include <cmath>

#include "sim/perf/iteration_cost.h"

namespace tycoon::calibration {

namespace {

data::ModelCard card_from_row(const Row& r) {
  data::ModelCard m;
  m.id = r.value.value("model", std::string("reference"));
  m.name = m.id + " (reference engine)";
  m.hidden_size = static_cast<std::int64_t>(r.number("hidden"));
  m.vocab_size = static_cast<std::int64_t>(r.number("vocab"));
  m.max_context_tokens = 1 << 20;
  m.native_precision = Precision::kBf16;
  data::LayerGroup g;
  g.count = static_cast<int>(r.number("num_layers"));
  data::Mixer mx;
  mx.kind = data::MixerKind::kAttention;
  mx.num_q_heads = static_cast<int>(r.number("num_q_heads"));
  mx.num_kv_heads = static_cast<int>(r.number("num_kv_heads"));
  mx.head_dim = mx.v_head_dim = static_cast<int>(r.number("head_dim"));
  mx.qk_norm = r.value.value("qk_norm", false);
  g.mixer = mx;
  data::Ffn f;
  f.gated = true;
  if (r.number_or("num_experts", 0) > 0) {
    f.kind = data::FfnKind::kMoe;
    f.num_experts = static_cast<int>(r.number("num_experts"));
    f.top_k = static_cast<int>(r.number("top_k"));
    f.expert_intermediate_size = static_cast<std::int64_t>(r.number("expert_dim"));
    f.shared_intermediate_size = f.expert_intermediate_size;
  } else {
    f.kind = data::FfnKind::kDense;
    f.intermediate_size = static_cast<std::int64_t>(r.number("intermediate"));
  }
  g.ffn = f;
  m.layer_groups.push_back(g);
  return m;
}

bool host_bound(const perf::IterationCost& c, const perf::CalibrationProfile& p, int tp) {
  double typical = tp > 1 ? p.python_op_launch_tp_s : p.python_op_launch_s;
  double slowest = tp > 1 ? p.python_op_launch_tp_slowest_s : p.python_op_launch_slowest_s;
  return typical > 0 && c.host_launch_s * (slowest / typical) >= c.gpu_s;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

ValidationReport validate(const std::vector<Row>& rows, const perf::CalibrationProfile& profile,
                          const data::Catalog& catalog, const data::Accelerator& chip) {
  ValidationReport rep;
  const auto& engine = catalog.engine("torch-reference");
  std::vector<double> errs;
  for (const auto& r : rows) {
    if (!r.is_end_to_end()) continue;
    auto card = card_from_row(r);
    perf::Deployment d;
    d.model = &card;
    d.hardware = &chip;
    d.engine = &engine;
    d.precision = Precision::kBf16;
    d.tensor_parallel = static_cast<int>(r.number_or("tp", 1));
    d.cuda_graphs = r.value.value("cuda_graph", false);
    ValidationPoint pt;
    pt.model = card.id;
    pt.num_layers = card.num_layers();
    pt.tp = d.tensor_parallel;
    pt.moe = card.is_moe();
    pt.cuda_graph = d.cuda_graphs;
    pt.batch = static_cast<std::int64_t>(r.number("batch"));
    pt.measured_s = r.number("median_s");
    if (r.op() == "e2e_decode") {
      pt.mode = "decode";
      pt.length = static_cast<std::int64_t>(r.number("context"));
      // The new token sits at position context-1 and attends `context` keys.
      auto c = perf::predict_decode(d, profile, static_cast<int>(pt.batch), pt.length - 1);
      pt.predicted_s = c.total_s;
      pt.host_bound = host_bound(c, profile, d.tensor_parallel);
    } else {
      pt.mode = "prefill";
      pt.length = static_cast<std::int64_t>(r.number("prompt_len"));
      auto c = perf::predict_prefill(d, profile, pt.length, 0, static_cast<int>(pt.batch));
      pt.predicted_s = c.total_s;
      pt.host_bound = host_bound(c, profile, d.tensor_parallel);
    }
    errs.push_back(std::fabs(pt.error()));
    rep.points.push_back(pt);
  }
  rep.median_abs_error = median(errs);
  rep.max_abs_error = errs.empty() ? 0 : *std::max_element(errs.begin(), errs.end());
  for (bool host : {false, true}) {
    std::vector<double> e;
    for (const auto& p : rep.points) {
      if (p.host_bound == host) e.push_back(std::fabs(p.error()));
    }
    auto& st = host ? rep.host_bound : rep.gpu_bound;
    st.rows = static_cast<int>(e.size());
    st.median_abs = median(e);
    st.max_abs = e.empty() ? 0 : *std::max_element(e.begin(), e.end());
  }
  return rep;
}

}  // namespace tycoon::calibration
