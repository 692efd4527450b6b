// Answers at every target: TTFT and TPOT targets interpolated like interactivity, a conservative
// pick on the far end of the interval, a pick within its interval of a target marked marginal,
// and a sweep whose picks do not move when its request counts double (the steady-state rule).
#include <cmath>
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

constexpr double kBisection = 1e-6;  // bisection to convergence on a two-knot interpolant

// A point with the figures a pick is made from; P90 TTFT `ttft_p90_s` with a batch-means half
// width of `ttft_half_width_s` from its own run.
PointPerf point(double tok_s_gpu, double p90_user, double ttft_p90_s, double ttft_half_width_s = 0) {
  PointPerf p;
  p.output_tok_per_s_per_gpu = tok_s_gpu;
  p.input_tok_per_s_per_gpu = tok_s_gpu;
  p.p90_interactivity_tok_per_s_per_user = p90_user;
  p.ttft_s = {ttft_p90_s / 2, ttft_p90_s / 2, ttft_p90_s, ttft_p90_s * 1.5};
  p.tpot_s = {1 / p90_user, 1 / p90_user, 1 / p90_user, 1 / p90_user};
  p.requests_completed = 100;
  p.input_tokens = 100 * 256;
  p.output_tokens = 100 * 64;
  p.num_gpus = 1;
  p.provenance = perf::Provenance::kInterpolated;
  p.ttft_p90_half_width_s = ttft_half_width_s;
  return p;
}

}  // namespace

TEST_CASE("a TTFT target is interpolated: a miss by 35 ms no longer drops the pick to the grid point below") {
  // The case: with max_p90_ttft_ms 150, 8 users (here) miss by 35 ms and the grid answer
  // fell back to 2 users, a 3x cost jump from grid spacing. P90 TTFT rises 100 -> 185 ms over
  // log2 users 1 -> 3; two knots make the interpolant a straight line, so it reaches 150 at
  // (150 - 100) / 85 of the way: 2^(1 + 2 × 50/85) = 4.53 users.
  auto j = tiny_spec({1});
  j["target"] = {{"max_p90_ttft_ms", 150}};
  SweepFixture f(j);
  const auto d = f.data({point(100, 60, 0.100), point(300, 40, 0.185)});
  const auto ops = operating_points(d, make_groups(d));
  REQUIRE(ops[0].found());
  CHECK(ops[0].interpolated);
  CHECK(ops[0].pick_label() == "interpolated at target");
  CHECK(ops[0].at(Metric::kTtftP90Ms).mean == doctest::Approx(150).epsilon(kBisection));
  CHECK(ops[0].concurrency == doctest::Approx(std::exp2(1 + 2 * 50.0 / 85)).epsilon(kBisection));
  CHECK(ops[0].at(Metric::kOutputTokPerSPerGpu).mean == doctest::Approx(100 + 200 * 50.0 / 85).epsilon(kBisection));
}

TEST_CASE("a TPOT target is interpolated like the others") {
  // P90 TPOT 1/60 s = 16.7 ms at 2 users, 1/40 s = 25 ms at 8: a 20 ms ceiling is crossed at
  // (20 - 16.67) / (25 - 16.67) = 0.4 of the way.
  auto j = tiny_spec({1});
  j["target"] = {{"max_p90_tpot_ms", 20}};
  SweepFixture f(j);
  const auto d = f.data({point(100, 60, 0.1), point(300, 40, 0.1)});
  const auto ops = operating_points(d, make_groups(d));
  REQUIRE(ops[0].found());
  CHECK(ops[0].interpolated);
  CHECK(ops[0].binding == std::vector<std::string>{"P90 TPOT"});
  CHECK(ops[0].at(Metric::kTpotP90Ms).mean == doctest::Approx(20).epsilon(kBisection));
  CHECK(ops[0].concurrency == doctest::Approx(std::exp2(1 + 2 * 0.4)).epsilon(kBisection));
}

TEST_CASE("--conservative meets the target at the far end of the interval; a pick inside it is marginal") {
  // P90 TTFT 1,994 ms with a run half width of 540 ms at 8 users, 1,200 ± 100 ms at 2, against
  // 2,000 ms: on the mean 8 users meet it (the H200 pick), but only just.
  auto j = tiny_spec({1});
  j["target"] = {{"max_p90_ttft_ms", 2000}};
  SweepFixture f(j);
  const auto d = f.data({point(100, 60, 1.200, 0.100), point(300, 40, 1.994, 0.540)});
  SUBCASE("on the mean: the grid point, marked marginal") {
    const auto ops = operating_points(d, make_groups(d));
    REQUIRE(ops[0].found());
    CHECK(ops[0].concurrency == 8);
    CHECK(ops[0].pick_label() == "grid, marginal");
    REQUIRE(ops[0].marginal.size() == 1);
    CHECK(ops[0].marginal[0] == "P90 TTFT 1994.0 ± 540.0 ms vs 2000.0 ms");
  }
  SUBCASE("conservative: interpolated where mean + half width reaches the target") {
    auto spec = f.spec;
    spec.conservative = true;
    SweepData dc = d;
    dc.spec = &spec;
    const auto ops = operating_points(dc, make_groups(dc));
    REQUIRE(ops[0].found());
    CHECK(ops[0].interpolated);
    // Mean and half width both straight lines in log2 users: 1300 + t (2534 − 1300) = 2000 at
    // t = 700 / 1234, so 2^(1 + 2t) users, and the mean there is 1200 + t × 794 = 1650 ms.
    const double t = 700.0 / 1234;
    CHECK(ops[0].concurrency == doctest::Approx(std::exp2(1 + 2 * t)).epsilon(kBisection));
    CHECK(ops[0].at(Metric::kTtftP90Ms).mean == doctest::Approx(1200 + 794 * t).epsilon(kBisection));
  }
}

TEST_CASE("doubling every point's request count does not move the picks by more than their interval") {
  // The first "done when" of the steady-state work, small enough for the suite: GPT-OSS-120B chat
  // on H200 without speculative decoding at 16, 32 and 64 users, one seed, P90 50 tok/s/user and
  // P90 TTFT under 2 s; the points start at 4 and at 8 requests per user (max_requests 256 and
  // 512). Each point runs until its P90s are steady, so the two answers agree within the picks'
  // intervals (the rule's batch-means half widths: one seed has no seed interval).
  nlohmann::json j = {
      {"format_version", 1},
      {"name", "chat-doubling"},
      {"base", {{"model", "gpt-oss-120b"}, {"hardware", "h200"}, {"spec_tokens", 0}}},
      {"workloads", {{{"name", "chat"}, {"kind", "chat"}, {"input_tokens", 1024}, {"output_tokens", 1024}}}},
      {"concurrency", {16, 32, 64}},
      {"seeds", {1}},
      {"requests_per_user", 4},
      {"max_requests", 256},
      {"target", {{"min_p90_tok_per_s_per_user", 50}, {"max_p90_ttft_ms", 2000}}}};
  auto pick = [&](const nlohmann::json& spec_json) {
    const auto spec = parse_sweep_spec(spec_json, "chat-doubling.json");
    const auto sweep = expand_sweep(spec, catalog());
    const auto cals = calibrations_for(sweep, catalog());
    std::vector<std::optional<PointPerf>> results(sweep.points.size());
    run_points(sweep, spec, cals, 1, results, [](std::size_t, const PointPerf&) {});
    SweepData d{&spec, &sweep, &cals, {}, nullptr};
    for (const auto& r : results) d.perf.push_back(*r);
    const auto ops = operating_points(d, make_groups(d));
    REQUIRE(ops.size() == 1);
    REQUIRE(ops[0].found());
    for (const auto& p : d.perf) CHECK_MESSAGE(p.stationary, p.why_not_stationary);
    return ops[0];
  };
  auto doubled = j;
  doubled["requests_per_user"] = 8;
  doubled["max_requests"] = 512;
  // A start that is not a power of two apart: runs that are not the same doubling ladder.
  auto between = j;
  between["requests_per_user"] = 6;
  between["max_requests"] = 384;
  const auto a = pick(j);
  for (const auto& other_json : {doubled, between}) {
    const auto b = pick(other_json);
    INFO("requests per user " << other_json["requests_per_user"] << ": picks at " << a.concurrency << " and "
                              << b.concurrency << " users");
    for (Metric m : {Metric::kTtftP90Ms, Metric::kOutputTokPerSPerGpu, Metric::kP90InteractivityTokPerSPerUser}) {
      auto half = [&](const OperatingPoint& op) {
        const double h = op.at(m).total_half_width();
        return std::isfinite(h) ? h : 0.0;
      };
      const double gap = std::abs(a.at(m).mean - b.at(m).mean);
      INFO(to_string(m) << ": " << a.at(m).mean << " ± " << half(a) << " vs " << b.at(m).mean << " ± " << half(b));
      // Throughput and interactivity carry no run interval (one seed, no model error here): their
      // picks must agree to 5%.
      constexpr double kNoIntervalTol = 0.05;
      CHECK(gap <= std::max(half(a) + half(b), kNoIntervalTol * std::abs(a.at(m).mean)));
    }
  }
}
