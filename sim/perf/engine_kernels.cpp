#include "sim/perf/engine_kernels.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "sim/data/json_reader.h"
#include "sim/perf/cost_builder.h"

namespace tycoon::perf {

void attach_engine_moe_kernels(CalibrationProfile& p, const data::Catalog& catalog, const data::Accelerator& chip,
                               const std::filesystem::path& file) {
  using data::Bound;
  const auto json = data::parse_json_file(file);
  data::ObjectReader root(json, file.string(), "");
  root.string("about");
  auto kernels = root.array("kernels");
  root.finish();
  std::vector<std::string> seen;  // hardware, engine, weights and math of each entry
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    auto r = kernels.object(i);
    const std::string hardware = r.string("hardware");
    if (!catalog.find_accelerator(hardware)) r.fail("hardware", "unknown accelerator '" + hardware + "'");
    EngineMoeKernel k;
    k.engine = r.string("engine");
    if (!catalog.find_engine(k.engine)) r.fail("engine", "unknown engine '" + k.engine + "'");
    k.weights = static_cast<Precision>(r.choice("weights", kPrecisionNames));
    k.math = static_cast<Precision>(r.choice("math", kPrecisionNames));
    const std::string model_id = r.string("model");
    const data::ModelCard* model = catalog.find_model(model_id);
    if (!model) r.fail("model", "unknown model '" + model_id + "'");
    const auto group = std::find_if(model->layer_groups.begin(), model->layer_groups.end(),
                                    [](const auto& g) { return g.ffn && g.ffn->kind == data::FfnKind::kMoe; });
    if (group == model->layer_groups.end()) r.fail("model", "'" + model_id + "' has no MoE layer");
    const data::Ffn& f = *group->ffn;
    const double tp = static_cast<double>(r.integer("tp", Bound::kPositive));
    const double ep = static_cast<double>(r.integer("ep", Bound::kPositive));
    if (static_cast<std::int64_t>(tp) % static_cast<std::int64_t>(ep) != 0) r.fail("ep", "must divide tp");
    if (f.num_experts % static_cast<int>(ep) != 0)
      r.fail("ep", "must divide the model's " + std::to_string(f.num_experts) + " experts");
    const std::string key =
        hardware + " " + k.engine + " " + std::string(to_string(k.weights)) + " " + std::string(to_string(k.math));
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
      r.fail("math", "a second kernel for " + key + " (one per chip, engine, weights and math)");
    }
    seen.push_back(key);
    auto series = r.array("tokens_ms");
    if (series.size() < 2) series.fail_here("a series needs at least two [tokens, milliseconds] points");
    k.source = r.string("source");
    r.finish();
    if (hardware != chip.id) continue;

    // The published model's expert op at each token count, as add_moe_experts shapes it (tokens
    // routed uniformly; each GPU holds E/ep experts split over tp/ep ranks).
    const double E = f.num_experts, top_k = f.top_k;
    const double width =
        f.latent_size > 0 ? static_cast<double>(f.latent_size) : static_cast<double>(model->hidden_size);
    const double inter = static_cast<double>(f.expert_intermediate_size) / (tp / ep);
    const double peak = chip.peak_flop_per_s(k.math), bw = chip.hbm_bandwidth_bytes_per_s;
    // Each published time is set by one side. Up to the size where the kernel streams its
    // weights best, by streaming (more tokens touch more experts, and the rate rises as the
    // transfer grows); beyond it, by arithmetic (the weights are all read and the time grows with
    // the tokens). The memory curve is derived from the first points (by bytes, held flat at
    // the best streaming beyond them), the compute curve from the others (by tokens per expert,
    // held flat below them), so a time that streaming set never reads as an arithmetic
    // efficiency, nor the reverse: another model's experts pay their bytes at the streaming the
    // kernel reaches and their flop at the arithmetic it reaches.
    struct Point {
      double per_expert, bytes, compute_eff, memory_eff;
    };
    std::vector<Point> points;
    double last_tokens = 0;
    for (std::size_t j = 0; j < series.size(); ++j) {
      const auto& raw = root.raw("kernels")[i]["tokens_ms"][j];
      const std::string ptr = series.pointer() + "/" + std::to_string(j);
      if (!raw.is_array() || raw.size() != 2 || !raw[0].is_number() || !raw[1].is_number()) {
        throw data::LoadError(file.string(), ptr, "a point is [tokens, milliseconds]");
      }
      const double tokens = raw[0].get<double>(), ms = raw[1].get<double>();
      if (!(tokens >= 1) || tokens <= last_tokens)
        throw data::LoadError(file.string(), ptr + "/0", "token counts must increase from 1");
      if (!(ms > 0)) throw data::LoadError(file.string(), ptr + "/1", "a latency must be positive");
      last_tokens = tokens;
      const double touched = step::experts_touched(E, top_k, tokens) / ep;
      const step::ExpertWork w = step::expert_work(tokens * top_k / ep, touched, width, inter, f.gated, k.weights);
      const double t = ms * 1e-3;
      // Not capped at 1: an efficiency above it says the kernel moves fewer bytes (or does less
      // arithmetic) than the cost model counts for it, and the published time still comes out.
      points.push_back({w.per_expert, w.bytes, w.flop / (peak * t), w.bytes / (bw * t)});
    }
    std::size_t best = 0;  // the point of best streaming (points run by tokens, so by bytes)
    for (std::size_t j = 1; j < points.size(); ++j) {
      if (points[j].memory_eff > points[best].memory_eff) best = j;
    }
    // On the streaming side the arithmetic is at least what the first point beyond it shows,
    // and at least what the point's own time allows (so that the slower side is the streaming
    // one there and the published time comes out); a series that streams best at its largest
    // size shows its arithmetic at that size.
    const double beyond = best + 1 < points.size() ? points[best + 1].compute_eff : points.back().compute_eff;
    std::vector<std::pair<double, double>> compute, memory;
    for (std::size_t j = 0; j < points.size(); ++j) {
      if (j <= best) {
        memory.emplace_back(points[j].bytes, points[j].memory_eff);
        compute.emplace_back(points[j].per_expert, std::max(beyond, points[j].compute_eff));
      } else {
        compute.emplace_back(points[j].per_expert, points[j].compute_eff);
      }
    }
    k.compute_eff = Curve(std::move(compute));
    k.memory_eff = Curve(std::move(memory));
    p.engine_moe.push_back(std::move(k));
  }
}

}  // namespace tycoon::perf
