// Answers at the target: operating points interpolated at the interactivity target,
// service-level targets that a picked point must meet, intervals that carry the model's own error,
// and charts an analyst can put in a report (per-workload frontiers, analytic margin curves,
// nothing cut, recipe differences in the legend). Each case fails on the behaviour before.
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "sim/analysis/sweep_report.h"
#include "sim/analysis/sweep_run.h"
#include "tests/test_analysis_support.h"

using namespace tycoon;
using namespace tycoon::analysis;
using analysis_test::catalog;
using analysis_test::SweepFixture;
using analysis_test::tiny_spec;

namespace {

constexpr double kTight = 1e-9;    // closed forms and bisection to convergence
constexpr double kPercent = 1e-3;  // a displayed share, to a tenth of a percent

// One synthetic point: the figures an operating point is chosen from (no simulation needed).
PointPerf synthetic(double tok_s_gpu, double p90_user, double ttft_p90_s, std::int64_t completed = 100,
                    std::int64_t failed = 0, perf::Provenance prov = perf::Provenance::kInterpolated) {
  PointPerf p;
  p.output_tok_per_s_per_gpu = tok_s_gpu;
  p.input_tok_per_s_per_gpu = tok_s_gpu;  // 1k/1k-like: as many prompt tokens as output
  p.p90_interactivity_tok_per_s_per_user = p90_user;
  p.ttft_s = {ttft_p90_s / 2, ttft_p90_s / 2, ttft_p90_s, ttft_p90_s * 1.5};
  p.tpot_s = {1 / p90_user, 1 / p90_user, 1 / p90_user, 1 / p90_user};
  p.requests_completed = completed;
  p.requests_failed = failed;
  p.input_tokens = completed * 256;
  p.output_tokens = completed * 64;
  p.num_gpus = 1;
  p.provenance = prov;
  return p;
}

}  // namespace

TEST_CASE("PCHIP is exact at the knots and never overshoots between them") {
  const std::vector<double> xs = {0, 1, 2, 3}, ys = {100, 80, 40, 30};
  for (std::size_t i = 0; i < xs.size(); ++i) CHECK(pchip(xs, ys, xs[i]) == doctest::Approx(ys[i]).epsilon(kTight));
  // Monotone data stay monotone and inside each interval's values (a cubic spline through these
  // knots overshoots below 30 between 2 and 3; Fritsch-Carlson slopes cannot).
  double last = ys[0];
  for (double x = 0; x <= 3; x += 0.01) {
    const double y = pchip(xs, ys, x);
    CHECK(y <= last + kTight);
    CHECK(y >= 30 - kTight);
    last = y;
  }
  // A straight line is reproduced exactly.
  const std::vector<double> line = {1, 3, 5, 7};
  CHECK(pchip(xs, line, 1.25) == doctest::Approx(3.5).epsilon(kTight));
  // Outside the knots, or next to a missing value: no number.
  CHECK(std::isnan(pchip(xs, ys, 3.5)));
  const std::vector<double> gap = {1, std::nan(""), 5, 7};
  CHECK(std::isnan(pchip(xs, gap, 0.5)));
}

TEST_CASE("the operating point is interpolated at the interactivity target, not picked from the grid") {
  // The case: 8 users give P90 49.4 tok/s/user against a 50 target; the grid answer fell
  // back to 2 users and a far worse cost. Interpolated, the answer sits between the two.
  auto j = tiny_spec({1, 2});
  j["target"] = {{"min_p90_tok_per_s_per_user", 50}, {"gross_margin", 0.4}};
  SweepFixture f(j);
  const auto d = f.data({synthetic(100, 60, 0.05), synthetic(300, 49.4, 0.08)});
  const auto groups = make_groups(d);
  const auto ops = operating_points(d, groups);
  REQUIRE(ops.size() == 2);
  const auto& op = ops[0];
  REQUIRE(op.found());
  CHECK(op.interpolated);
  CHECK(op.concurrency > 2);
  CHECK(op.concurrency < 8);
  // At the interpolated point P90 interactivity equals the target (bisection to convergence).
  CHECK(op.at(Metric::kP90InteractivityTokPerSPerUser).mean == doctest::Approx(50).epsilon(1e-6));
  // Two knots: the interpolant of tok/s/GPU is the straight line in log2 users, as is that of
  // interactivity, so both sit at the same fraction of their interval: (60 - 50) / (60 - 49.4).
  const double w = (60 - 50) / (60 - 49.4);
  CHECK(op.at(Metric::kOutputTokPerSPerGpu).mean == doctest::Approx(100 + w * 200).epsilon(1e-6));
  CHECK(op.concurrency == doctest::Approx(std::exp2(1 + 2 * w)).epsilon(1e-6));
  // Every price gets its figures at the same point.
  REQUIRE(op.stats.size() == 2);
  CHECK(op.at(Metric::kOutputTokPerSPerGpu, 1).mean == doctest::Approx(op.at(Metric::kOutputTokPerSPerGpu).mean));
  const auto summary = summary_json(d, groups);
  CHECK(summary["operating_points"][0]["interpolated_at_target"] == true);
  CHECK(summary["operating_points"][0]["between_concurrencies"] == nlohmann::json({2, 8}));
}

TEST_CASE("a point that misses a TTFT or failed-request target is flagged and never picked") {
  SUBCASE("P90 TTFT") {
    auto j = tiny_spec({1});
    j["target"] = {{"max_p90_ttft_ms", 500}};
    SweepFixture f(j);
    // 8 users: three times the throughput but 812 ms to first token at P90. The 8-user point is
    // never picked; the answer is interpolated where P90 TTFT reaches 500 ms, between 2 and 8.
    const auto d = f.data({synthetic(100, 60, 0.2), synthetic(300, 40, 0.812)});
    const auto ops = operating_points(d, make_groups(d));
    REQUIRE(ops[0].found());
    CHECK(ops[0].interpolated);
    CHECK(ops[0].binding == std::vector<std::string>{"P90 TTFT"});
    CHECK(ops[0].at(Metric::kTtftP90Ms).mean == doctest::Approx(500).epsilon(1e-6));
    CHECK(ops[0].concurrency > 2);
    CHECK(ops[0].concurrency < 8);
    REQUIRE(ops[0].rejected.size() == 1);
    CHECK(ops[0].rejected[0] == "8 users: P90 TTFT 812.0 ms > 500.0 ms");
  }
  SUBCASE("failed requests: the agentic pick with 553 of 1,280 failed") {
    auto j = tiny_spec({1});
    j["target"] = {{"max_failed_share", 0.01}};
    SweepFixture f(j);
    const auto d = f.data({synthetic(100, 60, 0.2), synthetic(300, 40, 0.3, 1280 - 553, 553)});
    const auto groups = make_groups(d);
    const auto ops = operating_points(d, groups);
    REQUIRE(ops[0].found());
    CHECK(ops[0].concurrency == 2);
    REQUIRE(ops[0].rejected.size() == 1);
    CHECK(ops[0].rejected[0] == "8 users: failed requests 43.2% > 1.0%");
    // The group itself reports its failed share.
    CHECK(groups[2].failed_share() == doctest::Approx(553.0 / 1280).epsilon(kPercent));
  }
  SUBCASE("no concurrency meets every target: none is picked, each says why") {
    auto j = tiny_spec({1});
    j["target"] = {{"max_p99_ttft_ms", 10}, {"max_p90_tpot_ms", 5}};
    SweepFixture f(j);
    const auto d = f.data({synthetic(100, 60, 0.2), synthetic(300, 40, 0.3)});
    const auto ops = operating_points(d, make_groups(d));
    CHECK_FALSE(ops[0].found());
    REQUIRE(ops[0].rejected.size() == 2);
    CHECK(ops[0].rejected[0] == "2 users: P99 TTFT 300.0 ms > 10.0 ms; P90 TPOT 16.7 ms > 5.0 ms");
  }
  SUBCASE("the interpolated point must meet the other targets too") {
    auto j = tiny_spec({1});
    j["target"] = {{"min_p90_tok_per_s_per_user", 50}, {"max_p90_ttft_ms", 100}};
    SweepFixture f(j);
    // TTFT crosses 100 ms before interactivity falls to 50: the pick sits on the TTFT target,
    // where interactivity is still above 50 (both targets hold; the first to bind decides).
    const auto d = f.data({synthetic(100, 60, 0.05), synthetic(300, 49.4, 0.5)});
    const auto ops = operating_points(d, make_groups(d));
    REQUIRE(ops[0].found());
    CHECK(ops[0].interpolated);
    CHECK(ops[0].binding == std::vector<std::string>{"P90 TTFT"});
    CHECK(ops[0].at(Metric::kTtftP90Ms).mean == doctest::Approx(100).epsilon(1e-6));
    CHECK(ops[0].at(Metric::kP90InteractivityTokPerSPerUser).mean > 50);
  }
}

TEST_CASE("service-level targets are spec keys, checked like every other") {
  auto j = tiny_spec();
  j["target"] = {{"max_p90_ttft_ms", 500}, {"max_p99_ttft_ms", 2000}, {"max_p90_tpot_ms", 40}, {"max_failed_share", 0}};
  const auto s = parse_sweep_spec(j, "spec.json");
  CHECK(*s.target_max_p90_ttft_ms == 500);
  CHECK(*s.target_max_p99_ttft_ms == 2000);
  CHECK(*s.target_max_p90_tpot_ms == 40);
  CHECK(*s.target_max_failed_share == 0);
  j["target"] = {{"max_failed_share", 1.5}};
  CHECK_THROWS_WITH(parse_sweep_spec(j, "spec.json"),
                    "spec.json: /target/max_failed_share: must be at most 1 (a fraction: 0.01 is 1%)");
  j["target"] = {{"max_p90_ttft_ms", -1}};
  CHECK_THROWS(parse_sweep_spec(j, "spec.json"));
}

TEST_CASE("a provenance badge quotes the error a sweep widens by, from the same file") {
  // The game's badge and the analyst's interval read one number: hardware_db/model_error.json's.
  auto errors = load_model_errors(TYCOON_SOURCE_DIR);
  errors.relative[static_cast<std::size_t>(perf::Provenance::kDatasheet)] = 0.456;
  const auto text = provenance_explanation(perf::Provenance::kDatasheet, errors);
  CHECK(text.find("about 46%") != std::string::npos);
  CHECK(text.find("hardware_db/model_error.json") != std::string::npos);
  const auto measured = provenance_explanation(perf::Provenance::kMeasured, errors);
  CHECK(measured.find("about 13%") != std::string::npos);  // 0.127 in the file
}

TEST_CASE("intervals carry the model's error for the provenance: never ±0 on a datasheet point") {
  const auto errors = load_model_errors(TYCOON_SOURCE_DIR);
  // Each class's number is wider than the one before, and says where it comes from.
  CHECK(errors.of(perf::Provenance::kInterpolated) > 0);
  CHECK(errors.of(perf::Provenance::kExtrapolated) > errors.of(perf::Provenance::kInterpolated));
  CHECK(errors.of(perf::Provenance::kDatasheet) > errors.of(perf::Provenance::kExtrapolated));
  for (const auto& s : errors.source) CHECK_FALSE(s.empty());

  auto j = tiny_spec({1, 2});
  SweepFixture f(j);
  // Identical seeds (a deterministic workload): the seeds' spread is exactly zero.
  const auto datasheet = synthetic(200, 60, 0.1, 100, 0, perf::Provenance::kDatasheet);
  const auto d = f.data({datasheet, datasheet}, &errors);
  const auto groups = make_groups(d);
  const auto& tput = groups[0][Metric::kOutputTokPerSPerGpu];
  CHECK(tput.half_width_95 == 0);
  CHECK(tput.total_half_width() == doctest::Approx(200 * errors.of(perf::Provenance::kDatasheet)).epsilon(kTight));
  // A margin moves by e·(1 − margin): rent is fixed, revenue scales with throughput.
  const auto& m = groups[0][Metric::kGrossMargin];
  CHECK(m.model_half_width == doctest::Approx(errors.of(perf::Provenance::kDatasheet) * (1 - m.mean)).epsilon(kTight));
  // Two configurations with the same figures: no lead, inside or outside any interval.
  const auto summary = summary_json(d, groups);
  CHECK(summary["operating_points"][0]["throughput_lead_exceeds_reported_intervals"] == false);
  CHECK(summary["operating_points"][0]["output_tok_per_s_per_gpu"]["half_width_total"].get<double>() > 0);
  // Seeds and model error combine in quadrature.
  Estimate e;
  e.half_width_95 = 3;
  e.model_half_width = 4;
  CHECK(e.total_half_width() == doctest::Approx(5).epsilon(kTight));
}

TEST_CASE("charts: a frontier per workload, analytic margin curves, nothing cut, provenance markers") {
  auto j = tiny_spec({1});
  j["workloads"].push_back({{"name", "long"}, {"kind", "random"}, {"input_tokens", 2048}, {"output_tokens", 64}});
  j["target"] = {{"gross_margin", 0.4}};
  SweepFixture f(j);
  const auto d = f.data({synthetic(100, 60, 0.05), synthetic(300, 40, 0.08, 100, 0, perf::Provenance::kDatasheet)});
  const auto groups = make_groups(d);

  SUBCASE("no Pareto frontier across different workloads") {
    const auto fronts = frontier_groups(d, groups);
    REQUIRE(fronts.size() == 2);
    for (std::size_t w = 0; w < fronts.size(); ++w) {
      CHECK_FALSE(fronts[w].empty());
      for (std::size_t g : fronts[w]) CHECK(f.sweep.series[groups[g].series].workload == w);
    }
    // The chart draws the same frontiers: one per workload, each at its groups' coordinates.
    const auto layout = layout_chart(pareto_chart(d, groups));
    REQUIRE(layout.frontiers.size() == 2);
    for (std::size_t w = 0; w < fronts.size(); ++w) {
      REQUIRE(layout.frontiers[w].size() == fronts[w].size());
      for (std::size_t k = 0; k < fronts[w].size(); ++k) {
        CHECK(layout.frontiers[w][k].x == groups[fronts[w][k]][Metric::kP90InteractivityTokPerSPerUser].mean);
        CHECK(layout.frontiers[w][k].y == groups[fronts[w][k]][Metric::kOutputTokPerSPerGpu].mean);
      }
    }
  }
  SUBCASE("margin vs price is a curve 1 − R/(k·V) on an axis from −100% to 100%") {
    const auto c = margin_chart(d, groups);
    CHECK(*c.y_min == -1);
    CHECK(*c.y_max == 1);
    REQUIRE_FALSE(c.series.empty());
    const auto& s = c.series[0];
    CHECK(s.points.size() > 20);  // a curve, not one dot per spec price
    const auto ops = operating_points(d, groups);
    const auto& model = *f.sweep.configs[0].deployment().model;
    const double p0 = resolve_prices(f.spec.prices[0], model).output_usd_per_mtok;
    const double break_even = (1 - ops[0].at(Metric::kGrossMargin).mean) * p0;
    for (const auto& p : s.points) CHECK(p.y == doctest::Approx(1 - break_even / p.x).epsilon(1e-9));
    std::size_t curve = 0;
    while (s.points[curve].marker) ++curve;
    CHECK(s.points[curve].y == doctest::Approx(-1).epsilon(1e-9));  // it enters the chart at −100%
  }
  SUBCASE("concurrency labels, provenance markers and a TTFT chart") {
    const auto c = pareto_chart(d, groups);
    CHECK(c.series[0].points[0].label == "2");
    CHECK_FALSE(c.series[0].points[0].square);
    CHECK(c.series[0].points[1].square);  // datasheet: its own marker, not the extrapolated one
    CHECK(c.series[0].points[1].hollow);
    const auto t = ttft_chart(d, groups);
    CHECK(t.y_log);
    CHECK(t.series[0].points[1].y == doctest::Approx(80));
    CHECK(render_svg(t).find("P90 TTFT (ms, log scale)") != std::string::npos);
  }
}

TEST_CASE("a long legend entry or footnote is wrapped, never cut") {
  Chart c;
  c.title = "t";
  const std::string name =
      "H200 fp4 TP1 (eagle3 k=7 @2.76, budget 8192, max seqs 512, prefix cache) · agentic coding sessions";
  auto series = [](std::string n, std::vector<ChartPoint> points) {
    ChartSeries s;
    s.name = std::move(n);
    s.points = std::move(points);
    return s;
  };
  c.series.push_back(series(name, {{1, 1, 0, 0, false, ""}}));
  const std::string note(40, 'x');
  c.notes = {note + " " + note + " " + note + " " + note + " the end"};
  for (int i = 0; i < 40; ++i) c.series.push_back(series("series " + std::to_string(i), {{2, 2, 0, 0, false, ""}}));
  const auto svg = render_svg(c);
  CHECK(svg.find("\xE2\x80\xA6") == std::string::npos);  // no ellipsis anywhere
  CHECK(svg.find("more (see the tables)") == std::string::npos);
  CHECK(svg.find("series 39") != std::string::npos);
  CHECK(svg.find("the end") != std::string::npos);
  CHECK(svg.find("agentic coding sessions") != std::string::npos);
  // The 41 legend entries do not fit 600 px: the chart grew.
  CHECK(svg.find("height=\"600\"") == std::string::npos);
  const auto lines = wrap_text("aaa bbb ccc", 7);
  CHECK(lines == std::vector<std::string>{"aaa bbb", "ccc"});
}

TEST_CASE("the legend names every recipe difference between compared series") {
  // GPT-OSS-120B: the H200 recipe runs EAGLE-3 with 7 draft tokens, the H100 recipe does not.
  const nlohmann::json j = {{"format_version", 1},
                            {"name", "recipes"},
                            {"base", {{"model", "gpt-oss-120b"}}},
                            {"axes", {{"hardware", {"h100", "h200"}}}},
                            {"workloads", {{{"name", "1k/1k"}, {"kind", "random"}}}},
                            {"concurrency", {4}},
                            {"prices", {{{"name", "market"}}}}};
  SweepFixture f(j);
  const auto d = f.data({synthetic(100, 60, 0.05)});
  const std::string h100 = series_legend(d, 0), h200 = series_legend(d, 1);
  CHECK(h200.find("eagle3 k=7") != std::string::npos);
  CHECK(h100.find("no spec decode") != std::string::npos);
  // The label already says the chip: it is not repeated.
  CHECK(recipe_differences(f.sweep, 1) == std::vector<std::string>{"eagle3 k=7 @2.76"});
  // Like for like (the recipe's speculative decoding off): no difference left to name.
  auto same = j;
  same["base"]["spec_tokens"] = 0;
  SweepFixture g(same);
  CHECK(recipe_differences(g.sweep, 0).empty());
  CHECK(recipe_differences(g.sweep, 1).empty());
}

TEST_CASE("a deployment that does not fit says so once") {
  const nlohmann::json j = {
      {"format_version", 1},
      {"name", "too-big"},
      {"base", {{"model", "qwen3.5-397b"}, {"hardware", "h200"}, {"precision", "bf16"}, {"tensor_parallel", 1}}},
      {"workloads", {{{"name", "1k/1k"}, {"kind", "random"}}}},
      {"concurrency", {4}},
      {"prices", {{{"name", "market"}}}}};
  const auto spec = parse_sweep_spec(j, "spec.json");
  std::string what;
  try {
    expand_sweep(spec, catalog());
  } catch (const std::exception& e) {
    what = e.what();
  }
  REQUIRE(what.find("does not fit") != std::string::npos);
  CHECK(what.find("does not fit: does not fit") == std::string::npos);
}
