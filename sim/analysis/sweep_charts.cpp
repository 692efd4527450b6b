// The sweep's charts and its HTML report (declared in sweep_report.h).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "sim/analysis/sweep_report.h"
#include "sim/core/version.h"

namespace tycoon::analysis {

namespace {

bool is_weak(perf::Provenance p) { return p >= perf::Provenance::kExtrapolated; }

double finite_or_zero(double v) { return std::isfinite(v) ? v : 0.0; }

std::string fixed(double v, int digits) {
  if (!std::isfinite(v)) return "–";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// "mean ± total half width": the seeds' 95% interval and the model's error in quadrature.
std::string plus_minus(const Estimate& e, int digits, double scale = 1) {
  if (e.n == 0 || !std::isfinite(e.mean)) return "–";
  std::string s = fixed(e.mean * scale, digits);
  const double h = e.total_half_width();
  if (std::isfinite(h)) s += " ± " + fixed(h * scale, digits);
  return s;
}

// A point's marker: filled circle (measured curves), hollow circle (extrapolated or fitted to
// published results), hollow square (datasheet placeholder).
ChartPoint marked(ChartPoint p, perf::Provenance prov) {
  p.hollow = is_weak(prov);
  p.square = prov == perf::Provenance::kDatasheet;
  return p;
}

// The reason a series is extrapolated whatever its chip's curves, as a small line under its
// provenance in a table cell; empty when there is none.
std::string outside_validation_html(const SweepData& d, std::size_t series) {
  const auto why = series_outside_validation(d, series);
  if (why.empty()) return {};
  return "<br><span class=\"small\">" + xml_escape(why) + ": outside the validation set</span>";
}

// "fitted-to-published ±x%, " when a chip of the sweep runs on a profile fitted to published
// results, else nothing (the note of a sweep without one reads as before that class existed).
std::string fitted_error_note(const SweepData& d) {
  for (const auto& [chip, cal] : *d.calibrations) {
    if (cal.provenance == perf::Provenance::kFittedToPublished) {
      return "fitted-to-published ±" + fixed(100 * d.errors->of(perf::Provenance::kFittedToPublished), 1) + "%, ";
    }
  }
  return {};
}

std::vector<std::string> chart_notes(const SweepData& d) {
  std::vector<std::string> notes;
  const std::size_t n = d.spec->seeds.size();
  std::string bars = n > 1 ? "bars: 95% interval, the seeds' Student-t CI" : "bars: no seed interval (one seed)";
  if (d.errors) {
    bars += " combined in quadrature with the model's error for the point's provenance (interpolated ±" +
            fixed(100 * d.errors->of(perf::Provenance::kInterpolated), 1) + "%, extrapolated ±" +
            fixed(100 * d.errors->of(perf::Provenance::kExtrapolated), 1) + "%, " + fitted_error_note(d) +
            "datasheet ±" + fixed(100 * d.errors->of(perf::Provenance::kDatasheet), 1) +
            "%: hardware_db/model_error.json)";
  }
  notes.push_back("Simulated: " + std::to_string(d.sweep->points.size()) + " points, " + std::to_string(n) +
                  (n > 1 ? " seeds per point" : " seed per point") + "; closed-loop users, " +
                  std::to_string(d.spec->requests_per_user) + " requests per user; " + bars + ".");
  for (const auto& [chip, cal] : *d.calibrations) {
    notes.push_back(chip + ": " + std::string(perf::to_string(cal.provenance)) + " — " + cal.source);
  }
  for (std::size_t s = 0; s < d.sweep->series.size(); ++s) {
    const auto why = series_outside_validation(d, s);
    if (why.empty()) continue;
    std::string note = d.sweep->series[s].label + ": " + why +
                       " is outside the performance model's validation set, so its points are extrapolated";
    if (d.errors) note += " (±" + fixed(100 * d.errors->of(perf::Provenance::kExtrapolated), 1) + "%)";
    notes.push_back(note + ".");
  }
  return notes;
}

// Groups of one series at the first price, by increasing concurrency.
std::vector<const Group*> series_groups(const std::vector<Group>& groups, std::size_t series) {
  std::vector<const Group*> out;
  for (const auto& g : groups) {
    if (g.series == series && g.price == 0) out.push_back(&g);
  }
  return out;
}

std::string point_tip(const SweepData& d, const Group& g) {
  return d.sweep->series[g.series].label + ", concurrency " + std::to_string(g.concurrency) + ": " +
         fixed(g[Metric::kOutputTokPerSPerGpu].mean, 1) + " tok/s/GPU, P90 " +
         fixed(g[Metric::kP90InteractivityTokPerSPerUser].mean, 1) + " tok/s/user, " +
         std::string(perf::to_string(g.provenance));
}

std::string lower(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

// Recipe fields of a configuration, as legend text.
std::vector<std::pair<std::string, std::string>> recipe_fields(const ResolvedConfig& c) {
  const auto& d = c.deployment();
  std::string spec = "no spec decode";
  if (d.spec_decode && d.spec_decode->num_draft_tokens > 0) {
    spec = d.spec_decode->method + " k=" + std::to_string(d.spec_decode->num_draft_tokens) + " @" +
           fixed(d.spec_decode->acceptance_length, 2);
  }
  return {{"hardware", d.hardware->id},
          {"model", d.model->id},
          {"engine", d.engine->id},
          {"precision", std::string(to_string(d.precision))},
          {"kv", "KV " + std::string(to_string(d.kv_cache_dtype))},
          {"tp", "TP" + std::to_string(d.tensor_parallel)},
          {"ep", "EP" + std::to_string(d.expert_parallel)},
          {"spec", spec},
          {"budget", "budget " + std::to_string(c.scheduler().max_num_batched_tokens)},
          {"seqs", c.scheduler().running_limit_from_engine ? std::string("max seqs: the engine's")
                                                           : "max seqs " + std::to_string(c.scheduler().max_num_seqs)},
          {"prefix", c.scheduler().prefix_caching ? "prefix cache" : "no prefix cache"},
          {"graphs", d.cuda_graphs ? "CUDA graphs" : "eager"}};
}

}  // namespace

std::vector<std::string> recipe_differences(const ExpandedSweep& sweep, std::size_t config) {
  std::vector<std::string> out;
  if (sweep.configs.size() < 2) return out;
  const auto mine = recipe_fields(sweep.configs[config]);
  const std::string label = lower(sweep.configs[config].label);
  for (std::size_t f = 0; f < mine.size(); ++f) {
    bool differs = false;
    for (const auto& other : sweep.configs) differs = differs || recipe_fields(other)[f].second != mine[f].second;
    if (differs && label.find(lower(mine[f].second)) == std::string::npos) out.push_back(mine[f].second);
  }
  return out;
}

std::string series_legend(const SweepData& d, std::size_t series) {
  const auto& se = d.sweep->series[series];
  std::string name = se.label;
  const auto diffs = recipe_differences(*d.sweep, se.config);
  if (!diffs.empty()) {
    name += " (";
    for (std::size_t i = 0; i < diffs.size(); ++i) name += (i ? ", " : "") + diffs[i];
    name += ")";
  }
  return name;
}

Chart pareto_chart(const SweepData& d, const std::vector<Group>& groups) {
  Chart c;
  const bool many_workloads = d.spec->workloads.size() > 1;
  c.title = "Throughput per GPU vs interactivity";
  c.subtitle = d.spec->title + " — one line per configuration over concurrency (labels: users); highlighted: the " +
               (many_workloads ? "Pareto frontier of each workload (workloads are not compared with each other)."
                               : "Pareto frontier.");
  c.x_label = "P90 interactivity (output tok/s per user)";
  c.y_label = "Output throughput (tok/s per GPU)";
  for (std::size_t s = 0; s < d.sweep->series.size(); ++s) {
    ChartSeries cs;
    cs.name = series_legend(d, s);
    // One frontier per workload, as frontier_groups (summary.json): workloads are different work.
    cs.frontier_group = d.sweep->series[s].workload;
    for (const Group* g : series_groups(groups, s)) {
      const auto& x = (*g)[Metric::kP90InteractivityTokPerSPerUser];
      const auto& y = (*g)[Metric::kOutputTokPerSPerGpu];
      ChartPoint p{x.mean, y.mean,          finite_or_zero(x.total_half_width()), finite_or_zero(y.total_half_width()),
                   false,  point_tip(d, *g)};
      p.label = std::to_string(g->concurrency);
      cs.points.push_back(marked(p, g->provenance));
    }
    c.series.push_back(std::move(cs));
  }
  if (many_workloads) c.frontier_label = "Pareto frontier, per workload";
  if (d.spec->target_p90_tok_per_s_per_user) {
    c.references.push_back({true, *d.spec->target_p90_tok_per_s_per_user,
                            "target P90 " + fixed(*d.spec->target_p90_tok_per_s_per_user, 0) + " tok/s/user"});
  }
  c.notes = chart_notes(d);
  return c;
}

Chart cost_chart(const SweepData& d, const std::vector<Group>& groups) {
  Chart c;
  c.title = "Cost per million output tokens vs interactivity";
  c.subtitle = d.spec->title +
               " — USD/Mtok output-only: GPU rent per hour / output tokens per GPU-hour (all rent "
               "on output); labels: users.";
  c.x_label = "P90 interactivity (output tok/s per user)";
  c.y_label = "USD/Mtok output-only (log scale)";
  c.y_log = true;  // one user costs tens of times the batched operating point
  for (std::size_t s = 0; s < d.sweep->series.size(); ++s) {
    ChartSeries cs;
    cs.name = series_legend(d, s) + " ($" + fixed(d.sweep->configs[d.sweep->series[s].config].gpu_usd_per_hour, 2) +
              "/GPU-h)";
    for (const Group* g : series_groups(groups, s)) {
      const auto& x = (*g)[Metric::kP90InteractivityTokPerSPerUser];
      const auto& y = (*g)[Metric::kCostOutputOnlyUsdPerMtok];
      ChartPoint p{x.mean,
                   y.mean,
                   finite_or_zero(x.total_half_width()),
                   finite_or_zero(y.total_half_width()),
                   false,
                   point_tip(d, *g) + ", $" + fixed(y.mean, 3) + "/Mtok output-only"};
      p.label = std::to_string(g->concurrency);
      cs.points.push_back(marked(p, g->provenance));
    }
    c.series.push_back(std::move(cs));
  }
  if (d.spec->target_p90_tok_per_s_per_user) {
    c.references.push_back({true, *d.spec->target_p90_tok_per_s_per_user,
                            "target P90 " + fixed(*d.spec->target_p90_tok_per_s_per_user, 0) + " tok/s/user"});
  }
  c.notes = chart_notes(d);
  return c;
}

Chart ttft_chart(const SweepData& d, const std::vector<Group>& groups) {
  Chart c;
  c.title = "Time to first token vs throughput per GPU";
  c.subtitle = d.spec->title + " — the latency users wait before the first token as load rises; labels: users.";
  c.x_label = "Output throughput (tok/s per GPU)";
  c.y_label = "P90 TTFT (ms, log scale)";
  c.y_log = true;  // one user waits a few ms, a saturated server seconds
  for (std::size_t s = 0; s < d.sweep->series.size(); ++s) {
    ChartSeries cs;
    cs.name = series_legend(d, s);
    for (const Group* g : series_groups(groups, s)) {
      const auto& x = (*g)[Metric::kOutputTokPerSPerGpu];
      const auto& y = (*g)[Metric::kTtftP90Ms];
      ChartPoint p{x.mean,
                   y.mean,
                   finite_or_zero(x.total_half_width()),
                   finite_or_zero(y.total_half_width()),
                   false,
                   point_tip(d, *g) + ", P90 TTFT " + fixed(y.mean, 1) + " ms"};
      p.label = std::to_string(g->concurrency);
      cs.points.push_back(marked(p, g->provenance));
    }
    c.series.push_back(std::move(cs));
  }
  for (const auto& [v, what] : {std::pair{d.spec->target_max_p90_ttft_ms, "P90"}}) {
    if (v) c.references.push_back({false, *v, std::string("target ") + what + " TTFT " + fixed(*v, 0) + " ms"});
  }
  c.notes = chart_notes(d);
  return c;
}

Chart margin_chart(const SweepData& d, const std::vector<Group>& groups) {
  Chart c;
  c.title = "Gross margin vs price";
  c.subtitle = d.spec->title +
               (d.spec->target_p90_tok_per_s_per_user
                    ? " — each configuration at its operating point (best throughput meeting P90 >= " +
                          fixed(*d.spec->target_p90_tok_per_s_per_user, 0) + " tok/s/user and every other target)"
                    : " — each configuration at its operating point (best throughput meeting every "
                      "target)") +
               ". Curves: margin 1 − R/(k·V) as every price is scaled by k; markers: the spec's prices.";
  c.x_label = "Output token price (USD/Mtok; input priced at the same ratio as quoted)";
  c.y_label = "Gross margin (revenue − GPU rent) / revenue";
  c.y_percent = true;
  c.y_min = -1;  // below −100% the rent is over twice the revenue: the curve leaves the chart there
  c.y_max = 1;
  const auto ops = operating_points(d, groups);
  // The x range: from the lowest price at which a curve enters the chart (margin −100%, half the
  // break-even price) to beyond the spec's highest price and three times the highest break-even.
  double x_hi = 0;
  for (const auto& op : ops) {
    if (!op.found()) continue;
    const auto& model = *d.sweep->configs[d.sweep->series[op.series].config].deployment().model;
    for (std::size_t p = 0; p < d.spec->prices.size(); ++p) {
      x_hi = std::max(x_hi, resolve_prices(d.spec->prices[p], model).output_usd_per_mtok);
    }
    const double p0 = resolve_prices(d.spec->prices[0], model).output_usd_per_mtok;
    const double break_even = (1 - op.at(Metric::kGrossMargin).mean) * p0;
    if (std::isfinite(break_even)) x_hi = std::max(x_hi, 3 * break_even);
  }
  for (const auto& op : ops) {
    if (!op.found()) continue;
    ChartSeries cs;
    cs.name = series_legend(d, op.series) + " @" + fixed(op.concurrency, op.interpolated ? 1 : 0) + " users" +
              (op.interpolated ? " (interpolated at target)" : "");
    const auto& model = *d.sweep->configs[d.sweep->series[op.series].config].deployment().model;
    const double p0 = resolve_prices(d.spec->prices[0], model).output_usd_per_mtok;
    // Revenue scales with every price: at output price p the margin is 1 − (R/V0)·p0/p, R/V0 the
    // rent's share of revenue at the first price.
    const double rent_share = 1 - op.at(Metric::kGrossMargin).mean;
    if (!(p0 > 0) || !std::isfinite(rent_share) || !(rent_share > 0)) continue;
    const double break_even = rent_share * p0;
    const double x_lo = break_even / 2;
    constexpr int kSamples = 80;
    for (int i = 0; i <= kSamples; ++i) {
      const double x = x_lo * std::pow(x_hi / x_lo, static_cast<double>(i) / kSamples);
      ChartPoint p;
      p.x = x;
      p.y = 1 - break_even / x;
      p.marker = false;
      cs.points.push_back(p);
    }
    for (std::size_t pr = 0; pr < d.spec->prices.size(); ++pr) {
      const auto tp = resolve_prices(d.spec->prices[pr], model);
      const auto& m = op.at(Metric::kGrossMargin, pr);
      ChartPoint p{tp.output_usd_per_mtok,
                   m.mean,
                   0,
                   finite_or_zero(m.total_half_width()),
                   false,
                   cs.name + " at " + d.spec->prices[pr].name + ": margin " + fixed(100 * m.mean, 1) + "%"};
      cs.points.push_back(marked(p, op.provenance));
    }
    std::stable_sort(cs.points.begin(), cs.points.end(),
                     [](const ChartPoint& a, const ChartPoint& b) { return a.x < b.x; });
    c.series.push_back(std::move(cs));
  }
  if (d.spec->target_gross_margin) {
    c.references.push_back(
        {false, *d.spec->target_gross_margin, "target margin " + fixed(100 * *d.spec->target_gross_margin, 0) + "%"});
  }
  c.notes = chart_notes(d);
  return c;
}

std::string html_report(const SweepData& d, const std::vector<Group>& groups) {
  const auto& spec = *d.spec;
  const auto& sw = *d.sweep;
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" << xml_escape(spec.title)
    << "</title>\n<style>body{font-family:DejaVu "
       "Sans,Helvetica,Arial,sans-serif;margin:24px;color:#222;max-width:1400px}"
       "table{border-collapse:collapse;font-size:12px;margin:8px 0 24px}td,th{border:1px solid #ccc;padding:3px 7px;"
       "text-align:right}th{background:#f0f0f0}td.l,th.l{text-align:left}.weak{color:#8a5a00}"
       "code{background:#f4f4f4;padding:1px 4px}.small{font-size:12px;color:#555}</style></head><body>\n";
  o << "<h1>" << xml_escape(spec.title) << "</h1>\n";
  if (!spec.description.empty()) o << "<p>" << xml_escape(spec.description) << "</p>\n";
  o << "<p class=\"small\">Spec <code>" << xml_escape(spec.file) << "</code> (hash " << sw.spec_hash << "), "
    << sw.points.size() << " simulated points (" << sw.series.size() << " series × " << spec.concurrency.size()
    << " concurrencies × " << spec.seeds.size() << " seeds), each priced at " << spec.prices.size()
    << " price(s). Contract: " << kContractNames[static_cast<std::size_t>(spec.contract)]
    << ". Every figure is a mean over seeds ± its 95% interval: the seeds' Student-t interval combined with the "
       "performance model's error for the point's provenance (below); a difference inside the intervals is not a "
       "win.</p>\n";

  o << "<h2>Where the numbers come from</h2>\n<table><tr><th class=\"l\">chip</th><th class=\"l\">performance "
       "provenance</th><th class=\"l\">calibration source</th></tr>\n";
  for (const auto& [chip, cal] : *d.calibrations) {
    o << "<tr><td class=\"l\">" << xml_escape(chip) << "</td><td class=\"l\">" << perf::to_string(cal.provenance)
      << "</td><td class=\"l\">" << xml_escape(cal.source) << "</td></tr>\n";
  }
  o << "</table>\n<table><tr><th class=\"l\">configuration</th><th class=\"l\">model</th><th class=\"l\">chip</th>"
       "<th class=\"l\">engine</th><th>precision</th><th>TP</th><th>EP</th><th>spec tokens</th><th>max batched "
       "tokens</th>"
       "<th>max seqs</th><th>USD/GPU-h</th><th class=\"l\">rent source</th><th>all-in W/GPU</th></tr>\n";
  for (const auto& c : sw.configs) {
    const auto& dep = c.deployment();
    o << "<tr><td class=\"l\">" << xml_escape(c.label) << "</td><td class=\"l\">" << dep.model->id
      << "</td><td class=\"l\">" << dep.hardware->id << "</td><td class=\"l\">" << dep.engine->id << "</td><td>"
      << to_string(dep.precision) << "</td><td>" << dep.tensor_parallel << "</td><td>" << dep.expert_parallel
      << "</td><td>" << (dep.spec_decode ? dep.spec_decode->num_draft_tokens : 0) << "</td><td>"
      << c.scheduler().max_num_batched_tokens << "</td><td>"
      << (c.scheduler().running_limit_from_engine ? std::string("engine's")
                                                  : std::to_string(c.scheduler().max_num_seqs))
      << "</td><td>" << fixed(c.gpu_usd_per_hour, 2) << "</td><td class=\"l\">" << xml_escape(c.gpu_price_source)
      << "</td><td>" << (std::isfinite(c.all_in_power_watts) ? fixed(c.all_in_power_watts, 0) : std::string("–"))
      << "</td></tr>\n";
  }
  o << "</table>\n";

  o << "<h2>Operating points</h2>\n<p class=\"small\">Per series, the highest throughput per GPU meeting every "
       "target (";
  {
    std::vector<std::string> t;
    if (spec.target_p90_tok_per_s_per_user)
      t.push_back("P90 interactivity ≥ " + fixed(*spec.target_p90_tok_per_s_per_user, 1) + " tok/s/user");
    if (spec.target_max_p90_ttft_ms) t.push_back("P90 TTFT ≤ " + fixed(*spec.target_max_p90_ttft_ms, 0) + " ms");
    if (spec.target_max_p99_ttft_ms) t.push_back("P99 TTFT ≤ " + fixed(*spec.target_max_p99_ttft_ms, 0) + " ms");
    if (spec.target_max_p90_tpot_ms) t.push_back("P90 TPOT ≤ " + fixed(*spec.target_max_p90_tpot_ms, 1) + " ms");
    if (spec.target_max_failed_share)
      t.push_back("failed requests ≤ " + fixed(100 * *spec.target_max_failed_share, 1) + "%");
    if (t.empty()) t.push_back("none set");
    for (std::size_t i = 0; i < t.size(); ++i) o << (i ? ", " : "") << xml_escape(t[i]);
  }
  o << "). With an interactivity, TTFT or TPOT target every figure is <b>interpolated at the target</b> between "
       "the measured concurrencies around it (monotone cubic, Fritsch-Carlson, over log2 users)"
    << (spec.conservative ? ", each target met at the far end of the figure's interval" : "")
    << "; a pick within its interval of another target is <b>marginal</b>. A concurrency that misses any "
       "target is never picked; the last column says which missed and why. Performance at the first price ("
    << xml_escape(spec.prices[0].name)
    << ").</p>\n<table><tr><th class=\"l\">series</th>"
       "<th>users</th><th>tok/s/GPU</th><th>P90 tok/s/user</th><th>P90 TTFT ms</th><th>failed requests %</th>"
       "<th>USD/Mtok blended</th><th>USD/Mtok output-only</th><th>output tok/s per MW</th>"
       "<th>kWh per Mtok output</th>";
  for (const auto& p : spec.prices) o << "<th>gross margin % at " << xml_escape(p.name) << "</th>";
  if (spec.target_gross_margin) {
    o << "<th>output price for " << fixed(100 * *spec.target_gross_margin, 0)
      << "% margin, every price scaled (USD/Mtok)</th><th>output price for "
      << fixed(100 * *spec.target_gross_margin, 0) << "% margin, input held at " << xml_escape(spec.prices[0].name)
      << " (USD/Mtok)</th>";
  }
  o << "<th class=\"l\">provenance</th><th class=\"l\">concurrencies missing a target</th></tr>\n";
  const int cols = 9 + static_cast<int>(spec.prices.size()) + (spec.target_gross_margin ? 2 : 0) + 1;
  for (const auto& op : operating_points(d, groups)) {
    std::string rejected;
    for (const auto& r : op.rejected) rejected += (rejected.empty() ? "" : "<br>") + xml_escape(r);
    o << "<tr><td class=\"l\">" << xml_escape(series_legend(d, op.series)) << "</td>";
    if (!op.found()) {
      o << "<td colspan=\"" << cols << "\" class=\"l weak\">no concurrency meets every target</td><td class=\"l\">"
        << rejected << "</td></tr>\n";
      continue;
    }
    o << "<td>" << fixed(op.concurrency, op.interpolated ? 1 : 0);
    if (op.interpolated) {
      o << "<br><span class=\"small\">interpolated at target (" << groups[*op.group].concurrency << "–"
        << groups[*op.upper_group].concurrency << ")</span>";
    }
    for (const auto& m : op.marginal) o << "<br><span class=\"small weak\">marginal: " << xml_escape(m) << "</span>";
    o << "</td><td>" << plus_minus(op.at(Metric::kOutputTokPerSPerGpu), 1) << "</td><td>"
      << plus_minus(op.at(Metric::kP90InteractivityTokPerSPerUser), 1) << "</td><td>"
      << plus_minus(op.at(Metric::kTtftP90Ms), 1) << "</td><td>" << fixed(100 * op.failed_share, 1) << "</td><td>"
      << plus_minus(op.at(Metric::kCostBlendedUsdPerMtok), 3) << "</td><td>"
      << plus_minus(op.at(Metric::kCostOutputOnlyUsdPerMtok), 3) << "</td><td>"
      << plus_minus(op.at(Metric::kOutputTokPerSPerMw), 0) << "</td><td>"
      << plus_minus(op.at(Metric::kEnergyKwhPerOutputMtok), 3) << "</td>";
    for (std::size_t p = 0; p < spec.prices.size(); ++p) {
      o << "<td>" << plus_minus(op.at(Metric::kGrossMargin, p), 1, 100) << "</td>";
    }
    if (spec.target_gross_margin) {
      const auto tp = resolve_prices(spec.prices[0], *sw.configs[sw.series[op.series].config].deployment().model);
      o << "<td>" << plus_minus(op.at(Metric::kPriceScaleForTargetMargin), 3, tp.output_usd_per_mtok) << "</td><td>"
        << plus_minus(op.at(Metric::kOutputPriceForTargetMarginUsdPerMtok), 3) << "</td>";
    }
    o << "<td class=\"l" << (is_weak(op.provenance) ? " weak" : "") << "\">" << perf::to_string(op.provenance)
      << outside_validation_html(d, op.series) << "</td><td class=\"l\">" << rejected << "</td></tr>\n";
  }
  o << "</table>\n";
  if (d.errors) {
    o << "<p class=\"small\">Intervals: the seeds' 95% interval (Student t) and the performance model's error for "
         "the point's provenance, combined in quadrature (<code>"
      << xml_escape(d.errors->file) << "</code>):</p>\n<ul class=\"small\">\n";
    for (std::size_t p = 1; p < perf::kProvenanceNames.size(); ++p) {
      o << "<li><b>" << perf::kProvenanceNames[p] << "</b> ±" << fixed(100 * d.errors->relative[p], 1)
        << "%: " << xml_escape(d.errors->source[p]) << "</li>\n";
    }
    o << "</ul>\n";
  }

  o << "<h2>Charts</h2>\n";
  for (const auto& chart :
       {pareto_chart(d, groups), cost_chart(d, groups), ttft_chart(d, groups), margin_chart(d, groups)}) {
    o << "<div>" << render_svg(chart, false) << "</div>\n";
  }

  o << "<h2>All groups</h2>\n<table><tr><th class=\"l\">series</th><th>users</th><th "
       "class=\"l\">price</th><th>seeds</th>"
       "<th>tok/s/GPU</th><th>P90 tok/s/user</th><th>TTFT p90 ms</th><th>TPOT p90 ms</th>"
       "<th>break-even USD/Mtok input</th><th>break-even USD/Mtok output</th><th>USD/Mtok output-only</th>"
       "<th>USD/Mtok blended</th><th>revenue USD/GPU-h</th><th>gross margin %</th>"
       "<th>failed requests</th><th class=\"l\">provenance</th><th class=\"l\">misses</th></tr>\n";
  constexpr std::size_t kMaxRows = 3000;
  for (std::size_t k = 0; k < groups.size() && k < kMaxRows; ++k) {
    const auto& g = groups[k];
    std::string misses;
    for (const auto& m : target_misses(spec, g.stats, g.failed_share())) {
      misses += (misses.empty() ? "" : "; ") + xml_escape(m);
    }
    o << "<tr><td class=\"l\">" << xml_escape(sw.series[g.series].label) << "</td><td>" << g.concurrency
      << "</td><td class=\"l\">" << xml_escape(spec.prices[g.price].name) << "</td><td>" << g.points.size()
      << "</td><td>" << plus_minus(g[Metric::kOutputTokPerSPerGpu], 1) << "</td><td>"
      << plus_minus(g[Metric::kP90InteractivityTokPerSPerUser], 1) << "</td><td>"
      << plus_minus(g[Metric::kTtftP90Ms], 1) << "</td><td>" << plus_minus(g[Metric::kTpotP90Ms], 2) << "</td><td>"
      << plus_minus(g[Metric::kCostInputUsdPerMtok], 3) << "</td><td>"
      << plus_minus(g[Metric::kCostOutputUsdPerMtok], 3) << "</td><td>"
      << plus_minus(g[Metric::kCostOutputOnlyUsdPerMtok], 3) << "</td><td>"
      << plus_minus(g[Metric::kCostBlendedUsdPerMtok], 3) << "</td><td>"
      << plus_minus(g[Metric::kRevenueUsdPerGpuHour], 2) << "</td><td>" << plus_minus(g[Metric::kGrossMargin], 1, 100)
      << "</td><td>" << g.requests_failed << " of " << g.requests_total << "</td><td class=\"l"
      << (is_weak(g.provenance) ? " weak" : "") << "\">" << perf::to_string(g.provenance)
      << outside_validation_html(d, g.series) << "</td><td class=\"l\">" << misses << "</td></tr>\n";
  }
  o << "</table>\n";
  if (groups.size() > kMaxRows) o << "<p>" << (groups.size() - kMaxRows) << " more groups: see summary.json.</p>\n";

  o << "<h2>Formulas</h2>\n<ul class=\"small\">\n"
    << "<li>Tokens per GPU-hour: I = 3600 × input tok/s/GPU, O = 3600 × output tok/s/GPU (completed requests, "
       "simulated).</li>\n"
    << "<li>Revenue per GPU-hour V = (I·(1−c)·p_in + I·c·p_cached + O·p_out) / 1e6, c the prefix-cache hit "
       "share.</li>\n"
    << "<li>Gross margin = (V − R) / V, R the GPU rent per GPU-hour from the catalog.</li>\n"
    << "<li>Cost per Mtok blended = R / ((I+O)/1e6); output-only = R / (O/1e6) (InferenceX's convention); "
       "input / output = p_in·R/V and p_out·R/V, the break-even prices at the quoted input:output ratio.</li>\n"
    << "<li>Price for a target margin m: every quoted price × R / ((1−m)·V).</li>\n"
    << "<li>Power: P = provisioned watts per GPU all in (chip, host, network, facility; the hardware data's "
       "all_in_power_watts, InferenceX's figures). Output tok/s per MW = output tok/s/GPU × 1e6 / P; energy per "
       "Mtok output = P / (3.6 × output tok/s/GPU) kWh, all charged to output. Every rent in the catalog already "
       "includes electricity; these are for a reader's own power price. A chip without a published all-in figure "
       "shows –.</li>\n"
    << "<li>95% CI: mean ± t(0.975, n−1)·s/√n over the n seeds of a group, combined in quadrature with the "
       "model error e of the provenance class: e·|mean| (e·|1 − margin| for gross margin).</li>\n"
    << "<li>Operating point with an interactivity, TTFT or TPOT target: every figure interpolated at the target "
       "between "
       "measured concurrencies (monotone cubic, Fritsch-Carlson, over log2 users).</li>\n</ul>\n";
  o << "<p>Written by Inference Tycoon " << xml_escape(core::version_line()) << ".</p>\n</body></html>\n";
  return o.str();
}

}  // namespace tycoon::analysis
