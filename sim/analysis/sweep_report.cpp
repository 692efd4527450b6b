#include "sim/analysis/sweep_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "sim/analysis/pareto.h"

namespace tycoon::analysis {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string csv_number(double v) {
  if (!std::isfinite(v)) return "";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

nlohmann::json estimate_json(const Estimate& e) {
  auto v = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); };
  return {{"mean", v(e.mean)},     {"half_width_95", v(e.half_width_95)},
          {"stddev", v(e.stddev)}, {"min", v(e.min)},
          {"max", v(e.max)},       {"n", e.n}};
}

double target_margin(const SweepSpec& s) { return s.target_gross_margin.value_or(kNaN); }

}  // namespace

TokenPrices resolve_prices(const PriceChoice& p, const data::ModelCard& model) {
  if (!p.market_scale) return {p.input_usd_per_mtok, p.cached_input_usd_per_mtok, p.output_usd_per_mtok};
  const auto& m = model.market_price;
  const double k = *p.market_scale;
  return {k * m.input_usd_per_mtok,
          k * (m.cached_input_usd_per_mtok > 0 ? m.cached_input_usd_per_mtok : m.input_usd_per_mtok),
          k * m.output_usd_per_mtok};
}

PointEconomics economics_of(const SweepData& d, std::size_t point, std::size_t price) {
  const auto& pt = d.sweep->points[point];
  const auto& cfg = d.sweep->configs[d.sweep->series[pt.series].config];
  return point_economics(d.perf[point], resolve_prices(d.spec->prices[price], *cfg.deployment.model),
                         cfg.gpu_usd_per_hour, target_margin(*d.spec));
}

std::vector<Group> make_groups(const SweepData& d) {
  std::vector<Group> groups;
  const auto& pts = d.sweep->points;
  std::size_t i = 0;
  while (i < pts.size()) {
    std::size_t j = i;
    while (j < pts.size() && pts[j].series == pts[i].series && pts[j].concurrency == pts[i].concurrency) ++j;
    for (std::size_t price = 0; price < d.spec->prices.size(); ++price) {
      Group g;
      g.series = pts[i].series;
      g.concurrency = pts[i].concurrency;
      g.price = price;
      std::array<std::vector<double>, kNumMetrics> samples;
      for (std::size_t k = i; k < j; ++k) {
        g.points.push_back(k);
        const auto& perf = d.perf[k];
        g.provenance = perf::weaker(g.provenance, perf.provenance);
        if (!perf.error.empty()) ++g.num_failed_points;
        g.requests_failed += perf.requests_failed;
        const auto econ = economics_of(d, k, price);
        for (std::size_t m = 0; m < kNumMetrics; ++m) {
          samples[m].push_back(metric_value(static_cast<Metric>(m), perf, econ));
        }
      }
      for (std::size_t m = 0; m < kNumMetrics; ++m) g.stats[m] = estimate(samples[m]);
      groups.push_back(std::move(g));
    }
    i = j;
  }
  return groups;
}

std::vector<OperatingPoint> operating_points(const SweepData& d, const std::vector<Group>& groups) {
  std::vector<OperatingPoint> out;
  for (std::size_t s = 0; s < d.sweep->series.size(); ++s) {
    OperatingPoint op;
    op.series = s;
    double best = -1;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const auto& gr = groups[g];
      if (gr.series != s || gr.price != 0) continue;
      const double tput = gr[Metric::kOutputTokPerSPerGpu].mean;
      const double inter = gr[Metric::kP90InteractivityTokPerSPerUser].mean;
      if (!std::isfinite(tput)) continue;
      if (d.spec->target_p90_tok_per_s_per_user && !(inter >= *d.spec->target_p90_tok_per_s_per_user)) continue;
      if (tput > best) {
        best = tput;
        op.group = g;
      }
    }
    out.push_back(op);
  }
  return out;
}

std::vector<std::size_t> frontier_groups(const std::vector<Group>& groups) {
  std::vector<std::size_t> first_price;
  std::vector<XY> xy;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].price != 0) continue;
    first_price.push_back(g);
    xy.push_back(
        {groups[g][Metric::kP90InteractivityTokPerSPerUser].mean, groups[g][Metric::kOutputTokPerSPerGpu].mean});
  }
  std::vector<std::size_t> out;
  for (std::size_t k : pareto_frontier(xy)) out.push_back(first_price[k]);
  return out;
}

void write_points_csv(std::ostream& out, const SweepData& d) {
  out << "point,point_hash,configuration,workload,hardware,model,engine,precision,tensor_parallel,expert_parallel,"
         "spec_tokens,max_num_batched_tokens,max_num_seqs,concurrency,seed,num_requests,price,input_usd_per_mtok,"
         "cached_input_usd_per_mtok,output_usd_per_mtok,gpu_usd_per_hour,num_gpus,requests_completed,"
         "requests_failed,provenance";
  for (auto name : kMetricNames) out << "," << name;
  out << ",error\n";
  for (std::size_t i = 0; i < d.sweep->points.size(); ++i) {
    const auto& pt = d.sweep->points[i];
    const auto& se = d.sweep->series[pt.series];
    const auto& cfg = d.sweep->configs[se.config];
    const auto& dep = cfg.deployment;
    const auto& w = d.spec->workloads[se.workload];
    const auto& perf = d.perf[i];
    for (std::size_t price = 0; price < d.spec->prices.size(); ++price) {
      const auto prices = resolve_prices(d.spec->prices[price], *dep.model);
      const auto econ = economics_of(d, i, price);
      out << i << "," << pt.hash << "," << csv_field(cfg.label) << "," << csv_field(w.name) << "," << dep.hardware->id
          << "," << dep.model->id << "," << dep.engine->id << "," << to_string(dep.precision) << ","
          << dep.tensor_parallel << "," << dep.expert_parallel << ","
          << (dep.spec_decode ? dep.spec_decode->num_draft_tokens : 0) << "," << cfg.scheduler.max_num_batched_tokens
          << "," << cfg.scheduler.max_num_seqs << "," << pt.concurrency << "," << pt.seed << "," << pt.num_requests
          << "," << csv_field(d.spec->prices[price].name) << "," << csv_number(prices.input_usd_per_mtok) << ","
          << csv_number(prices.cached_input_usd_per_mtok) << "," << csv_number(prices.output_usd_per_mtok) << ","
          << csv_number(cfg.gpu_usd_per_hour) << "," << perf.num_gpus << "," << perf.requests_completed << ","
          << perf.requests_failed << "," << perf::to_string(perf.provenance);
      for (std::size_t m = 0; m < kNumMetrics; ++m)
        out << "," << csv_number(metric_value(static_cast<Metric>(m), perf, econ));
      out << "," << csv_field(perf.error) << "\n";
    }
  }
}

nlohmann::json summary_json(const SweepData& d, const std::vector<Group>& groups) {
  const auto& spec = *d.spec;
  const auto& sw = *d.sweep;
  nlohmann::json j;
  j["sweep"] = {{"name", spec.name},
                {"title", spec.title},
                {"description", spec.description},
                {"spec_file", spec.file},
                {"spec_hash", sw.spec_hash},
                {"num_points", sw.points.size()},
                {"num_rows", sw.points.size() * spec.prices.size()},
                {"seeds", spec.seeds},
                {"contract", std::string(kContractNames[static_cast<std::size_t>(spec.contract)])}};
  j["target"] = {
      {"min_p90_tok_per_s_per_user", spec.target_p90_tok_per_s_per_user
                                         ? nlohmann::json(*spec.target_p90_tok_per_s_per_user)
                                         : nlohmann::json(nullptr)},
      {"gross_margin", spec.target_gross_margin ? nlohmann::json(*spec.target_gross_margin) : nlohmann::json(nullptr)}};
  j["formulas"] = {
      {"tokens_per_gpu_hour",
       "I = 3600 x input tok/s/GPU, O = 3600 x output tok/s/GPU (completed requests, simulated)"},
      {"revenue_usd_per_gpu_hour",
       "V = (I x (1 - c) x p_in + I x c x p_cached + O x p_out) / 1e6, c = prefix-cache hit share"},
      {"gross_margin", "(V - R) / V, R = GPU rent in USD per GPU-hour (catalog price for the contract)"},
      {"cost_blended_usd_per_mtok", "R / ((I + O) / 1e6)"},
      {"cost_output_only_usd_per_mtok", "R / (O / 1e6): all rent charged to output tokens (InferenceX's convention)"},
      {"cost_input_usd_per_mtok", "p_in x R / V: break-even input price at the quoted input:output ratio"},
      {"cost_output_usd_per_mtok", "p_out x R / V: break-even output price at the quoted input:output ratio"},
      {"price_scale_for_target_margin", "R / ((1 - m) x V): the factor on every quoted price that yields margin m"},
      {"confidence_interval", "mean +- t(0.975, n-1) x s / sqrt(n) over the seeds of a group (Student t)"}};
  nlohmann::json cals = nlohmann::json::object();
  for (const auto& [chip, cal] : *d.calibrations) {
    cals[chip] = {{"provenance", std::string(perf::to_string(cal.provenance))}, {"source", cal.source}};
  }
  j["calibrations"] = cals;
  nlohmann::json configs = nlohmann::json::array();
  for (const auto& c : sw.configs) {
    auto cj = c.describe();
    cj["spec_pointer"] = c.pointer;
    configs.push_back(cj);
  }
  j["configurations"] = configs;
  nlohmann::json prices = nlohmann::json::array();
  for (const auto& p : spec.prices) {
    prices.push_back({{"name", p.name},
                      {"market_scale", p.market_scale ? nlohmann::json(*p.market_scale) : nlohmann::json(nullptr)},
                      {"input_usd_per_mtok", p.input_usd_per_mtok},
                      {"cached_input_usd_per_mtok", p.cached_input_usd_per_mtok},
                      {"output_usd_per_mtok", p.output_usd_per_mtok}});
  }
  j["prices"] = prices;

  auto group_json = [&](const Group& g) {
    const auto& se = sw.series[g.series];
    const auto& model = *sw.configs[se.config].deployment.model;
    const auto tp = resolve_prices(spec.prices[g.price], model);
    nlohmann::json metrics = nlohmann::json::object();
    for (std::size_t m = 0; m < kNumMetrics; ++m) metrics[std::string(kMetricNames[m])] = estimate_json(g.stats[m]);
    return nlohmann::json{{"series", se.label},
                          {"configuration", sw.configs[se.config].label},
                          {"workload", spec.workloads[se.workload].name},
                          {"concurrency", g.concurrency},
                          {"price", spec.prices[g.price].name},
                          {"input_usd_per_mtok", tp.input_usd_per_mtok},
                          {"output_usd_per_mtok", tp.output_usd_per_mtok},
                          {"num_seeds", g.points.size()},
                          {"provenance", std::string(perf::to_string(g.provenance))},
                          {"failed_points", g.num_failed_points},
                          {"failed_requests", g.requests_failed},
                          {"metrics", metrics}};
  };
  nlohmann::json gj = nlohmann::json::array();
  for (const auto& g : groups) gj.push_back(group_json(g));
  j["groups"] = gj;

  nlohmann::json fj = nlohmann::json::array();
  for (std::size_t g : frontier_groups(groups)) {
    fj.push_back({{"series", sw.series[groups[g].series].label},
                  {"concurrency", groups[g].concurrency},
                  {"p90_tok_per_s_per_user", groups[g][Metric::kP90InteractivityTokPerSPerUser].mean},
                  {"output_tok_per_s_per_gpu", groups[g][Metric::kOutputTokPerSPerGpu].mean}});
  }
  j["pareto_frontier"] = fj;

  // Operating points, ranked by throughput; each says whether its lead over the next is larger
  // than the seeds' noise (95% intervals apart) — a 2% lead inside the noise is not a win.
  auto ops = operating_points(d, groups);
  std::stable_sort(ops.begin(), ops.end(), [&](const OperatingPoint& a, const OperatingPoint& b) {
    const double ta = a.group ? groups[*a.group][Metric::kOutputTokPerSPerGpu].mean : -1;
    const double tb = b.group ? groups[*b.group][Metric::kOutputTokPerSPerGpu].mean : -1;
    return ta > tb;
  });
  nlohmann::json oj = nlohmann::json::array();
  for (std::size_t k = 0; k < ops.size(); ++k) {
    const auto& op = ops[k];
    nlohmann::json o = {{"series", sw.series[op.series].label}, {"meets_target", op.group.has_value()}};
    if (op.group) {
      const auto& g = groups[*op.group];
      o["concurrency"] = g.concurrency;
      o["provenance"] = std::string(perf::to_string(g.provenance));
      for (Metric m : {Metric::kOutputTokPerSPerGpu, Metric::kP90InteractivityTokPerSPerUser, Metric::kGrossMargin,
                       Metric::kCostBlendedUsdPerMtok, Metric::kCostOutputOnlyUsdPerMtok}) {
        o[std::string(to_string(m))] = estimate_json(g[m]);
      }
      if (k + 1 < ops.size() && ops[k + 1].group) {
        const auto& next = groups[*ops[k + 1].group][Metric::kOutputTokPerSPerGpu];
        o["throughput_lead_over_next_is_significant"] =
            !Estimate::overlap(g[Metric::kOutputTokPerSPerGpu], next) && g.points.size() > 1;
      }
      if (spec.target_gross_margin) {
        const auto& scale = g[Metric::kPriceScaleForTargetMargin];
        const auto tp = resolve_prices(spec.prices[0], *sw.configs[sw.series[op.series].config].deployment.model);
        o["price_for_target_margin"] = {
            {"price_scale", estimate_json(scale)},
            {"input_usd_per_mtok",
             std::isfinite(scale.mean) ? nlohmann::json(scale.mean * tp.input_usd_per_mtok) : nlohmann::json(nullptr)},
            {"output_usd_per_mtok", std::isfinite(scale.mean) ? nlohmann::json(scale.mean * tp.output_usd_per_mtok)
                                                              : nlohmann::json(nullptr)}};
      }
    }
    oj.push_back(o);
  }
  j["operating_points"] = oj;

  // The run-to-run spread: how large a difference the seeds alone produce.
  double worst = 0;
  for (const auto& g : groups) {
    const double r = g[Metric::kOutputTokPerSPerGpu].relative_half_width();
    if (std::isfinite(r)) worst = std::max(worst, r);
  }
  j["noise"] = {
      {"max_relative_half_width_95_output_tok_per_s_per_gpu",
       spec.seeds.size() > 1 ? nlohmann::json(worst) : nlohmann::json(nullptr)},
      {"note", spec.seeds.size() > 1 ? "differences smaller than the 95% intervals are within run-to-run noise"
                                     : "one seed per point: no confidence interval (add seeds)"}};
  return j;
}

}  // namespace tycoon::analysis
