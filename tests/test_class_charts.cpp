// The class's charts for a projector (sim/classroom/class_charts.h): which charts a class gets,
// and how each line is told apart — strong student colours, dashed benchmarks, a market line,
// identical lines shown and named together, the game's own length on the hour axis.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "sim/analysis/svg_chart.h"
#include "sim/classroom/class_charts.h"

using namespace tycoon;
using classroom::ClassChartData;
using classroom::ClassChartRun;

namespace {

// A run whose price, fleet and cumulative profit are the same value every hour.
ClassChartRun flat_run(const std::string& name, std::size_t hours, double price, double gpus, double profit_per_h) {
  ClassChartRun r;
  r.name = name;
  r.profit_usd = profit_per_h * static_cast<double>(hours);
  r.slo_attainment = 0.9;
  for (std::size_t h = 0; h < hours; ++h) {
    r.output_price_usd_per_mtok.push_back(price);
    r.gpus_rented.push_back(gpus);
    r.cumulative_profit_usd.push_back(profit_per_h * static_cast<double>(h + 1));
  }
  return r;
}

// A week's class of three: Ada raises her price at hour 30, Ben copies her exactly, Cy does nothing.
ClassChartData week_class(std::vector<std::string> locks) {
  ClassChartData d;
  d.end_hour = 168;
  d.locked_levers = std::move(locks);
  d.priced_model = "gpt-oss-120b";
  d.market_output_price_usd_per_mtok.assign(168, 0.16);
  d.benchmarks = {flat_run("Doing nothing", 168, 0.15, 8, 10), flat_run("Reference", 168, 0.1725, 8, 9)};
  auto ada = flat_run("Ada", 168, 0.15, 8, 11);
  std::fill(ada.output_price_usd_per_mtok.begin() + 30, ada.output_price_usd_per_mtok.end(), 0.18);
  auto ben = ada;
  ben.name = "Ben";
  d.students = {ada, ben, flat_run("Cy", 168, 0.15, 8, 10)};
  return d;
}

const analysis::Chart* find_chart(const classroom::ClassCharts& c, const std::string& title_start) {
  for (const auto& chart : c.charts) {
    if (chart.title.rfind(title_start, 0) == 0) return &chart;
  }
  return nullptr;
}

const analysis::ChartSeries* find_series(const analysis::Chart& c, const std::string& name) {
  for (const auto& s : c.series) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("student colours are strong hues, distinct, never black or grey (the benchmarks' colours)") {
  constexpr std::size_t kDistinct = 10;  // the palette's size: a class of ten gets ten colours
  std::set<std::uint32_t> seen;
  for (std::size_t i = 0; i < kDistinct; ++i) {
    const std::uint32_t c = classroom::student_color(i);
    const int r = static_cast<int>(c >> 24), g = static_cast<int>((c >> 16) & 0xff),
              b = static_cast<int>((c >> 8) & 0xff);
    // Saturation as the spread of the channels: a grey (or black) has none; 0x60 is a clear hue.
    CHECK_MESSAGE(std::max({r, g, b}) - std::min({r, g, b}) >= 0x60, "colour " << i);
    // Dark enough to read as a line on white: the channels sum to less than 0x260.
    CHECK_MESSAGE(r + g + b < 0x260, "colour " << i);
    seen.insert(c);
  }
  CHECK(seen.size() == kDistinct);
}

TEST_CASE("a week's hour charts end at hour 168 with a tick a day") {
  const auto charts = classroom::class_charts(week_class({}));
  const auto* profit = find_chart(charts, "Profit so far");
  REQUIRE(profit);
  const auto layout = analysis::layout_chart(*profit);
  CHECK(layout.x.hi == 168);  // not 200, the next "nice" number
  CHECK(layout.x.ticks == std::vector<double>{0, 24, 48, 72, 96, 120, 144, 168});
}

TEST_CASE("benchmarks are dark and dashed, the price chart has the market's line, every line is named at its end") {
  const auto charts = classroom::class_charts(week_class({}));
  const auto* price = find_chart(charts, "Output price");
  REQUIRE(price);
  const auto* reference = find_series(*price, "Reference");
  REQUIRE(reference);
  CHECK_FALSE(reference->dash.empty());
  CHECK(reference->color_rgba == 0x222222ffu);
  const auto* market = find_series(*price, "Market price");
  REQUIRE(market);
  CHECK_FALSE(market->dash.empty());
  CHECK(market->points.size() == 2 * 168);  // a step line: two vertices an hour
  // Ada's line carries both names (Ben's is the same line); Cy's and the benchmarks' their own.
  const auto* ada = find_series(*price, "Ada");
  const auto* ben = find_series(*price, "Ben");
  REQUIRE(ada);
  REQUIRE(ben);
  CHECK(ada->end_label == "Ada = Ben");
  CHECK(ada->dash.empty());
  CHECK(ben->end_label.empty());
  CHECK_FALSE(ben->dash.empty());  // dashed over Ada's, so that both colours show
  CHECK(ada->color_rgba != ben->color_rgba);
  // Cy did nothing: her price line is the do-nothing benchmark's, drawn dashed on top of hers.
  CHECK(find_series(*price, "Cy")->end_label == "Cy = Doing nothing");
  const auto svg = analysis::render_svg(*price, false);
  CHECK(svg.find(">Ada = Ben</text>") != std::string::npos);  // on the chart, not only in a tooltip
  CHECK(svg.find("stroke-dasharray=\"12 6\"") != std::string::npos);
}

TEST_CASE("a chart the class's locks make flat is left out, with the reason") {
  SUBCASE("the fleet locked: every run holds 8 GPUs, so no GPUs chart") {
    const auto charts = classroom::class_charts(week_class({"rent_gpus", "release_gpus"}));
    CHECK_FALSE(find_chart(charts, "GPUs rented"));
    REQUIRE(charts.omitted.size() == 1);
    CHECK(charts.omitted[0].why == "the fleet is locked in this class: every run held 8 GPUs all game");
    CHECK(find_chart(charts, "Output price"));
  }
  SUBCASE("one student's fleet moves: the chart carries information and stays") {
    auto d = week_class({});
    d.students[2].gpus_rented[100] = 12;
    CHECK(find_chart(classroom::class_charts(d), "GPUs rented"));
  }
  SUBCASE("prices locked and nobody's price moved: no price chart") {
    auto d = week_class({"set_prices"});
    for (auto& s : d.students) s.output_price_usd_per_mtok.assign(168, 0.15);
    d.benchmarks[1].output_price_usd_per_mtok.assign(168, 0.15);
    const auto charts = classroom::class_charts(d);
    CHECK_FALSE(find_chart(charts, "Output price"));
    CHECK(charts.omitted.front().why.find("prices are locked") == 0);
  }
}

TEST_CASE("students on the same point of the scatter are one marker naming both") {
  auto d = week_class({});
  const auto charts = classroom::class_charts(d);
  const auto& scatter = charts.charts.front();
  REQUIRE(scatter.series.size() == 2);  // Ada and Ben share a point; Cy has her own
  CHECK(scatter.series[0].points[0].label == "Ada = Ben");
  CHECK(scatter.references.size() == 2);  // the benchmarks' profits, as marked lines
}

TEST_CASE("an abandoned game's line stops at its hour, named so, its label joined by a faint dotted leader") {
  auto d = week_class({});
  auto& cy = d.students[2];
  cy.finished = false;
  cy.stopped_at_hour = 30;
  cy.cumulative_profit_usd.resize(30);  // what the class server keeps of a game handed in at hour 30
  const auto charts = classroom::class_charts(d);
  const auto* profit = find_chart(charts, "Profit so far");
  REQUIRE(profit);
  const auto* line = find_series(*profit, "Cy (stopped at h30)");
  REQUIRE(line);
  CHECK(line->points.back().x == 30);
  CHECK(line->end_label == "Cy (stopped at h30)");
  // Grey and dotted, not the line's colour: the leader across the plot must not read as the line.
  CHECK(analysis::render_svg(*profit, false).find("stroke=\"#999999\" stroke-width=\"1\" stroke-dasharray=\"1 3\"") !=
        std::string::npos);
}
