// The sweep's charts and its HTML report (declared in sweep_report.h).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "sim/analysis/sweep_report.h"

namespace tycoon::analysis {

namespace {

bool is_weak(perf::Provenance p) { return p == perf::Provenance::kExtrapolated || p == perf::Provenance::kDatasheet; }

double finite_or_zero(double v) { return std::isfinite(v) ? v : 0.0; }

std::string fixed(double v, int digits) {
  if (!std::isfinite(v)) return "–";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string plus_minus(const Estimate& e, int digits, double scale = 1) {
  if (e.n == 0) return "–";
  std::string s = fixed(e.mean * scale, digits);
  if (std::isfinite(e.half_width_95)) s += " ± " + fixed(e.half_width_95 * scale, digits);
  return s;
}

std::vector<std::string> chart_notes(const SweepData& d) {
  std::vector<std::string> notes;
  const std::size_t n = d.spec->seeds.size();
  notes.push_back("Simulated: " + std::to_string(d.sweep->points.size()) + " points, " + std::to_string(n) +
                  (n > 1 ? " seeds per point (bars: 95% CI, Student t)" : " seed per point (no CI)") +
                  "; closed-loop users, " + std::to_string(d.spec->requests_per_user) + " requests per user.");
  for (const auto& [chip, cal] : *d.calibrations) {
    notes.push_back(chip + ": " + std::string(perf::to_string(cal.provenance)) + " — " + cal.source);
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

}  // namespace

Chart pareto_chart(const SweepData& d, const std::vector<Group>& groups) {
  Chart c;
  c.title = "Throughput per GPU vs interactivity";
  c.subtitle = d.spec->title + " — one line per configuration over concurrency; highlighted: the Pareto frontier.";
  c.x_label = "P90 interactivity (output tok/s per user)";
  c.y_label = "Output throughput (tok/s per GPU)";
  for (std::size_t s = 0; s < d.sweep->series.size(); ++s) {
    ChartSeries cs;
    cs.name = d.sweep->series[s].label;
    for (const Group* g : series_groups(groups, s)) {
      const auto& x = (*g)[Metric::kP90InteractivityTokPerSPerUser];
      const auto& y = (*g)[Metric::kOutputTokPerSPerGpu];
      cs.points.push_back({x.mean, y.mean, finite_or_zero(x.half_width_95), finite_or_zero(y.half_width_95),
                           is_weak(g->provenance), point_tip(d, *g)});
    }
    c.series.push_back(std::move(cs));
  }
  for (std::size_t g : frontier_groups(groups)) {
    ChartPoint f;
    f.x = groups[g][Metric::kP90InteractivityTokPerSPerUser].mean;
    f.y = groups[g][Metric::kOutputTokPerSPerGpu].mean;
    c.frontier.push_back(f);
  }
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
  c.subtitle = d.spec->title + " — GPU rent per hour / output tokens per GPU-hour (all rent on output).";
  c.x_label = "P90 interactivity (output tok/s per user)";
  c.y_label = "Cost (USD per million output tokens, log scale)";
  c.y_log = true;  // one user costs tens of times the batched operating point
  for (std::size_t s = 0; s < d.sweep->series.size(); ++s) {
    ChartSeries cs;
    cs.name = d.sweep->series[s].label + " ($" +
              fixed(d.sweep->configs[d.sweep->series[s].config].gpu_usd_per_hour, 2) + "/GPU-h)";
    for (const Group* g : series_groups(groups, s)) {
      const auto& x = (*g)[Metric::kP90InteractivityTokPerSPerUser];
      const auto& y = (*g)[Metric::kCostOutputOnlyUsdPerMtok];
      cs.points.push_back({x.mean, y.mean, finite_or_zero(x.half_width_95), finite_or_zero(y.half_width_95),
                           is_weak(g->provenance), point_tip(d, *g) + ", $" + fixed(y.mean, 3) + "/Mtok"});
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

Chart margin_chart(const SweepData& d, const std::vector<Group>& groups) {
  Chart c;
  c.title = "Gross margin vs price";
  c.subtitle = d.spec->title + (d.spec->target_p90_tok_per_s_per_user
                                    ? " — each configuration at its best-throughput concurrency meeting P90 >= " +
                                          fixed(*d.spec->target_p90_tok_per_s_per_user, 0) + " tok/s/user."
                                    : " — each configuration at its best-throughput concurrency.");
  c.x_label = "Output token price (USD per million tokens; input priced at the same ratio as quoted)";
  c.y_label = "Gross margin (revenue − GPU rent) / revenue";
  c.y_percent = true;
  const auto ops = operating_points(d, groups);
  for (const auto& op : ops) {
    if (!op.group) continue;
    const Group& at = groups[*op.group];
    ChartSeries cs;
    cs.name = d.sweep->series[op.series].label + " @" + std::to_string(at.concurrency) + " users";
    const auto& model = *d.sweep->configs[d.sweep->series[op.series].config].deployment.model;
    for (const auto& g : groups) {
      if (g.series != at.series || g.concurrency != at.concurrency) continue;
      const auto tp = resolve_prices(d.spec->prices[g.price], model);
      const auto& m = g[Metric::kGrossMargin];
      cs.points.push_back(
          {tp.output_usd_per_mtok, m.mean, 0, finite_or_zero(m.half_width_95), is_weak(g.provenance),
           cs.name + " at " + d.spec->prices[g.price].name + ": margin " + fixed(100 * m.mean, 1) + "%"});
    }
    std::sort(cs.points.begin(), cs.points.end(), [](const ChartPoint& a, const ChartPoint& b) { return a.x < b.x; });
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
    << ". Every figure is a mean over seeds ± the half width of its 95% confidence interval (Student t); "
       "a difference inside the intervals is run-to-run noise, not a win.</p>\n";

  o << "<h2>Where the numbers come from</h2>\n<table><tr><th class=\"l\">chip</th><th class=\"l\">performance "
       "provenance</th><th class=\"l\">calibration source</th></tr>\n";
  for (const auto& [chip, cal] : *d.calibrations) {
    o << "<tr><td class=\"l\">" << xml_escape(chip) << "</td><td class=\"l\">" << perf::to_string(cal.provenance)
      << "</td><td class=\"l\">" << xml_escape(cal.source) << "</td></tr>\n";
  }
  o << "</table>\n<table><tr><th class=\"l\">configuration</th><th class=\"l\">model</th><th class=\"l\">chip</th>"
       "<th class=\"l\">engine</th><th>precision</th><th>TP</th><th>EP</th><th>spec tokens</th><th>max batched "
       "tokens</th>"
       "<th>max seqs</th><th>USD/GPU-h</th><th class=\"l\">rent source</th></tr>\n";
  for (const auto& c : sw.configs) {
    const auto& dep = c.deployment;
    o << "<tr><td class=\"l\">" << xml_escape(c.label) << "</td><td class=\"l\">" << dep.model->id
      << "</td><td class=\"l\">" << dep.hardware->id << "</td><td class=\"l\">" << dep.engine->id << "</td><td>"
      << to_string(dep.precision) << "</td><td>" << dep.tensor_parallel << "</td><td>" << dep.expert_parallel
      << "</td><td>" << (dep.spec_decode ? dep.spec_decode->num_draft_tokens : 0) << "</td><td>"
      << c.scheduler.max_num_batched_tokens << "</td><td>" << c.scheduler.max_num_seqs << "</td><td>"
      << fixed(c.gpu_usd_per_hour, 2) << "</td><td class=\"l\">" << xml_escape(c.gpu_price_source) << "</td></tr>\n";
  }
  o << "</table>\n";

  o << "<h2>Operating points</h2>\n<p class=\"small\">Per series, the concurrency with the highest throughput per GPU"
    << (spec.target_p90_tok_per_s_per_user
            ? " whose P90 interactivity meets " + fixed(*spec.target_p90_tok_per_s_per_user, 0) + " tok/s/user"
            : std::string())
    << ", at the first price (" << xml_escape(spec.prices[0].name)
    << ").</p>\n<table><tr><th class=\"l\">series</th>"
       "<th>users</th><th>tok/s/GPU</th><th>P90 tok/s/user</th><th>USD/Mtok blended</th><th>USD/Mtok output only</th>"
       "<th>gross margin %</th>";
  if (spec.target_gross_margin) {
    o << "<th>output price for " << fixed(100 * *spec.target_gross_margin, 0) << "% margin (USD/Mtok)</th>";
  }
  o << "<th class=\"l\">provenance</th></tr>\n";
  for (const auto& op : operating_points(d, groups)) {
    o << "<tr><td class=\"l\">" << xml_escape(sw.series[op.series].label) << "</td>";
    if (!op.group) {
      o << "<td colspan=\"" << (spec.target_gross_margin ? 8 : 7)
        << "\" class=\"l\">no concurrency meets the target</td></tr>\n";
      continue;
    }
    const auto& g = groups[*op.group];
    o << "<td>" << g.concurrency << "</td><td>" << plus_minus(g[Metric::kOutputTokPerSPerGpu], 1) << "</td><td>"
      << plus_minus(g[Metric::kP90InteractivityTokPerSPerUser], 1) << "</td><td>"
      << plus_minus(g[Metric::kCostBlendedUsdPerMtok], 3) << "</td><td>"
      << plus_minus(g[Metric::kCostOutputOnlyUsdPerMtok], 3) << "</td><td>"
      << plus_minus(g[Metric::kGrossMargin], 1, 100) << "</td>";
    if (spec.target_gross_margin) {
      const auto tp = resolve_prices(spec.prices[0], *sw.configs[sw.series[op.series].config].deployment.model);
      o << "<td>" << plus_minus(g[Metric::kPriceScaleForTargetMargin], 3, tp.output_usd_per_mtok) << "</td>";
    }
    o << "<td class=\"l" << (is_weak(g.provenance) ? " weak" : "") << "\">" << perf::to_string(g.provenance)
      << "</td></tr>\n";
  }
  o << "</table>\n";

  o << "<h2>Charts</h2>\n";
  for (const auto& chart : {pareto_chart(d, groups), cost_chart(d, groups), margin_chart(d, groups)}) {
    o << "<div>" << render_svg(chart, false) << "</div>\n";
  }

  o << "<h2>All groups</h2>\n<table><tr><th class=\"l\">series</th><th>users</th><th "
       "class=\"l\">price</th><th>seeds</th>"
       "<th>tok/s/GPU</th><th>P90 tok/s/user</th><th>TTFT p90 ms</th><th>TPOT p90 ms</th><th>USD/Mtok in</th>"
       "<th>USD/Mtok out</th><th>USD/Mtok blended</th><th>revenue USD/GPU-h</th><th>gross margin %</th>"
       "<th>failed requests</th><th class=\"l\">provenance</th></tr>\n";
  constexpr std::size_t kMaxRows = 3000;
  for (std::size_t k = 0; k < groups.size() && k < kMaxRows; ++k) {
    const auto& g = groups[k];
    o << "<tr><td class=\"l\">" << xml_escape(sw.series[g.series].label) << "</td><td>" << g.concurrency
      << "</td><td class=\"l\">" << xml_escape(spec.prices[g.price].name) << "</td><td>" << g.points.size()
      << "</td><td>" << plus_minus(g[Metric::kOutputTokPerSPerGpu], 1) << "</td><td>"
      << plus_minus(g[Metric::kP90InteractivityTokPerSPerUser], 1) << "</td><td>"
      << plus_minus(g[Metric::kTtftP90Ms], 1) << "</td><td>" << plus_minus(g[Metric::kTpotP90Ms], 2) << "</td><td>"
      << plus_minus(g[Metric::kCostInputUsdPerMtok], 3) << "</td><td>"
      << plus_minus(g[Metric::kCostOutputUsdPerMtok], 3) << "</td><td>"
      << plus_minus(g[Metric::kCostBlendedUsdPerMtok], 3) << "</td><td>"
      << plus_minus(g[Metric::kRevenueUsdPerGpuHour], 2) << "</td><td>" << plus_minus(g[Metric::kGrossMargin], 1, 100)
      << "</td><td>" << g.requests_failed << "</td><td class=\"l" << (is_weak(g.provenance) ? " weak" : "") << "\">"
      << perf::to_string(g.provenance) << "</td></tr>\n";
  }
  o << "</table>\n";
  if (groups.size() > kMaxRows) o << "<p>" << (groups.size() - kMaxRows) << " more groups: see summary.json.</p>\n";

  o << "<h2>Formulas</h2>\n<ul class=\"small\">\n"
    << "<li>Tokens per GPU-hour: I = 3600 × input tok/s/GPU, O = 3600 × output tok/s/GPU (completed requests, "
       "simulated).</li>\n"
    << "<li>Revenue per GPU-hour V = (I·(1−c)·p_in + I·c·p_cached + O·p_out) / 1e6, c the prefix-cache hit "
       "share.</li>\n"
    << "<li>Gross margin = (V − R) / V, R the GPU rent per GPU-hour from the catalog.</li>\n"
    << "<li>Cost per Mtok blended = R / ((I+O)/1e6); output only = R / (O/1e6) (InferenceX's convention); "
       "input / output = p_in·R/V and p_out·R/V, the break-even prices at the quoted input:output ratio.</li>\n"
    << "<li>Price for a target margin m: every quoted price × R / ((1−m)·V).</li>\n"
    << "<li>95% CI: mean ± t(0.975, n−1)·s/√n over the n seeds of a group.</li>\n</ul>\n";
  o << "</body></html>\n";
  return o.str();
}

}  // namespace tycoon::analysis
