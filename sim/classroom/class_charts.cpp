#include "sim/classroom/class_charts.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "sim/analysis/svg_chart.h"
#include "sim/classroom/class_report.h"

namespace tycoon::classroom {

// Helper names are the file's own: the unity build joins it with the report's.
namespace {

// Strong hues, each at least 3:1 against white where the hue allows, none black or grey: on a
// projector a student's line never reads as a benchmark's.
constexpr std::array<std::uint32_t, 10> kStudentRgba = {0x0072B2ffu, 0xD55E00ffu, 0x009E73ffu, 0xAA3377ffu,
                                                        0xC98500ffu, 0x6A2C9Affu, 0x9C5700ffu, 0x0092B8ffu,
                                                        0x5C9A16ffu, 0xE7298Affu};
// The benchmarks: near-black, dashed (doing nothing) and long-dashed (the reference).
constexpr std::uint32_t kBenchmarkRgba = 0x222222ffu;
constexpr std::array<const char*, 2> kBenchmarkDash = {"3 4", "12 6"};
constexpr std::uint32_t kMarketRgba = 0xAA0000ffu;
constexpr const char* kMarketDash = "2 3";
// A line identical to one drawn before it: dashed on top, so that both colours show.
constexpr const char* kSameLineDash = "8 8";
constexpr double kStudentWidth = 2.6, kBenchmarkWidth = 2.4;

bool same_line_values(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::abs(a[i] - b[i]) > 1e-9 * std::max({1.0, std::abs(a[i]), std::abs(b[i])})) return false;
  }
  return true;
}

// A line chart over the game's hours, ending at its last hour, a tick a day (every 6 hours in a
// game of two days or less).
analysis::Chart game_hour_chart(const ClassChartData& d, std::string title, std::string y_label) {
  analysis::Chart c;
  c.title = std::move(title);
  c.x_label = "game hour";
  c.y_label = std::move(y_label);
  c.provenance_key = false;  // game results, not measured or extrapolated curves
  c.width = 1000;
  c.height = 440;
  c.x_min = 0;
  c.x_max = static_cast<double>(std::max<std::int64_t>(d.end_hour, 1));
  c.x_tick_step = d.end_hour > 48 ? 24.0 : 6.0;
  return c;
}

// One line of a chart: a step line (each hour's value holds from its hour to the next), cut at
// the game's end.
struct ChartLine {
  std::string name;
  const std::vector<double>* values;
  std::uint32_t rgba;
  std::string dash;
  double width;
};

// The lines in drawing order (students, then benchmarks and the market on top): a line identical
// to an earlier one is dashed over it when solid, and the first of them carries every name.
void add_chart_lines(analysis::Chart& c, const std::vector<ChartLine>& lines, std::int64_t end_hour) {
  std::vector<std::size_t> first_of(lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    first_of[i] = i;
    for (std::size_t j = 0; j < i; ++j) {
      if (first_of[j] == j && same_line_values(*lines[i].values, *lines[j].values)) {
        first_of[i] = j;
        break;
      }
    }
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto& l = lines[i];
    analysis::ChartSeries s;
    s.name = l.name;
    s.color_rgba = l.rgba;
    s.dash = l.dash.empty() && first_of[i] != i ? kSameLineDash : l.dash;
    s.stroke_width = l.width;
    s.in_legend = false;  // named at its end instead
    if (first_of[i] == i) {
      s.end_label = l.name;
      for (std::size_t k = i + 1; k < lines.size(); ++k) {
        if (first_of[k] == i) s.end_label += " = " + lines[k].name;
      }
    }
    const std::size_t n =
        std::min<std::size_t>(l.values->size(), static_cast<std::size_t>(std::max<std::int64_t>(end_hour, 0)));
    for (std::size_t h = 0; h < n; ++h) {
      for (double x : {static_cast<double>(h), static_cast<double>(h + 1)}) {
        analysis::ChartPoint p(x, (*l.values)[h]);
        p.marker = false;
        s.points.push_back(std::move(p));
      }
    }
    c.series.push_back(std::move(s));
  }
}

bool lever_is_locked(const ClassChartData& d, std::string_view lever) {
  return std::find(d.locked_levers.begin(), d.locked_levers.end(), lever) != d.locked_levers.end();
}

std::string dollars_label(double usd) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%s$%.0f", usd < 0 ? "\u2212" : "", std::abs(usd));
  return buf;
}

analysis::Chart class_scatter(const ClassChartData& d) {
  analysis::Chart c;
  c.title = "The class on the same customers: profit and service";
  c.x_label = "profit (USD)";
  c.y_label = "SLO attainment";
  c.y_percent = true;
  c.y_min = 0;
  c.y_max = 1;
  c.provenance_key = false;
  c.width = 1000;
  c.height = 460;
  c.point_label_px = 13;
  // Students on the same point are one marker with every name.
  std::vector<bool> done(d.students.size(), false);
  for (std::size_t i = 0; i < d.students.size(); ++i) {
    if (done[i]) continue;
    const auto& s = d.students[i];
    analysis::ChartSeries cs;
    cs.name = chart_name(s);
    cs.connect = false;
    cs.color_rgba = student_color(i);
    cs.in_legend = false;
    std::string label = chart_name(s);
    for (std::size_t k = i + 1; k < d.students.size(); ++k) {
      const auto& o = d.students[k];
      if (same_line_values({s.profit_usd, s.slo_attainment}, {o.profit_usd, o.slo_attainment})) {
        done[k] = true;
        label += " = " + chart_name(o);
      }
    }
    analysis::ChartPoint p(s.profit_usd, s.slo_attainment);
    p.label = label;
    char tip[160];
    std::snprintf(tip, sizeof tip, ": profit %s, SLO %.1f%%, score %.1f", dollars_label(s.profit_usd).c_str(),
                  100 * s.slo_attainment, s.score_points);
    p.tooltip = label + tip;
    cs.points.push_back(std::move(p));
    c.series.push_back(std::move(cs));
  }
  for (const auto& b : d.benchmarks)
    c.references.push_back({true, b.profit_usd, b.name + " (" + dollars_label(b.profit_usd) + ")"});
  return c;
}

}  // namespace

std::string chart_name(const ClassChartRun& run) {
  return run.finished ? run.name : run.name + " (stopped at h" + std::to_string(run.stopped_at_hour) + ")";
}

std::uint32_t student_color(std::size_t i) { return kStudentRgba[i % kStudentRgba.size()]; }

bool lines_vary(const std::vector<std::vector<double>>& lines) {
  for (const auto& l : lines) {
    for (double v : l) {
      const double first = lines.front().empty() ? l.front() : lines.front().front();
      if (std::abs(v - first) > 1e-9 * std::max(1.0, std::abs(first))) return true;
    }
  }
  return false;
}

ClassChartData chart_frame(std::int64_t end_hour, std::vector<std::string> locked_levers, std::string priced_model,
                           std::vector<double> market_output_price_usd_per_mtok,
                           const std::vector<BenchmarkRun>& benchmarks) {
  ClassChartData d;
  d.end_hour = end_hour;
  d.locked_levers = std::move(locked_levers);
  d.priced_model = std::move(priced_model);
  d.market_output_price_usd_per_mtok = std::move(market_output_price_usd_per_mtok);
  for (const auto& b : benchmarks) {
    d.benchmarks.push_back({b.name, b.summary.profit_usd, b.summary.slo_attainment, b.summary.score.points, true,
                            b.output_price_usd_per_mtok, b.gpus_rented, b.cumulative_profit_usd});
  }
  return d;
}

ClassChartRun chart_run(const std::string& student, const CheckedSubmission& c) {
  ClassChartRun run{student,
                    c.summary.profit_usd,
                    c.summary.slo_attainment,
                    c.summary.score.points,
                    !c.stopped_at_hour,
                    c.output_price_usd_per_mtok,
                    c.gpus_rented,
                    c.cumulative_profit_usd};
  if (c.stopped_at_hour) {
    const auto n = static_cast<std::size_t>(std::max<std::int64_t>(*c.stopped_at_hour, 0));
    for (auto* v : {&run.output_price_usd_per_mtok, &run.gpus_rented, &run.cumulative_profit_usd}) {
      if (v->size() > n) v->resize(n);
    }
    run.stopped_at_hour = *c.stopped_at_hour;
  }
  return run;
}

ClassChartData chart_data(const ClassReport& r) {
  auto d = chart_frame(static_cast<std::int64_t>(r.spec.days) * 24, r.locked_levers, r.priced_model,
                       r.market_output_price_usd_per_mtok, r.benchmarks);
  for (const auto& c : r.valid) d.students.push_back(chart_run(c.student, c));
  return d;
}

ClassCharts class_charts(const ClassChartData& d) {
  ClassCharts out;
  out.charts.push_back(class_scatter(d));

  using Series = std::vector<double> ClassChartRun::*;
  auto lines_of = [&](Series series, bool market) {
    std::vector<ChartLine> lines;
    for (std::size_t i = 0; i < d.students.size(); ++i)
      lines.push_back({chart_name(d.students[i]), &(d.students[i].*series), student_color(i), "", kStudentWidth});
    for (std::size_t i = 0; i < d.benchmarks.size(); ++i) {
      lines.push_back({d.benchmarks[i].name, &(d.benchmarks[i].*series), kBenchmarkRgba,
                       kBenchmarkDash[i % kBenchmarkDash.size()], kBenchmarkWidth});
    }
    if (market && !d.market_output_price_usd_per_mtok.empty())
      lines.push_back({"Market price", &d.market_output_price_usd_per_mtok, kMarketRgba, kMarketDash, 2.0});
    return lines;
  };
  auto values = [](const std::vector<ChartLine>& lines) {
    std::vector<std::vector<double>> v;
    for (const auto& l : lines) v.push_back(*l.values);
    return v;
  };

  auto profit = game_hour_chart(d, "Profit so far, hour by hour", "USD");
  add_chart_lines(profit, lines_of(&ClassChartRun::cumulative_profit_usd, false), d.end_hour);
  out.charts.push_back(std::move(profit));

  const std::string price_title = "Output price of " + d.priced_model + " beside the market's";
  const auto price_lines = lines_of(&ClassChartRun::output_price_usd_per_mtok, true);
  // The market's line may move with prices locked; what the class decides is in the others.
  if (lever_is_locked(d, "set_prices") &&
      !lines_vary(values(lines_of(&ClassChartRun::output_price_usd_per_mtok, false)))) {
    out.omitted.push_back({price_title, "prices are locked in this class: every line is the same flat price"});
  } else {
    auto price = game_hour_chart(d, price_title, "USD per million output tokens");
    add_chart_lines(price, price_lines, d.end_hour);
    out.charts.push_back(std::move(price));
  }

  const std::string fleet_title = "GPUs rented (serving-ready, under contract)";
  const auto fleet_lines = lines_of(&ClassChartRun::gpus_rented, false);
  if (!lines_vary(values(fleet_lines))) {
    char why[160];
    const double gpus = fleet_lines.empty() || fleet_lines[0].values->empty() ? 0 : fleet_lines[0].values->front();
    std::snprintf(why, sizeof why, "%severy run held %.0f GPUs all game",
                  lever_is_locked(d, "rent_gpus") && lever_is_locked(d, "release_gpus")
                      ? "the fleet is locked in this class: "
                      : "",
                  gpus);
    out.omitted.push_back({fleet_title, why});
  } else {
    auto fleet = game_hour_chart(d, fleet_title, "GPUs");
    add_chart_lines(fleet, fleet_lines, d.end_hour);
    out.charts.push_back(std::move(fleet));
  }
  return out;
}

analysis::Chart student_profit_chart(const ClassChartData& d, std::size_t i) {
  auto c = game_hour_chart(d, "Profit so far: " + d.students.at(i).name + " beside the benchmarks", "USD");
  c.width = 900;
  c.height = 340;
  std::vector<ChartLine> lines{
      {chart_name(d.students[i]), &d.students[i].cumulative_profit_usd, student_color(i), "", kStudentWidth}};
  for (std::size_t b = 0; b < d.benchmarks.size(); ++b) {
    lines.push_back({d.benchmarks[b].name, &d.benchmarks[b].cumulative_profit_usd, kBenchmarkRgba,
                     kBenchmarkDash[b % kBenchmarkDash.size()], kBenchmarkWidth});
  }
  add_chart_lines(c, lines, d.end_hour);
  return c;
}

std::string class_charts_html(const ClassCharts& charts) {
  std::string out;
  for (const auto& c : charts.charts)
    out += "<figure class=\"chart\">" + analysis::render_svg(c, false) + "</figure>\n";
  for (const auto& o : charts.omitted) {
    out += "<p class=\"muted omitted\">Not shown: " + analysis::xml_escape(o.title) + " \u2014 " +
           analysis::xml_escape(o.why) + ".</p>\n";
  }
  return out;
}

}  // namespace tycoon::classroom
