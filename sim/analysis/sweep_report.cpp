#include "sim/analysis/sweep_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "sim/analysis/pareto.h"
#include "sim/core/version.h"

namespace tycoon::analysis {

namespace {

constexpr double kNotANumber = std::numeric_limits<double>::quiet_NaN();

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
  return {{"mean", v(e.mean)},
          {"half_width_95", v(e.half_width_95)},
          {"model_error_half_width", v(e.model_half_width)},
          {"half_width_total", v(e.total_half_width())},
          {"stddev", v(e.stddev)},
          {"min", v(e.min)},
          {"max", v(e.max)},
          {"n", e.n}};
}

double target_margin(const SweepSpec& s) { return s.target_gross_margin.value_or(kNotANumber); }

}  // namespace

econ::TokenPrices resolve_prices(const PriceChoice& p, const data::ModelCard& model) {
  if (!p.market_scale) return {p.input_usd_per_mtok, p.cached_input_usd_per_mtok, p.output_usd_per_mtok};
  // A card without a cached price bills cached input at the input price.
  econ::TokenPrices market = econ::from_market_price(model.market_price);
  if (!(market.cached_input_usd_per_mtok > 0)) market.cached_input_usd_per_mtok = market.input_usd_per_mtok;
  return econ::scaled(market, *p.market_scale);
}

PointEconomics economics_of(const SweepData& d, std::size_t point, std::size_t price) {
  const auto& pt = d.sweep->points[point];
  const auto& cfg = d.sweep->configs[d.sweep->series[pt.series].config];
  return point_economics(d.perf[point], resolve_prices(d.spec->prices[price], *cfg.deployment().model),
                         cfg.gpu_usd_per_hour, target_margin(*d.spec), cfg.all_in_power_watts,
                         cfg.contract_usd_per_gpu_hour);
}

std::string series_outside_validation(const SweepData& d, std::size_t series) {
  return perf::outside_validation(d.sweep->configs[d.sweep->series[series].config].deployment());
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
        g.requests_total += perf.requests_failed + perf.requests_completed;
        const auto econ = economics_of(d, k, price);
        for (std::size_t m = 0; m < kNumMetrics; ++m) {
          samples[m].push_back(metric_value(static_cast<Metric>(m), perf, econ));
        }
      }
      // Each P90 latency's own interval within a run (the steady-state rule's batch means), the
      // mean over the group's runs that have one, in ms like the figure.
      auto run_half_width_ms = [&](double PointPerf::*half_width_s) {
        double sum = 0;
        int n = 0;
        for (std::size_t k = i; k < j; ++k) {
          const double h = d.perf[k].*half_width_s;
          if (std::isfinite(h)) {
            sum += 1e3 * h;
            ++n;
          }
        }
        return n > 0 ? sum / n : 0.0;
      };
      for (std::size_t m = 0; m < kNumMetrics; ++m) {
        g.stats[m] = estimate(samples[m]);
        if (d.errors) {
          g.stats[m].model_half_width =
              model_half_width(static_cast<Metric>(m), g.stats[m].mean, d.errors->of(g.provenance));
        }
      }
      if (d.errors) set_output_price_model_half_width(g.stats, target_margin(*d.spec), d.errors->of(g.provenance));
      g.stats[static_cast<std::size_t>(Metric::kTtftP90Ms)].run_half_width =
          run_half_width_ms(&PointPerf::ttft_p90_half_width_s);
      g.stats[static_cast<std::size_t>(Metric::kTpotP90Ms)].run_half_width =
          run_half_width_ms(&PointPerf::tpot_p90_half_width_s);
      for (std::size_t k = i; k < j; ++k) {
        if (d.perf[k].unsettled()) ++g.num_not_stationary;
      }
      groups.push_back(std::move(g));
    }
    i = j;
  }
  return groups;
}

std::optional<econ::TokenPrices> prices_for_target_margin(const SweepData& d, const OperatingPoint& op) {
  if (!d.spec->target_gross_margin) return std::nullopt;
  const double scale = op.at(Metric::kPriceScaleForTargetMargin).mean;
  if (!std::isfinite(scale)) return std::nullopt;
  const auto list =
      resolve_prices(d.spec->prices[0], *d.sweep->configs[d.sweep->series[op.series].config].deployment().model);
  econ::TokenPrices out = list;
  out.input_usd_per_mtok = scale * list.input_usd_per_mtok;
  out.output_usd_per_mtok = scale * list.output_usd_per_mtok;
  return out;
}

std::vector<std::vector<std::size_t>> frontier_groups(const SweepData& d, const std::vector<Group>& groups) {
  std::vector<std::vector<std::size_t>> out(d.spec->workloads.size());
  for (std::size_t w = 0; w < out.size(); ++w) {
    std::vector<std::size_t> first_price;
    std::vector<XY> xy;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      if (groups[g].price != 0 || d.sweep->series[groups[g].series].workload != w) continue;
      first_price.push_back(g);
      xy.push_back(
          {groups[g][Metric::kP90InteractivityTokPerSPerUser].mean, groups[g][Metric::kOutputTokPerSPerGpu].mean});
    }
    for (std::size_t k : pareto_frontier(xy)) out[w].push_back(first_price[k]);
  }
  return out;
}

void write_points_csv(std::ostream& out, const SweepData& d) {
  out << "point,point_hash,configuration,workload,hardware,model,engine,precision,tensor_parallel,expert_parallel,"
         "spec_tokens,max_num_batched_tokens,max_num_seqs,concurrency,seed,num_requests,price,input_usd_per_mtok,"
         "cached_input_usd_per_mtok,output_usd_per_mtok,gpu_usd_per_hour,num_gpus,users_per_gpu,requests_completed,"
         "requests_failed,failed_share,input_tokens,cached_input_tokens,cached_input_share,output_tokens,"
         "mean_batch_size,provenance";
  for (auto name : kMetricNames) out << "," << name;
  out << ",error\n";
  for (std::size_t i = 0; i < d.sweep->points.size(); ++i) {
    const auto& pt = d.sweep->points[i];
    const auto& se = d.sweep->series[pt.series];
    const auto& cfg = d.sweep->configs[se.config];
    const auto& dep = cfg.deployment();
    const auto& w = d.spec->workloads[se.workload];
    const auto& perf = d.perf[i];
    for (std::size_t price = 0; price < d.spec->prices.size(); ++price) {
      const auto prices = resolve_prices(d.spec->prices[price], *dep.model);
      const auto econ = economics_of(d, i, price);
      out << i << "," << pt.hash << "," << csv_field(cfg.label) << "," << csv_field(w.name) << "," << dep.hardware->id
          << "," << dep.model->id << "," << dep.engine->id << "," << to_string(dep.precision) << ","
          << dep.tensor_parallel << "," << dep.expert_parallel << ","
          << (dep.spec_decode ? dep.spec_decode->num_draft_tokens : 0) << "," << cfg.scheduler().max_num_batched_tokens
          << "," << cfg.scheduler().max_num_seqs << "," << pt.concurrency << "," << pt.seed << "," << pt.num_requests
          << "," << csv_field(d.spec->prices[price].name) << "," << csv_number(prices.input_usd_per_mtok) << ","
          << csv_number(prices.cached_input_usd_per_mtok) << "," << csv_number(prices.output_usd_per_mtok) << ","
          << csv_number(cfg.gpu_usd_per_hour) << "," << perf.num_gpus << ","
          << csv_number(static_cast<double>(pt.concurrency) / cfg.num_gpus()) << "," << perf.requests_completed << ","
          << perf.requests_failed << "," << csv_number(perf.failed_share()) << "," << perf.input_tokens << ","
          << perf.cached_input_tokens << "," << csv_number(perf.cached_input_share()) << "," << perf.output_tokens
          << "," << csv_number(perf.mean_batch_size) << "," << perf::to_string(perf.provenance);
      for (std::size_t m = 0; m < kNumMetrics; ++m)
        out << "," << csv_number(metric_value(static_cast<Metric>(m), perf, econ));
      out << "," << csv_field(perf.error) << "\n";
    }
  }
}

void write_operating_points_csv(std::ostream& out, const SweepData& d, const std::vector<Group>& groups) {
  out << "series,configuration,workload,pick,concurrency,users_per_gpu,bracket_low_users,bracket_high_users,price,"
         "metric,value,"
         "low,high,half_width_95_seeds,model_half_width,num_seeds,provenance,outside_validation_set\n";
  for (const auto& op : operating_points(d, groups)) {
    const auto& se = d.sweep->series[op.series];
    const std::string head = csv_field(series_legend(d, op.series)) + "," +
                             csv_field(d.sweep->configs[se.config].label) + "," +
                             csv_field(d.spec->workloads[se.workload].name) + ",";
    const std::string outside = csv_field(series_outside_validation(d, op.series));
    if (!op.found()) {
      out << head << "none: no concurrency meets every target,,,,,,,,,,,,,," << outside << "\n";
      continue;
    }
    const std::string where = csv_field(op.pick_label()) + "," + csv_number(op.concurrency) + "," +
                              csv_number(op.concurrency / d.sweep->configs[se.config].num_gpus()) + "," +
                              (op.interpolated ? std::to_string(groups[*op.group].concurrency) + "," +
                                                     std::to_string(groups[*op.upper_group].concurrency)
                                               : ",") +
                              ",";
    const std::string prov = std::string(perf::to_string(op.provenance));
    auto row = [&](const std::string& price, std::string_view metric, const Estimate& e) {
      const double h = e.total_half_width();
      const bool known = std::isfinite(e.mean) && std::isfinite(h);
      out << head << where << csv_field(price) << "," << metric << "," << csv_number(e.mean) << ","
          << (known ? csv_number(e.mean - h) : "") << "," << (known ? csv_number(e.mean + h) : "") << ","
          << csv_number(e.half_width_95) << "," << csv_number(e.model_half_width) << "," << e.n << "," << prov << ","
          << outside << "\n";
    };
    for (std::size_t m = 0; m < kNumMetrics; ++m) {
      const auto metric = static_cast<Metric>(m);
      if (!depends_on_price(metric)) {
        row("", to_string(metric), op.at(metric));
        continue;
      }
      for (std::size_t p = 0; p < d.spec->prices.size(); ++p)
        row(d.spec->prices[p].name, to_string(metric), op.at(metric, p));
    }
    Estimate failed;  // the share of failed requests: a count over the seeds' requests, no interval
    failed.mean = op.failed_share;
    failed.half_width_95 = kNotANumber;
    failed.n = static_cast<int>(groups[*op.group].points.size());
    row("", "failed_share", failed);
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
  auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  j["target"] = {
      {"min_p90_tok_per_s_per_user", spec.target_p90_tok_per_s_per_user
                                         ? nlohmann::json(*spec.target_p90_tok_per_s_per_user)
                                         : nlohmann::json(nullptr)},
      {"gross_margin", spec.target_gross_margin ? nlohmann::json(*spec.target_gross_margin) : nlohmann::json(nullptr)},
      {"max_p90_ttft_ms", opt(spec.target_max_p90_ttft_ms)},
      {"max_p99_ttft_ms", opt(spec.target_max_p99_ttft_ms)},
      {"max_p90_tpot_ms", opt(spec.target_max_p90_tpot_ms)},
      {"max_failed_share", opt(spec.target_max_failed_share)}};
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
      {"output_price_for_target_margin_usd_per_mtok",
       "(R / (1 - m) - V_in) / (O / 1e6), V_in = (I (1 - c) p_in + I c p_cached) / 1e6: the output price that yields "
       "margin m with input and cached input at the quoted prices (negative: the input alone earns it)"},
      {"output_tok_per_s_per_mw",
       "output tok/s/GPU x 1e6 / P, P = all-in watts per GPU (chip, host, network, facility: all_in_power_watts)"},
      {"energy_kwh_per_output_mtok", "P / (3.6 x output tok/s/GPU): all energy charged to output tokens"},
      {"cost_on_demand_usd_per_mtok",
       "R_on_demand / (O / 1e6): output-only cost at the chip's catalog on-demand rent, whatever the sweep rents at"},
      {"cost_reserved_usd_per_mtok", "R_reserved / (O / 1e6), at the chip's catalog reserved rent"},
      {"cost_spot_usd_per_mtok", "R_spot / (O / 1e6), at the chip's catalog spot rent"},
      {"users_per_gpu", "closed-loop users of the deployment / every GPU of it (both pools when disaggregated)"},
      {"confidence_interval", "mean +- t(0.975, n-1) x s / sqrt(n) over the seeds of a group (Student t)"},
      {"operating_point",
       "highest mean tok/s/GPU meeting every target; with an interactivity, TTFT or TPOT target, every metric is "
       "interpolated at the target between measured concurrencies (monotone cubic, Fritsch-Carlson, over log2 "
       "users); conservative: every target met at the far end of the reported interval"}};
  nlohmann::json cals = nlohmann::json::object();
  for (const auto& [chip, cal] : *d.calibrations) {
    cals[chip] = {{"provenance", std::string(perf::to_string(cal.provenance))}, {"source", cal.source}};
  }
  j["calibrations"] = cals;
  if (d.errors) {
    nlohmann::json me = {{"file", d.errors->file},
                         {"combination",
                          "half_width_total = sqrt(half_width_95^2 + model_error_half_width^2); model "
                          "error: e x |mean| (e x |1 - mean| for gross margin), e by provenance"}};
    for (std::size_t p = 0; p < perf::kProvenanceNames.size(); ++p) {
      me[std::string(perf::kProvenanceNames[p])] = {{"relative_error", d.errors->relative[p]},
                                                    {"source", d.errors->source[p]}};
    }
    j["model_error"] = me;
  }
  nlohmann::json configs = nlohmann::json::array();
  for (const auto& c : sw.configs) {
    auto cj = c.describe();
    cj["spec_pointer"] = c.pointer;
    configs.push_back(cj);
  }
  j["configurations"] = configs;
  // Each price as it was billed: a market-scaled price is the model card's market price times its
  // scale, per model of the sweep (a spec's market price of 0.0 was the unset absolute field).
  nlohmann::json prices = nlohmann::json::array();
  for (const auto& p : spec.prices) {
    nlohmann::json by_model = nlohmann::json::object();
    for (const auto& c : sw.configs) {
      const auto& model = *c.deployment().model;
      if (by_model.contains(model.id)) continue;
      const auto tp = resolve_prices(p, model);
      by_model[model.id] = {{"input_usd_per_mtok", tp.input_usd_per_mtok},
                            {"cached_input_usd_per_mtok", tp.cached_input_usd_per_mtok},
                            {"output_usd_per_mtok", tp.output_usd_per_mtok},
                            {"source", p.market_scale ? "model card market_price x market_scale" : "the spec"}};
    }
    nlohmann::json pj = {{"name", p.name},
                         {"market_scale", p.market_scale ? nlohmann::json(*p.market_scale) : nlohmann::json(nullptr)}};
    // One model: its prices inline; several: null inline (they differ by model), each in by_model.
    for (const char* key : {"input_usd_per_mtok", "cached_input_usd_per_mtok", "output_usd_per_mtok"}) {
      pj[key] = by_model.size() == 1 ? by_model.begin().value()[key] : nlohmann::json(nullptr);
    }
    pj["by_model"] = by_model;
    prices.push_back(pj);
  }
  j["prices"] = prices;

  auto group_json = [&](const Group& g) {
    const auto& se = sw.series[g.series];
    const auto& model = *sw.configs[se.config].deployment().model;
    const auto tp = resolve_prices(spec.prices[g.price], model);
    nlohmann::json metrics = nlohmann::json::object();
    for (std::size_t m = 0; m < kNumMetrics; ++m) metrics[std::string(kMetricNames[m])] = estimate_json(g.stats[m]);
    nlohmann::json row{{"series", se.label},
                       {"configuration", sw.configs[se.config].label},
                       {"workload", spec.workloads[se.workload].name},
                       {"concurrency", g.concurrency},
                       {"num_gpus", sw.configs[se.config].num_gpus()},
                       {"users_per_gpu", static_cast<double>(g.concurrency) / sw.configs[se.config].num_gpus()},
                       {"price", spec.prices[g.price].name},
                       {"input_usd_per_mtok", tp.input_usd_per_mtok},
                       {"cached_input_usd_per_mtok", tp.cached_input_usd_per_mtok},
                       {"output_usd_per_mtok", tp.output_usd_per_mtok},
                       {"num_seeds", g.points.size()},
                       {"provenance", std::string(perf::to_string(g.provenance))},
                       {"failed_points", g.num_failed_points},
                       {"not_stationary_points", g.num_not_stationary},
                       {"failed_requests", g.requests_failed},
                       {"failed_share", g.failed_share()},
                       {"misses_targets", target_misses(spec, g.stats, g.failed_share())},
                       {"metrics", metrics}};
    if (auto why = series_outside_validation(d, g.series); !why.empty()) row["outside_validation_set"] = why;
    return row;
  };
  nlohmann::json gj = nlohmann::json::array();
  for (const auto& g : groups) gj.push_back(group_json(g));
  j["groups"] = gj;
  // The points the steady-state rule could not settle by its cap, each with the reason.
  nlohmann::json nj = nlohmann::json::array();
  for (std::size_t i = 0; i < d.perf.size(); ++i) {
    const auto& p = d.perf[i];
    if (!p.unsettled()) continue;
    nj.push_back({{"point", i},
                  {"series", sw.series[sw.points[i].series].label},
                  {"concurrency", sw.points[i].concurrency},
                  {"seed", sw.points[i].seed},
                  {"why", p.why_not_stationary}});
  }
  j["not_stationary_points"] = nj;

  nlohmann::json fj = nlohmann::json::array();
  const auto frontiers = frontier_groups(d, groups);
  for (std::size_t w = 0; w < frontiers.size(); ++w) {
    for (std::size_t g : frontiers[w]) {
      fj.push_back({{"workload", spec.workloads[w].name},
                    {"series", sw.series[groups[g].series].label},
                    {"concurrency", groups[g].concurrency},
                    {"p90_tok_per_s_per_user", groups[g][Metric::kP90InteractivityTokPerSPerUser].mean},
                    {"output_tok_per_s_per_gpu", groups[g][Metric::kOutputTokPerSPerGpu].mean}});
    }
  }
  j["pareto_frontier"] = fj;

  // Operating points, ranked by throughput; each says whether its lead over the next is larger
  // than the seeds' noise (95% intervals apart) — a 2% lead inside the noise is not a win.
  const auto ops = ranked_operating_points(d, groups);
  nlohmann::json oj = nlohmann::json::array();
  for (std::size_t k = 0; k < ops.size(); ++k) {
    const auto& op = ops[k];
    // "legend": the name the console, the CSVs and the charts print (the label and what tells the
    // series apart); `tycoon export --series` takes either.
    nlohmann::json o = {{"series", sw.series[op.series].label},
                        {"legend", series_legend(d, op.series)},
                        {"meets_target", op.found()},
                        {"rejected_concurrencies", op.rejected}};
    if (op.found()) {
      o["concurrency"] = op.concurrency;
      o["num_gpus"] = sw.configs[sw.series[op.series].config].num_gpus();
      o["users_per_gpu"] = op.concurrency / sw.configs[sw.series[op.series].config].num_gpus();
      o["interpolated_at_target"] = op.interpolated;
      o["pick"] = op.pick_label();
      if (op.interpolated) o["binding_targets"] = op.binding;
      o["marginal"] = op.marginal;
      o["conservative"] = d.spec->conservative;
      if (op.interpolated) {
        o["between_concurrencies"] = {groups[*op.group].concurrency, groups[*op.upper_group].concurrency};
      }
      o["provenance"] = std::string(perf::to_string(op.provenance));
      if (auto why = series_outside_validation(d, op.series); !why.empty()) o["outside_validation_set"] = why;
      o["failed_share"] = op.failed_share;
      for (Metric m : {Metric::kOutputTokPerSPerGpu, Metric::kP90InteractivityTokPerSPerUser, Metric::kTtftP90Ms,
                       Metric::kTtftP99Ms, Metric::kTpotP90Ms, Metric::kGrossMargin, Metric::kCostBlendedUsdPerMtok,
                       Metric::kCostOutputOnlyUsdPerMtok, Metric::kOutputTokPerSPerMw, Metric::kEnergyKwhPerOutputMtok,
                       Metric::kCostOnDemandUsdPerMtok, Metric::kCostReservedUsdPerMtok, Metric::kCostSpotUsdPerMtok}) {
        o[std::string(to_string(m))] = estimate_json(op.at(m));
      }
      nlohmann::json per_price = nlohmann::json::array();
      for (std::size_t p = 0; p < spec.prices.size(); ++p) {
        per_price.push_back(
            {{"price", spec.prices[p].name}, {"gross_margin", estimate_json(op.at(Metric::kGrossMargin, p))}});
      }
      o["gross_margin_by_price"] = per_price;
      if (k + 1 < ops.size() && ops[k + 1].found()) {
        const auto& next = ops[k + 1].at(Metric::kOutputTokPerSPerGpu);
        const auto& mine = op.at(Metric::kOutputTokPerSPerGpu);
        o["throughput_lead_over_next_is_significant"] = !Estimate::overlap(mine, next) && spec.seeds.size() > 1;
        // The same question against the reported intervals (seeds and model error): a lead of
        // one chip's extrapolated curves over another's placeholder is rarely outside them.
        const double reach = std::isfinite(mine.total_half_width()) && std::isfinite(next.total_half_width())
                                 ? mine.total_half_width() + next.total_half_width()
                                 : kNotANumber;
        o["throughput_lead_exceeds_reported_intervals"] =
            std::isfinite(reach) ? nlohmann::json(mine.mean - next.mean > reach) : nlohmann::json(nullptr);
      }
      if (spec.target_gross_margin) {
        const auto target_prices = prices_for_target_margin(d, op);
        o["price_for_target_margin"] = {
            {"price_scale", estimate_json(op.at(Metric::kPriceScaleForTargetMargin))},
            {"input_usd_per_mtok",
             target_prices ? nlohmann::json(target_prices->input_usd_per_mtok) : nlohmann::json(nullptr)},
            {"output_usd_per_mtok",
             target_prices ? nlohmann::json(target_prices->output_usd_per_mtok) : nlohmann::json(nullptr)}};
        // The other solve: only the output price moves, input and cached input stay at the first price's.
        const auto held = resolve_prices(spec.prices[0], *sw.configs[sw.series[op.series].config].deployment().model);
        o["output_price_for_target_margin"] = {
            {"input_usd_per_mtok", held.input_usd_per_mtok},
            {"cached_input_usd_per_mtok", held.cached_input_usd_per_mtok},
            {"held_at", spec.prices[0].name},
            {"output_usd_per_mtok", estimate_json(op.at(Metric::kOutputPriceForTargetMarginUsdPerMtok))}};
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
  j[core::kWrittenByKey] = core::build_json();  // which program wrote the summary
  return j;
}

}  // namespace tycoon::analysis
