// Running sweeps: the same points whatever the number of workers, a resumed sweep recomputes
// nothing it already has, and more seeds narrow the confidence intervals.
#include <atomic>
#include <cmath>
#include <set>
#include <sstream>

#include "sim/analysis/sweep_report.h"
#include "sim/analysis/sweep_run.h"
#include "tests/test_analysis_support.h"

using namespace tycoon;
using namespace tycoon::analysis;
using analysis_test::catalog;
using analysis_test::tiny_spec;

namespace {

struct Ran {
  SweepSpec spec;
  ExpandedSweep sweep;
  CalibrationSet calibrations;
  std::vector<std::optional<PointPerf>> results;
  std::vector<std::size_t> completion_order;
};

Ran run(const nlohmann::json& j, int jobs) {
  Ran r;
  r.spec = parse_sweep_spec(j, "spec.json");
  r.sweep = expand_sweep(r.spec, catalog());
  r.calibrations = calibrations_for(r.sweep, catalog());
  r.results.resize(r.sweep.points.size());
  run_points(r.sweep, r.spec, r.calibrations, jobs, r.results,
             [&](std::size_t i, const PointPerf&) { r.completion_order.push_back(i); });
  return r;
}

SweepData data_of(const Ran& r) {
  SweepData d{&r.spec, &r.sweep, &r.calibrations, {}};
  for (const auto& p : r.results) d.perf.push_back(*p);
  return d;
}

std::string csv_of(const Ran& r) {
  std::ostringstream o;
  write_points_csv(o, data_of(r));
  return o.str();
}

}  // namespace

TEST_CASE("a sweep's output does not depend on the number of workers") {
  // Each point is a pure function of its inputs and results land by index, so one worker and
  // two workers give byte-identical CSV and summary even though completion order may differ.
  const auto one = run(tiny_spec(), 1);
  const auto two = run(tiny_spec(), 2);
  REQUIRE(one.results.size() == 8);
  CHECK(one.completion_order.size() == 8);
  CHECK(csv_of(one) == csv_of(two));
  const auto d1 = data_of(one), d2 = data_of(two);
  CHECK(summary_json(d1, make_groups(d1)).dump() == summary_json(d2, make_groups(d2)).dump());
  for (const auto& p : one.results) {
    CHECK(p->error.empty());
    CHECK(p->output_tok_per_s_per_gpu > 0);
    CHECK(p->provenance != perf::Provenance::kDatasheet);  // H200 has measured curves
  }
}

TEST_CASE("a resumed sweep simulates only the points it lacks") {
  auto full = run(tiny_spec(), 1);
  // Keep points 0, 3 and 5 as if journaled before an interruption; the rest must run again.
  std::vector<std::optional<PointPerf>> partial(full.results.size());
  for (std::size_t i : {0u, 3u, 5u}) partial[i] = full.results[i];
  std::vector<std::size_t> ran;
  run_points(full.sweep, full.spec, full.calibrations, 2, partial,
             [&](std::size_t i, const PointPerf&) { ran.push_back(i); });
  CHECK(ran.size() == 5);
  CHECK(std::set<std::size_t>(ran.begin(), ran.end()) == std::set<std::size_t>{1, 2, 4, 6, 7});
  // And the journal format round-trips exactly, so resumed points report the same bytes.
  for (std::size_t i = 0; i < full.results.size(); ++i) {
    CHECK(PointPerf::from_json(nlohmann::json::parse(full.results[i]->to_json().dump())).to_json() ==
          full.results[i]->to_json());
    CHECK(partial[i]->to_json() == full.results[i]->to_json());
  }
}

TEST_CASE("a stop request lets the points in flight finish and leaves the others to --resume") {
  const auto spec = parse_sweep_spec(tiny_spec(), "spec.json");
  const auto sweep = expand_sweep(spec, catalog());
  const auto calibrations = calibrations_for(sweep, catalog());
  std::vector<std::optional<PointPerf>> results(sweep.points.size());
  // One worker, stop requested by the first finished point (as SIGINT would): exactly that point is
  // kept and handed to on_done, no other is started.
  std::atomic<bool> stop{false};
  std::vector<std::size_t> done;
  run_points(
      sweep, spec, calibrations, 1, results,
      [&](std::size_t i, const PointPerf&) {
        done.push_back(i);
        stop.store(true);
      },
      &stop);
  CHECK(done == std::vector<std::size_t>{0});
  CHECK(results[0].has_value());
  for (std::size_t i = 1; i < results.size(); ++i) CHECK_FALSE(results[i].has_value());
}

TEST_CASE("the time estimate scales the measured point by requests x output tokens over the workers") {
  // tiny_spec: 256/64-token requests, 4 requests per user at concurrency 2 and 8: 8 and 32
  // requests, so a point's work is 8 x 64 = 512 or 32 x 64 = 2048 token-requests. Two configurations
  // x 2 concurrencies x 2 seeds = 8 points. Point 0 (concurrency 2) measured at 0.5 s: 0.5 / 512 s
  // per unit. Left after it: 3 points at concurrency 2 and 4 at 8 = 3 x 512 + 4 x 2048 = 9728 units,
  // 9.5 s of one worker, 4.75 s on 2 workers.
  constexpr double kEstimateTol = 1e-12;  // plain arithmetic
  const auto spec = parse_sweep_spec(tiny_spec(), "spec.json");
  const auto sweep = expand_sweep(spec, catalog());
  REQUIRE(sweep.points.size() == 8);
  CHECK(point_work(sweep, spec, sweep.points[0]) == doctest::Approx(512).epsilon(kEstimateTol));
  std::vector<std::optional<PointPerf>> results(sweep.points.size());
  results[0] = PointPerf{};
  const auto e = estimate_sweep(sweep, spec, results, sweep.points[0], 0.5, 2);
  CHECK(e.num_points_left == 7);
  CHECK(e.work_left == doctest::Approx(9728).epsilon(kEstimateTol));
  CHECK(e.workers == 2);
  CHECK(e.wall_s == doctest::Approx(4.75).epsilon(kEstimateTol));
  // More jobs than points left: the points left are the workers (7), not the 64 jobs.
  CHECK(estimate_sweep(sweep, spec, results, sweep.points[0], 0.5, 64).workers == 7);
  // Above the confirmation threshold (30 min) only when the sweep is that long.
  CHECK(kConfirmSweepAboveS == 1800);
}

TEST_CASE("the point timed for the estimate is the median by work of the points left") {
  // Grid order: bf16 at concurrency 2 (seeds 1, 2: points 0, 1; work 512), at 8 (2, 3; 2048), then
  // fp8 (4, 5 at 2; 6, 7 at 8). By work: 0 1 4 5 | 2 3 6 7; the lower median of 8 is the 4th: point 5,
  // a cheap point, as half of them are. With points 0-4 done: 5 6 7 left, by work 5 | 6 7: point 6.
  const auto spec = parse_sweep_spec(tiny_spec(), "spec.json");
  const auto sweep = expand_sweep(spec, catalog());
  std::vector<std::optional<PointPerf>> results(sweep.points.size());
  CHECK(calibration_point(sweep, spec, results) == std::optional<std::size_t>{5});
  for (std::size_t i = 0; i < 5; ++i) results[i] = PointPerf{};
  CHECK(calibration_point(sweep, spec, results) == std::optional<std::size_t>{6});
  for (auto& r : results) r = PointPerf{};
  CHECK_FALSE(calibration_point(sweep, spec, results).has_value());
}

TEST_CASE("more seeds narrow the confidence interval of the mean") {
  // Chat traffic draws its lengths per request, so seeds differ. The 95% half width is
  // t(0.975, n-1) s / sqrt(n): from 3 to 12 seeds t falls 4.303 -> 2.201 and sqrt(n) grows 2x,
  // so at the same spread s the interval is 3.9x narrower. The spread itself is estimated from
  // the seeds (from 3 of them it is itself a rough draw: about one time in six it comes out under
  // half the true one), so the check is the formula on each run's own spread, and that the
  // 12-seed interval is 3.9x narrower than 3 seeds would give at the 12 seeds' spread.
  auto spec_for = [](int n) {
    std::vector<int> seeds;
    for (int s = 1; s <= n; ++s) seeds.push_back(s);
    auto j = tiny_spec(seeds);
    j["axes"] = {{"precision", {"bf16"}}};
    j["concurrency"] = {8};
    j["workloads"] = {{{"name", "chat"}, {"kind", "chat"}, {"input_tokens", 256}, {"output_tokens", 64}}};
    return j;
  };
  const auto few = run(spec_for(3), 2), many = run(spec_for(12), 2);
  const auto df = data_of(few), dm = data_of(many);
  const auto gf = make_groups(df), gm = make_groups(dm);
  const auto& hf = gf[0][Metric::kOutputTokPerSPerGpu];
  const auto& hm = gm[0][Metric::kOutputTokPerSPerGpu];
  CHECK(hf.n == 3);
  CHECK(hm.n == 12);
  REQUIRE(hf.stddev > 0);
  REQUIRE(hm.stddev > 0);
  constexpr double kFormulaTol = 1e-3;  // the t table's four digits
  CHECK(hf.half_width_95 == doctest::Approx(4.303 * hf.stddev / std::sqrt(3.0)).epsilon(kFormulaTol));
  CHECK(hm.half_width_95 == doctest::Approx(2.201 * hm.stddev / std::sqrt(12.0)).epsilon(kFormulaTol));
  const double three_seeds_at_this_spread = 4.303 * hm.stddev / std::sqrt(3.0);
  CHECK(hm.half_width_95 == doctest::Approx(three_seeds_at_this_spread / 3.912).epsilon(kFormulaTol));
}

TEST_CASE("a series with speculative decoding is extrapolated and says why; its interval is the extrapolated one") {
  // The H200's validation set has no speculative step, so a series that drafts tokens
  // carries the extrapolated class's error (hardware_db/model_error.json: 0.64) and names the
  // mechanism, while the same chip's plain series keeps the measured curves' label and error
  // (interpolated, 0.127). Two Llama-3.1-8B configurations on the H200, one seed.
  auto j = tiny_spec({1});
  j["axes"] = {{"spec_tokens", {0, 3}}};
  j["base"]["acceptance_length"] = 2.31;
  auto r = run(j, 1);
  auto errors = load_model_errors(TYCOON_SOURCE_DIR);
  SweepData d = data_of(r);
  d.errors = &errors;
  const auto summary = summary_json(d, make_groups(d));
  int plain = 0, drafting = 0;
  for (const auto& g : summary.at("groups")) {
    const auto tok = g.at("metrics").at("output_tok_per_s_per_gpu");
    const double relative_model = tok.at("model_error_half_width").get<double>() / tok.at("mean").get<double>();
    if (g.contains("outside_validation_set")) {
      ++drafting;
      CHECK(g.at("outside_validation_set") == "speculative decoding");
      CHECK(g.at("provenance") == "extrapolated");
      CHECK(relative_model == doctest::Approx(errors.of(perf::Provenance::kExtrapolated)).epsilon(1e-9));
    } else {
      ++plain;
      CHECK(g.at("provenance") == "interpolated");
      CHECK(relative_model == doctest::Approx(errors.of(perf::Provenance::kInterpolated)).epsilon(1e-9));
    }
  }
  CHECK(plain > 0);
  CHECK(drafting == plain);
  for (const auto& op : summary.at("operating_points")) {
    if (op.at("meets_target").get<bool>()) {
      CHECK(op.contains("outside_validation_set") == (op.at("provenance") == "extrapolated"));
    }
  }
}
