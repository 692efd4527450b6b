// The steady-state rule of benchmarks and sweep points (sim/serving/steady_state.h): MSER-5 cuts
// the warm-up, batch means give each P90 its interval, and a run grows until the intervals are
// narrow — so that a figure does not depend on how many requests the analyst asked for.
#include <cmath>
#include <vector>

#include "sim/serving/steady_state.h"
#include "tests/test_serving_support.h"

using namespace tycoon;
using namespace tycoon::serving_test;

namespace {

// Chat on GPT-OSS-120B / H200, `users` closed-loop users starting together: every user's first
// turn arrives at t = 0 with no prefix cached, the cold start the rule has to cut.
serving::ServingConfig chat(int users, std::int64_t num_requests) {
  auto cfg = gpt_oss_h200();
  cfg.workload.kind = serving::WorkloadKind::kChat;
  cfg.workload.input_tokens = 1024;
  cfg.workload.output_tokens = 1024;
  cfg.arrival.concurrency = users;
  cfg.num_requests = num_requests;
  return cfg;
}

}  // namespace

TEST_CASE("MSER-5 cuts a level shift at its start and says when the drift lasts past half the run") {
  // 100 slow values (a cold start), then 900 alternating 1.0 / 1.2: the variance of the mean of
  // what is left is least when exactly the 20 slow batches of five are dropped.
  std::vector<double> shifted(100, 10.0);
  for (int i = 0; i < 900; ++i) shifted.push_back(i % 2 ? 1.2 : 1.0);
  const auto cut = serving::mser5(shifted);
  CHECK(cut.cut == 100);
  CHECK_FALSE(cut.past_half);

  // A series that rises to its end never settles: the least lies at the last cut allowed.
  std::vector<double> rising;
  for (int i = 0; i < 1000; ++i) rising.push_back(static_cast<double>(i));
  CHECK(serving::mser5(rising).past_half);

  // A stationary series loses nothing.
  CHECK(serving::mser5(std::vector<double>(1000, 2.0)).cut == 0);
}

TEST_CASE("a P90's batch-means interval: zero for a constant series, none with too few values") {
  const auto flat = serving::p90_batch_means(std::vector<double>(400, 0.25));
  CHECK(flat.value == doctest::Approx(0.25));
  CHECK(flat.half_width == doctest::Approx(0.0));
  // 10 batches of at least 10 values: 99 values give a P90 but no interval.
  const auto few = serving::p90_batch_means(std::vector<double>(99, 0.25));
  CHECK(few.value == doctest::Approx(0.25));
  CHECK(std::isnan(few.half_width));
  // Values 0..999 in order: each batch of 100 has its own P90 (89.1 + 100 k), so the batch P90s
  // spread like 0..900 in steps of 100: sd 302.8, half width 2.262 × 302.8 / √10 = 216.6.
  std::vector<double> ramp;
  for (int i = 0; i < 1000; ++i) ramp.push_back(i);
  const auto r = serving::p90_batch_means(ramp);
  constexpr double kHalfWidthTol = 1e-3;
  CHECK(r.half_width == doctest::Approx(2.262 * 302.7650354 / std::sqrt(10.0)).epsilon(kHalfWidthTol));
}

TEST_CASE("a warm-up in seconds after a warm-up in requests: counting starts at the later of the two") {
  const auto& cal = h200_calibration();
  auto cfg = gpt_oss_h200();
  cfg.workload.input_tokens = 1024;
  cfg.workload.output_tokens = 256;
  cfg.arrival.concurrency = 8;
  cfg.num_requests = 64;
  cfg.warmup_requests = 16;
  serving::Simulation plain(cfg, cal);
  plain.run();
  cfg.warmup_s = 30;
  serving::Simulation cut(cfg, cal);
  cut.run();
  // The same events (the cut only changes what is counted), and nothing before 30 s counted.
  REQUIRE(plain.requests().size() == cut.requests().size());
  int counted_plain = 0, counted_cut = 0;
  for (std::size_t i = 0; i < cut.requests().size(); ++i) {
    const auto& a = plain.requests()[i];
    const auto& b = cut.requests()[i];
    CHECK(a.finished_at == b.finished_at);
    counted_plain += a.counted;
    counted_cut += b.counted;
    if (b.counted) CHECK(b.arrived_at - core::kSimStart >= core::from_seconds(30.0));
  }
  CHECK(counted_plain == 64);
  CHECK(counted_cut < counted_plain);
}

TEST_CASE("chat at 64 users: the cold start is cut, and the P90 TTFT does not depend on the starting count") {
  // The issue this rule answers: with a fixed count the first turns' cold prefills (every user's
  // whole prompt at t = 0) dominate a short run's P90 TTFT, which then falls as the run grows.
  // Under the rule, a run started at 5 and at 10 requests per user lands on the same P90 within
  // the two intervals.
  const auto& cal = h200_calibration();
  const auto a = serving::run_to_steady_state(chat(64, 320), cal);
  const auto b = serving::run_to_steady_state(chat(64, 640), cal);
  INFO(serving::describe(a.steady));
  INFO(serving::describe(b.steady));
  CHECK(a.steady.stationary);
  CHECK(b.steady.stationary);
  CHECK(a.steady.warmup_requests > 0);  // the cold start was cut
  const double gap_s = std::abs(a.summary.ttft_s.p90 - b.summary.ttft_s.p90);
  CHECK(gap_s <= a.steady.ttft_p90_s.half_width + b.steady.ttft_p90_s.half_width);
  // The reported figures are the cut run's: its P90 is the judged series' P90.
  constexpr double kSameSeriesTol = 1e-9;
  CHECK(a.summary.ttft_s.p90 == doctest::Approx(a.steady.ttft_p90_s.value).epsilon(kSameSeriesTol));
}

TEST_CASE("an explicit short run is judged, not grown: too few requests for a P90 interval") {
  const auto& cal = h200_calibration();
  const auto run = serving::run_and_judge(chat(64, 128), cal);
  CHECK(run.config.num_requests == 128);
  CHECK_FALSE(run.steady.stationary);
  CHECK_FALSE(run.steady.why_not.empty());
}

TEST_CASE("a run that never settles climbs its doubling ladder to the cap, and the bound counts every rung") {
  // A rule no run meets (no interval is narrower than zero): the run starts at the least a growing
  // run starts with (2 × 10 batches × 10 = 200 requests), doubles to the 800-request cap, and stops
  // there. steady_requests_bound is that ladder, 200 + 400 + 800, plus a re-run of the cap from the
  // warm-up cut: 2,200 requests — what the sweep's long-run guard quotes as the most a point may take.
  const auto& cal = h200_calibration();
  serving::SteadyStateRule never;
  never.max_relative_half_width = 0;
  never.max_requests = 800;
  const auto config = chat(16, 160);
  CHECK(serving::steady_requests_bound(config, never) == 2200);
  const auto run = serving::run_to_steady_state(config, cal, never);
  CHECK_FALSE(run.steady.stationary);
  CHECK(run.config.num_requests == 800);
  CHECK(run.steady.num_runs == (run.steady.warmup_requests > 0 ? 4 : 3));
  // A run that also stops on a span cannot grow: its 160 requests, and again from the warm-up cut.
  auto by_span = config;
  by_span.warmup_requests = 0;
  by_span.duration_s = 60;
  CHECK(serving::steady_requests_bound(by_span, never) == 320);
}
