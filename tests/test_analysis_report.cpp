// The analyst's arithmetic: Student t intervals, the Pareto frontier, cost per million tokens
// and margins, and well-formed SVG.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "sim/analysis/confidence.h"
#include "sim/analysis/model_error.h"
#include "sim/analysis/pareto.h"
#include "sim/analysis/point_result.h"
#include "sim/analysis/svg_chart.h"
#include "tests/test_common.h"

using namespace tycoon;
using namespace tycoon::analysis;
using test::catalog;

namespace {

constexpr double kExactReport = 1e-12;  // closed forms computed the same way
constexpr double kTable = 1e-3;         // t-table values are given to three decimals

// A minimal XML well-formedness check: tags nest and close, attributes are quoted, and text holds
// no raw '<' or a bare '&'. Returns the first problem, or "".
std::string xml_problem(const std::string& s) {
  std::vector<std::string> open;
  std::size_t i = 0;
  if (s.rfind("<?xml", 0) == 0) i = s.find("?>") + 2;
  bool root_seen = false;
  while (i < s.size()) {
    if (s[i] == '<') {
      const std::size_t end = s.find('>', i);
      if (end == std::string::npos) return "unterminated tag";
      std::string tag = s.substr(i + 1, end - i - 1);
      int quotes = 0;
      for (char c : tag) quotes += c == '"';
      if (quotes % 2) return "unbalanced quotes in <" + tag + ">";
      if (tag.empty()) return "empty tag";
      if (tag[0] == '/') {
        if (open.empty() || open.back() != tag.substr(1)) return "mismatched </" + tag.substr(1) + ">";
        open.pop_back();
      } else if (tag.back() != '/') {
        if (open.empty() && root_seen) return "second root element";
        open.push_back(tag.substr(0, tag.find_first_of(" \n")));
        root_seen = true;
      }
      i = end + 1;
    } else {
      if (s[i] == '&') {
        const std::size_t semi = s.find(';', i);
        if (semi == std::string::npos || semi - i > 6) return "bare &";
      }
      if (s[i] == '>') return "raw > in text";
      ++i;
    }
  }
  return open.empty() ? "" : "unclosed <" + open.back() + ">";
}

}  // namespace

TEST_CASE("Student t quantiles and the 95% interval of a mean") {
  CHECK(student_t_975(1) == doctest::Approx(12.706).epsilon(kTable));
  CHECK(student_t_975(9) == doctest::Approx(2.262).epsilon(kTable));
  CHECK(student_t_975(30) == doctest::Approx(2.042).epsilon(kTable));
  CHECK(student_t_975(60) == doctest::Approx(2.000).epsilon(kTable));   // table value 2.000
  CHECK(student_t_975(120) == doctest::Approx(1.980).epsilon(kTable));  // table value 1.980

  // Samples 10, 12, 14: mean 12, s = 2, half width = t(0.975, 2) * 2 / sqrt(3) = 4.303 * 1.1547 = 4.969.
  const std::vector<double> x = {10, 12, 14};
  const auto e = estimate(x);
  CHECK(e.n == 3);
  CHECK(e.mean == doctest::Approx(12).epsilon(kExactReport));
  CHECK(e.stddev == doctest::Approx(2).epsilon(kExactReport));
  CHECK(e.half_width_95 == doctest::Approx(4.303 * 2 / std::sqrt(3.0)).epsilon(kExactReport));

  SUBCASE("NaN samples (refused points) are left out, one sample has no interval") {
    const std::vector<double> y = {5, std::numeric_limits<double>::quiet_NaN()};
    const auto f = estimate(y);
    CHECK(f.n == 1);
    CHECK(f.mean == 5);
    CHECK(std::isnan(f.half_width_95));
  }
  SUBCASE("a 2% lead inside the noise is not a win") {
    // 100 +- 3 and 102 +- 3 overlap; 100 +- 0.5 and 102 +- 0.5 do not.
    CHECK(Estimate::overlap({100, 0, 3, 0, 0, 5}, {102, 0, 3, 0, 0, 5}));
    CHECK_FALSE(Estimate::overlap({100, 0, 0.5, 0, 0, 5}, {102, 0, 0.5, 0, 0, 5}));
  }
}

TEST_CASE("the Pareto frontier keeps exactly the undominated points") {
  // (interactivity, throughput): larger is better on both.
  //   0 (10, 900)  frontier: nothing has more throughput
  //   1 (20, 800)  frontier
  //   2 (15, 700)  dominated by 1 (20 >= 15, 800 >= 700)
  //   3 (40, 500)  frontier
  //   4 (40, 450)  dominated by 3 (same x, less y)
  //   5 (60, 100)  frontier: the most interactive
  //   6 (5, 900)   dominated by 0 (same y, less x)
  //   7 (NaN, 1e6) left out
  const std::vector<XY> pts = {{10, 900}, {20, 800}, {15, 700}, {40, 500},
                               {40, 450}, {60, 100}, {5, 900},  {std::nan(""), 1e6}};
  CHECK(pareto_frontier(pts) == std::vector<std::size_t>{0, 1, 3, 5});
  const std::vector<XY> twins = {{1, 1}, {1, 1}};
  CHECK(pareto_frontier(twins) == std::vector<std::size_t>{0});
  CHECK(pareto_frontier(std::vector<XY>{}).empty());
}

// One GPU serving 1000 output tok/s and 4000 input tok/s, a quarter of the input from the prefix
// cache: the point both price tests below compute by hand.
static PointPerf report_hand_point() {
  PointPerf p;
  p.output_tok_per_s_per_gpu = 1000;
  p.input_tok_per_s_per_gpu = 4000;
  p.input_tokens = 400;
  p.cached_input_tokens = 100;
  return p;
}

TEST_CASE("power: output tok/s per MW and kWh per Mtok output from the chip's all-in watts") {
  // The same point (1000 output tok/s/GPU) on a GPU provisioned at 1,730 W all in (an H200 in
  // InferenceX's figures): 1000 x 1e6 / 1730 = 578,035 output tok/s per MW, and a million output
  // tokens take 1000 s, so 1730 W x 1000 s = 1.73 MJ = 0.4806 kWh.
  const PointPerf p = report_hand_point();
  const auto e = point_economics(p, {0.50, 0.05, 2.00}, 3.60, 0.40, 1730);
  CHECK(e.output_tok_per_s_per_mw == doctest::Approx(1000 * 1e6 / 1730).epsilon(kExactReport));
  CHECK(e.energy_kwh_per_output_mtok == doctest::Approx(1730.0 * 1000 / 3.6e6).epsilon(kExactReport));
  CHECK(metric_value(Metric::kEnergyKwhPerOutputMtok, p, e) == e.energy_kwh_per_output_mtok);
  CHECK_FALSE(depends_on_price(Metric::kOutputTokPerSPerMw));
  // The bundled H200 carries that figure, with its source; a chip without one gives no energy
  // figure (NaN: empty in CSV, "–" in the report) rather than a guess.
  const auto& h200 = catalog().accelerator("h200");
  REQUIRE(h200.all_in_power_watts.has_value());
  CHECK(*h200.all_in_power_watts == 1730);
  CHECK(h200.sources.contains("all_in_power_watts"));
  CHECK_FALSE(catalog().accelerator("tpu-v6e").all_in_power_watts.has_value());
  const auto none = point_economics(p, {0.50, 0.05, 2.00}, 3.60, 0.40);
  CHECK(std::isnan(none.output_tok_per_s_per_mw));
  CHECK(std::isnan(none.energy_kwh_per_output_mtok));
}

TEST_CASE("cost under three price sets: the output-only cost at the chip's catalog rent of each contract") {
  // 1000 output tok/s/GPU is 3.6 Mtok an hour: at $3.50 (on demand), $1.60 (reserved) and $1.45
  // (spot) per GPU-hour, $0.972, $0.444 and $0.403 per Mtok output, whatever the sweep rents at
  // ($3.60 here). A contract the catalog has no price for gives no figure.
  const PointPerf p = report_hand_point();
  constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  const auto e = point_economics(p, {0.50, 0.05, 2.00}, 3.60, 0.40, 1730, {3.50, 1.60, kNone});
  CHECK(metric_value(Metric::kCostOnDemandUsdPerMtok, p, e) == doctest::Approx(3.50 / 3.6).epsilon(kExactReport));
  CHECK(metric_value(Metric::kCostReservedUsdPerMtok, p, e) == doctest::Approx(1.60 / 3.6).epsilon(kExactReport));
  CHECK(std::isnan(metric_value(Metric::kCostSpotUsdPerMtok, p, e)));
  CHECK(e.cost_output_only_usd_per_mtok == doctest::Approx(3.60 / 3.6).epsilon(kExactReport));  // the sweep's rent
  CHECK_FALSE(depends_on_price(Metric::kCostReservedUsdPerMtok));
  // The H200's three catalog rents are what a sweep's configuration carries.
  const auto& h200 = catalog().accelerator("h200");
  REQUIRE(h200.price(Contract::kSpot).has_value());
  CHECK(h200.price(Contract::kSpot)->price_usd_per_gpu_hour == doctest::Approx(1.45));
}

TEST_CASE("cost per million tokens and margin on a hand-computed point") {
  // One GPU at $3.60/h serving 1000 output tok/s and 4000 input tok/s, a quarter of the input
  // from the prefix cache; prices $0.50 in, $0.05 cached, $2.00 out per Mtok.
  const PointPerf p = report_hand_point();
  const econ::TokenPrices prices{0.50, 0.05, 2.00};
  const auto e = point_economics(p, prices, 3.60, 0.40);
  // O = 3.6e6 tok/h, I = 14.4e6 tok/h.
  // blended: 3.60 / 18 = $0.20 per Mtok; output only: 3.60 / 3.6 = $1.00 per Mtok.
  CHECK(e.cost_blended_usd_per_mtok == doctest::Approx(0.20).epsilon(kExactReport));
  CHECK(e.cost_output_only_usd_per_mtok == doctest::Approx(1.00).epsilon(kExactReport));
  // revenue: 14.4 * 0.75 * 0.50 + 14.4 * 0.25 * 0.05 + 3.6 * 2.00 = 5.40 + 0.18 + 7.20 = $12.78/GPU-h.
  CHECK(e.revenue_usd_per_gpu_hour == doctest::Approx(12.78).epsilon(kExactReport));
  // margin: (12.78 - 3.60) / 12.78 = 0.71831.
  CHECK(e.gross_margin == doctest::Approx((12.78 - 3.60) / 12.78).epsilon(kExactReport));
  // break-even prices at the quoted ratio: R/V = 3.60/12.78 = 0.28169 -> $0.1408 in, $0.5634 out.
  CHECK(e.cost_input_usd_per_mtok == doctest::Approx(0.50 * 3.60 / 12.78).epsilon(kExactReport));
  CHECK(e.cost_output_usd_per_mtok == doctest::Approx(2.00 * 3.60 / 12.78).epsilon(kExactReport));
  // price for a 40% margin: scale = 3.60 / (0.6 * 12.78) = 0.46948; priced so, the margin is 40%.
  CHECK(e.price_scale_for_target_margin == doctest::Approx(3.60 / (0.6 * 12.78)).epsilon(kExactReport));
  const double k = e.price_scale_for_target_margin;
  const auto at = point_economics(p, {0.50 * k, 0.05 * k, 2.00 * k}, 3.60, 0.40);
  CHECK(at.gross_margin == doctest::Approx(0.40).epsilon(kExactReport));

  SUBCASE("no output: costs are undefined, not infinite") {
    const auto z = point_economics(PointPerf{}, prices, 3.60, 0.40);
    CHECK(std::isnan(z.cost_output_only_usd_per_mtok));
    CHECK(std::isnan(z.gross_margin));
  }
}

TEST_CASE("the output price for a target margin with input and cached input held at the quoted prices") {
  // The point above at $7.20/h: input revenue V_in = 14.4 x 0.75 x 0.50 + 14.4 x 0.25 x 0.05 = 5.40 +
  // 0.18 = $5.58/GPU-h at the quoted input prices. A 40% margin needs V = R / 0.6 = $12.00, so the
  // output tokens (3.6 Mtok/GPU-h) must earn 12.00 - 5.58 = $6.42: $1.78333 per Mtok. The
  // scale-both solve moves the input price too: a different answer to a different question.
  const PointPerf p = report_hand_point();
  const econ::TokenPrices prices{0.50, 0.05, 2.00};
  const auto e = point_economics(p, prices, 7.20, 0.40);
  CHECK(e.output_price_for_target_margin_usd_per_mtok == doctest::Approx(6.42 / 3.6).epsilon(kExactReport));
  CHECK(metric_value(Metric::kOutputPriceForTargetMarginUsdPerMtok, p, e) ==
        e.output_price_for_target_margin_usd_per_mtok);
  // Priced so, with the input prices untouched, the margin is the target.
  const auto at = point_economics(p, {0.50, 0.05, e.output_price_for_target_margin_usd_per_mtok}, 7.20, 0.40);
  CHECK(at.gross_margin == doctest::Approx(0.40).epsilon(kExactReport));
  CHECK(depends_on_price(Metric::kOutputPriceForTargetMarginUsdPerMtok));
  CHECK_FALSE(depends_on_price(Metric::kCostOutputOnlyUsdPerMtok));

  SUBCASE("the input alone earns the margin: a negative output price, said as it is") {
    // At $3.00/h a 40% margin needs 3.00 / 0.6 = $5.00 of revenue, less than the input's $5.58:
    // the output price is (5.00 - 5.58) / 3.6 = -$0.1611 per Mtok.
    const auto cheap = point_economics(p, prices, 3.00, 0.40);
    CHECK(cheap.output_price_for_target_margin_usd_per_mtok == doctest::Approx(-0.58 / 3.6).epsilon(kExactReport));
  }
  SUBCASE("no target or no output: undefined") {
    CHECK(std::isnan(point_economics(p, prices, 7.20, std::nan("")).output_price_for_target_margin_usd_per_mtok));
    CHECK(std::isnan(point_economics(PointPerf{}, prices, 7.20, 0.40).output_price_for_target_margin_usd_per_mtok));
  }
  SUBCASE("its model error moves only the rent term") {
    // Throughput off by e moves R / ((1 - m) O) by e and leaves V_in / O alone (input and output
    // move together): half width e x output-only cost / (1 - m) = 0.1 x (7.20 / 3.6) / 0.6 = 0.3333.
    std::array<Estimate, kNumMetrics> stats{};
    stats[static_cast<std::size_t>(Metric::kCostOutputOnlyUsdPerMtok)].mean = e.cost_output_only_usd_per_mtok;
    stats[static_cast<std::size_t>(Metric::kOutputPriceForTargetMarginUsdPerMtok)].mean =
        e.output_price_for_target_margin_usd_per_mtok;
    set_output_price_model_half_width(stats, 0.40, 0.1);
    CHECK(stats[static_cast<std::size_t>(Metric::kOutputPriceForTargetMarginUsdPerMtok)].model_half_width ==
          doctest::Approx(0.1 * 2.0 / 0.6).epsilon(kExactReport));
    // The same by finite difference: 10% more throughput, same prices and rent.
    PointPerf faster = p;
    faster.output_tok_per_s_per_gpu *= 1.1;
    faster.input_tok_per_s_per_gpu *= 1.1;
    const double moved = e.output_price_for_target_margin_usd_per_mtok -
                         point_economics(faster, prices, 7.20, 0.40).output_price_for_target_margin_usd_per_mtok;
    // (12 / 3.6) x (1 - 1 / 1.1) = 0.30303: the first-order 0.3333 within 10% (the step is 10%).
    constexpr double kFirstOrderTol = 0.1;
    CHECK(moved == doctest::Approx(0.1 * 2.0 / 0.6).epsilon(kFirstOrderTol));
  }
}

TEST_CASE("a point's cached share and failed share, the columns that re-price it in a spreadsheet") {
  PointPerf p;
  p.input_tokens = 400;
  p.cached_input_tokens = 100;
  p.requests_completed = 9;
  p.requests_failed = 1;
  CHECK(p.cached_input_share() == doctest::Approx(0.25).epsilon(kExactReport));
  CHECK(p.failed_share() == doctest::Approx(0.1).epsilon(kExactReport));
  CHECK(PointPerf{}.cached_input_share() == 0);  // no prompt tokens: nothing cached, not NaN
  CHECK(PointPerf{}.failed_share() == 0);
}

TEST_CASE("charts are well-formed SVG with escaped text") {
  Chart c;
  c.title = "A <sweep> & its \"frontier\"";
  c.x_label = "P90 interactivity (tok/s/user)";
  c.y_label = "tok/s/GPU";
  auto series = [](std::string name, std::vector<ChartPoint> points) {
    ChartSeries s;
    s.name = std::move(name);
    s.points = std::move(points);
    return s;
  };
  c.series.push_back(series("H200 <fp8>", {{10, 900, 1, 20, false, "a & b"}, {20, 800, 0, 0, true, ""}}));
  c.series.push_back(series("empty", {}));
  c.series.push_back(series("NaN", {{std::nan(""), 1, 0, 0, false, ""}}));
  c.series[0].frontier_group = 0;  // (10, 900) and (20, 800): both on the frontier
  c.references.push_back({true, 50, "target > 50"});
  c.notes = {"source: h200 & friends"};
  const std::string svg = render_svg(c);
  CHECK(xml_problem(svg) == "");
  CHECK(svg.find("A &lt;sweep&gt; &amp; its &quot;frontier&quot;") != std::string::npos);
  CHECK(svg.find("NaN\"") == std::string::npos);  // no NaN coordinates
  CHECK(svg.find("nan") == std::string::npos);
  CHECK(xml_problem(render_svg(Chart{})) == "");  // an empty chart still draws its axes
  c.y_log = true;  // a log axis: decades 100 .. 1000 cover 800 .. 900, and stays well-formed
  const std::string log_svg = render_svg(c);
  CHECK(xml_problem(log_svg) == "");
  CHECK(log_svg.find(">100</text>") != std::string::npos);
  CHECK(log_svg.find(">1000</text>") != std::string::npos);

  SUBCASE("long text is shortened on a UTF-8 character boundary") {
    Chart l;
    for (int i = 0; i < 100; ++i) l.title += "\xC3\xA9";  // 100 x e-acute, 2 bytes each
    const std::string out = render_svg(l);
    CHECK(out.find("\xE2\x80\xA6") != std::string::npos);  // cut, with an ellipsis
    // Every lead byte has its continuation bytes: count 2-byte sequences that are broken.
    int broken = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
      const auto b = static_cast<unsigned char>(out[i]);
      if (b == 0xC3 && (i + 1 >= out.size() || (static_cast<unsigned char>(out[i + 1]) & 0xC0) != 0x80)) ++broken;
    }
    CHECK(broken == 0);
  }
  CHECK(xml_problem("<svg><g></svg>") != "");  // and the checker does catch a bad nesting
}

TEST_CASE("axis ticks step by 1, 2 or 5 times a power of ten and cover the range") {
  const auto t = nice_ticks(0, 937);
  CHECK(t.front() == 0);
  CHECK(t.back() >= 937);
  CHECK(t[1] - t[0] == doctest::Approx(200));
  const auto u = nice_ticks(-0.23, 0.61);
  CHECK(u.front() <= -0.23);
  CHECK(u.back() >= 0.61);
  CHECK(u[1] - u[0] == doctest::Approx(0.2));
}

TEST_CASE("one tick rule for every chart: 1, 2 or 5 times a power of ten, never 2.5") {
  // The ImGui charts once had their own nice_ticks with a 2.5 step; now every chart uses this one. Over [0, 12.5]
  // with 5 intervals the raw step is 2.5: the 1-2-5 rule rounds it up to 5 (the old UI gave 2.5).
  CHECK(nice_step(0, 12.5, 5) == doctest::Approx(5));
  CHECK(nice_step(0, 1, 5) == doctest::Approx(0.2));    // raw 0.2 is a 2 step already
  CHECK(nice_step(0, 937, 6) == doctest::Approx(200));  // raw 156 → 200
  // Within the range (the UI's axes): 0, 5, 10 — not 12.5 or 15, which lie outside.
  CHECK(nice_ticks_within(0, 12.5, 5) == std::vector<double>{0, 5, 10});
  // Covering the range (the SVG axes): one more tick past each end where needed.
  CHECK(nice_ticks(0, 12.5, 5) == std::vector<double>{0, 5, 10, 15});
  // Ticks inside [0.05, 0.95] at step 0.1: 0.1 ... 0.9, nine of them (0 and 1 lie outside).
  const auto t = nice_ticks_within(0.05, 0.95, 9);
  REQUIRE(t.size() == 9);
  CHECK(t.front() == doctest::Approx(0.1));
  CHECK(t.back() == doctest::Approx(0.9));
  // Nothing for an empty, inverted or infinite range.
  CHECK(nice_ticks_within(1, 1, 5).empty());
  CHECK(nice_ticks_within(2, 1, 5).empty());
  CHECK(nice_ticks_within(0, std::numeric_limits<double>::infinity(), 5).empty());
}

TEST_CASE("the Pareto filter drops dominated and non-finite points, keeps the front ordered by x") {
  // The ImGui scatter and the sweep report share this filter. (2, 1) is beaten
  // by (3, 2); (1, 3) and (3, 2) trade off; the NaN point is left out; the front is by x.
  const std::vector<XY> pts = {{3, 2}, {2, 1}, {1, 3}, {std::nan(""), 9}, {0.5, 3}};
  CHECK(pareto_frontier(pts) == std::vector<std::size_t>{2, 0});
}
