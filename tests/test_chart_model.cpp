// The one chart model (sim/analysis/chart_model.h) and its layout: the ranges, ticks, tick labels
// and Pareto frontiers that the SVG renderer (analyst report) and the ImGui renderer (game) both
// draw from.
#include <doctest/doctest.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "sim/analysis/chart_model.h"
#include "sim/analysis/pareto.h"
#include "sim/analysis/svg_chart.h"

using namespace tycoon::analysis;

namespace {

constexpr double kExactTicks = 1e-12;  // ticks are integer multiples of a step: exact up to rounding

ChartSeries series_of(std::vector<ChartPoint> points, std::optional<std::size_t> group = std::nullopt,
                      std::string name = "series") {
  ChartSeries s;
  s.name = std::move(name);
  s.points = std::move(points);
  s.frontier_group = group;
  return s;
}

// The data set of the range tests: three points of one series.
Chart small_chart() {
  Chart c;
  c.series.push_back(series_of({{10, 100}, {40, 420}, {75, 260}}));
  return c;
}

void check_ticks(const std::vector<double>& got, const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == doctest::Approx(want[i]).epsilon(kExactTicks));
}

// The text of every <text> element inside the first <g> that starts with `group_open`.
std::vector<std::string> texts_in_group(const std::string& svg, const std::string& group_open) {
  std::vector<std::string> out;
  const std::size_t g = svg.find(group_open);
  if (g == std::string::npos) return out;
  const std::size_t end = svg.find("</g>", g);
  for (std::size_t i = svg.find("<text", g); i < end; i = svg.find("<text", i + 1)) {
    const std::size_t open = svg.find('>', i) + 1;
    out.push_back(svg.substr(open, svg.find("</text>", open) - open));
  }
  return out;
}

}  // namespace

TEST_CASE("chart layout: the automatic range includes zero and ends on the nice tick above the padded top") {
  SUBCASE("three points") {
    const auto l = layout_chart(small_chart());
    // x: data 0..75 (zero included), padded top 75 × 1.02 = 76.5; about six ticks want a step of at
    // least 76.5 / 6 = 12.75, the next 1-2-5 step is 20: ticks 0..80.
    check_ticks(l.x.ticks, {0, 20, 40, 60, 80});
    CHECK(l.x.lo == 0);
    CHECK(l.x.hi == doctest::Approx(80).epsilon(kExactTicks));
    CHECK(l.x.labels == std::vector<std::string>{"0", "20", "40", "60", "80"});
    // y: data 0..420, padded 420 × 1.04 = 436.8; step at least 72.8 -> 100: ticks 0..500.
    check_ticks(l.y.ticks, {0, 100, 200, 300, 400, 500});
    CHECK(l.y.labels == std::vector<std::string>{"0", "100", "200", "300", "400", "500"});
    // A point sits where its value is along the axis: 40 of 0..80 is halfway.
    CHECK(l.x.fraction(40) == doctest::Approx(0.5).epsilon(kExactTicks));
    CHECK(l.y.fraction(250) == doctest::Approx(0.5).epsilon(kExactTicks));
    CHECK(l.frontiers.empty());  // no series is in a frontier group
  }
  SUBCASE("data far from zero still starts at zero, so distances read honestly") {
    Chart c;
    c.series.push_back(series_of({{1000, 5}, {1100, 6}}));
    const auto l = layout_chart(c);
    // x: 0..1100 × 1.02 = 1122, step at least 187 -> 200: ticks 0..1200.
    check_ticks(l.x.ticks, {0, 200, 400, 600, 800, 1000, 1200});
  }
  SUBCASE("negative data reaches below zero to a tick") {
    Chart c;
    c.series.push_back(series_of({{1, -50}, {2, 300}}));
    const auto l = layout_chart(c);
    // y: -50..300 × 1.04 = 312, step at least 362 / 6 = 60.3 -> 100: ticks -100..400.
    check_ticks(l.y.ticks, {-100, 0, 100, 200, 300, 400});
  }
  SUBCASE("no data: a unit range") {
    const auto l = layout_chart(Chart{});
    // [0, 1.02] and [0, 1.04]: step at least 0.17 -> 0.2, ticks 0..1.2, one decimal.
    check_ticks(l.x.ticks, {0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.2});
    CHECK(l.y.labels == std::vector<std::string>{"0.0", "0.2", "0.4", "0.6", "0.8", "1.0", "1.2"});
  }
}

TEST_CASE("chart layout: error bars, reference lines and the highlighted point widen the range") {
  SUBCASE("a y error bar") {
    Chart c = small_chart();
    c.series[0].points[1].y_err = 80;  // 420 + 80 = 500, × 1.04 = 520: step 100, ticks to 600
    check_ticks(layout_chart(c).y.ticks, {0, 100, 200, 300, 400, 500, 600});
  }
  SUBCASE("an x error bar") {
    Chart c = small_chart();
    c.series[0].points[2].x_err = 20;  // 75 + 20 = 95, × 1.02 = 96.9: step at least 16.2 -> 20, to 100
    check_ticks(layout_chart(c).x.ticks, {0, 20, 40, 60, 80, 100});
  }
  SUBCASE("a vertical reference line extends x, a horizontal one y (below zero too)") {
    Chart c = small_chart();
    c.references.push_back({true, 120, "target"});   // 120 × 1.02 = 122.4: step at least 20.4 -> 50
    c.references.push_back({false, -100, "floor"});  // -100..436.8: step at least 89.5 -> 100
    const auto l = layout_chart(c);
    check_ticks(l.x.ticks, {0, 50, 100, 150});
    check_ticks(l.y.ticks, {-100, 0, 100, 200, 300, 400, 500});
  }
  SUBCASE("the highlighted point") {
    Chart c = small_chart();
    c.highlight = ChartHighlight{"last hour", {200, 50}, 0};  // 200 × 1.02 = 204: step at least 34 -> 50
    check_ticks(layout_chart(c).x.ticks, {0, 50, 100, 150, 200, 250});
  }
}

TEST_CASE("chart layout: fixed ranges are honoured and points outside a fixed y range are left out") {
  Chart c;
  c.y_min = -1;
  c.y_max = 1;
  c.y_percent = true;
  c.series.push_back(series_of({{10, 0.5}, {20, -0.3}, {300, 2.0}}));  // the last is above y_max
  SUBCASE("fixed y, automatic x") {
    const auto l = layout_chart(c);
    // y: exactly -1..1, no padding: step at least 2 / 6 -> 0.5; labels in percent.
    check_ticks(l.y.ticks, {-1, -0.5, 0, 0.5, 1});
    CHECK(l.y.labels == std::vector<std::string>{"-100%", "-50%", "0%", "50%", "100%"});
    // x: the point at y = 2 is not drawn and does not count: 0..20 × 1.02 = 20.4, step 5, to 25.
    CHECK_FALSE(is_drawn(c, c.series[0].points[2]));
    CHECK(is_drawn(c, c.series[0].points[1]));
    check_ticks(l.x.ticks, {0, 5, 10, 15, 20, 25});
  }
  SUBCASE("fixed x ends too") {
    c.x_min = 10;
    c.x_max = 50;
    const auto l = layout_chart(c);
    // 10..50 without padding: step at least 40 / 6 = 6.7 -> 10, the ends on ticks.
    check_ticks(l.x.ticks, {10, 20, 30, 40, 50});
    CHECK(l.x.lo == 10);
    CHECK(l.x.hi == 50);
    CHECK(l.x.fraction(30) == doctest::Approx(0.5).epsilon(kExactTicks));
  }
}

TEST_CASE("chart layout: a log y axis spans the whole decades around the positive data") {
  Chart c;
  c.y_log = true;
  SUBCASE("three decades get 2 and 5 ticks") {
    c.series.push_back(series_of({{1, 3}, {2, 40}, {3, 900}, {4, 0}}));  // y = 0 has no place on it
    const auto l = layout_chart(c);
    CHECK(l.y.log);
    check_ticks(l.y.ticks, {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000});
    CHECK(l.y.labels == std::vector<std::string>{"1", "2", "5", "10", "20", "50", "100", "200", "500", "1000"});
    CHECK(l.y.fraction(10) == doctest::Approx(1.0 / 3).epsilon(kExactTicks));  // one decade of three
    CHECK(l.y.fraction(0) == 0);                                               // below the axis: at its foot
    CHECK_FALSE(is_drawn(c, c.series[0].points[3]));
  }
  SUBCASE("six decades: decades only") {
    c.series.push_back(series_of({{1, 0.5}, {2, 2e4}}));
    const auto l = layout_chart(c);
    CHECK(l.y.labels == std::vector<std::string>{"0.1", "1", "10", "100", "1000", "10000", "100000"});
  }
}

TEST_CASE("chart layout: a frontier group's frontier is pareto_frontier of its drawn points") {
  Chart c;
  // Group 0 over two series (the points of the Pareto test in test_analysis_report.cpp, split).
  c.series.push_back(series_of({{10, 900}, {15, 700}, {40, 500}}, 0));
  c.series.push_back(series_of({{20, 800}, {40, 450}, {60, 100}, {5, 900}, {std::nan(""), 1e6}}, 0));
  c.series.push_back(series_of({{100, 1000}}));  // in no group: would dominate everything
  c.series.push_back(series_of({{1, 1}, {2, 0.5}}, 1));
  c.highlight = ChartHighlight{"star", {200, 2000}, 0};  // never on a frontier

  std::vector<XY> group0;
  for (std::size_t s : {0, 1}) {
    for (const auto& p : c.series[s].points) group0.push_back({p.x, p.y});
  }
  std::vector<XY> expected;
  for (std::size_t k : pareto_frontier(group0)) expected.push_back(group0[k]);
  // Hand check: (10, 900), (20, 800), (40, 500), (60, 100); the rest dominated, NaN left out.
  REQUIRE(expected.size() == 4);

  const auto l = layout_chart(c);
  REQUIRE(l.frontiers.size() == 2);
  REQUIRE(l.frontiers[0].size() == expected.size());
  for (std::size_t k = 0; k < expected.size(); ++k) {
    CHECK(l.frontiers[0][k].x == expected[k].x);
    CHECK(l.frontiers[0][k].y == expected[k].y);
  }
  REQUIRE(l.frontiers[1].size() == 2);  // (1, 1) and (2, 0.5): neither dominates the other
  CHECK(l.frontiers[1][0].x == 1);
  CHECK(l.frontiers[1][1].x == 2);

  SUBCASE("points outside a fixed y range are not on it") {
    c.y_max = 850;  // (10, 900) and (5, 900) are not drawn: (20, 800) leads
    const auto fixed = layout_chart(c);
    REQUIRE(fixed.frontiers[0].size() == 3);
    CHECK(fixed.frontiers[0][0].x == 20);
  }
}

TEST_CASE("the SVG renderer draws the layout's ticks and labels") {
  // The grid group holds the x tick labels, then the y tick labels: exactly the layout's.
  auto svg_labels_match = [](const Chart& c) {
    const auto l = layout_chart(c);
    std::vector<std::string> want = l.x.labels;
    want.insert(want.end(), l.y.labels.begin(), l.y.labels.end());
    const auto svg = render_svg(c);
    CHECK(texts_in_group(svg, "<g font-size=\"11\" fill=\"#333333\">") == want);
    return svg;
  };
  SUBCASE("linear axes, from edge to edge of the plot") {
    const auto svg = svg_labels_match(small_chart());
    // The first x tick on the plot's left edge (86 px), the last on its right (960 − 290 − 20 = 650).
    CHECK(svg.find("<line x1=\"86.00\" y1=\"52.00\" x2=\"86.00\"") != std::string::npos);
    CHECK(svg.find("<line x1=\"650.00\" y1=\"52.00\" x2=\"650.00\"") != std::string::npos);
  }
  SUBCASE("percent and log axes") {
    Chart pct = small_chart();
    pct.y_percent = true;
    pct.y_min = 0;
    pct.y_max = 1;
    svg_labels_match(pct);
    Chart log = small_chart();
    log.y_log = true;
    svg_labels_match(log);
  }
  SUBCASE("the highlighted point: a star with its hover text, in the legend, in its own colour") {
    Chart c = small_chart();
    c.highlight = ChartHighlight{"last hour", {30, 200, 0, 0, false, "ran here"}, 0xFFBE50FF};
    const auto svg = render_svg(c);
    CHECK(svg.find("fill=\"#FFBE50\" stroke=\"#222222\"><title>ran here</title></polygon>") != std::string::npos);
    CHECK(svg.find(">last hour</text>") != std::string::npos);
  }
  SUBCASE("frontiers: one polyline per group, a series' own colour") {
    Chart c = small_chart();
    c.series[0].frontier_group = 0;
    c.series[0].color_rgba = 0x11223344;
    const auto svg = render_svg(c);
    CHECK(svg.find("<g stroke=\"#112233\">") != std::string::npos);
    const std::string frontier_line = "<polyline fill=\"none\" stroke=\"#FFB000\"";
    std::size_t n = 0;
    for (auto i = svg.find(frontier_line); i != std::string::npos; i = svg.find(frontier_line, i + 1)) ++n;
    CHECK(n == layout_chart(c).frontiers.size());
    CHECK(n == 1);
  }
}
