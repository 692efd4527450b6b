// The benchmark client (issue 16, item 2): closed-loop users as vLLM's benchmark_serving.py runs
// them for InferenceX: random lengths in [ratio x X, X] on input and output, a warm-up of
// requests that ends before the measured run, users released together or over a ramp-up.
#include <algorithm>
#include <map>

#include "tests/test_serving_support.h"

using namespace tycoon;
using namespace tycoon::serving_test;

namespace {

// 32 users, 1,024/1,024 random requests on GPT-OSS-120B / H200, no warm-up.
serving::ServingConfig closed_loop(double output_range_ratio) {
  auto cfg = gpt_oss_h200();
  cfg.workload.kind = serving::WorkloadKind::kRandom;
  cfg.workload.input_tokens = 1024;
  cfg.workload.output_tokens = 1024;
  cfg.workload.output_range_ratio = output_range_ratio;
  cfg.arrival.concurrency = 32;
  cfg.num_requests = 320;
  return cfg;
}

// The most requests that ended at one instant.
std::size_t largest_wave(const serving::Simulation& sim) {
  std::map<std::int64_t, std::size_t> at;
  std::size_t most = 0;
  for (const auto& r : sim.requests()) most = std::max(most, ++at[r.finished_at.time_since_epoch().count()]);
  return most;
}

}  // namespace

TEST_CASE("closed-loop users: exact output lengths finish in lock-step waves, jittered ones do not") {
  const auto& cal = h200_calibration();
  serving::Simulation exact(closed_loop(1.0), cal);
  exact.run();
  serving::Simulation jittered(closed_loop(0.8), cal);
  jittered.run();
  // Exact outputs: the users whose prompts were prefilled in the same step decode in lock-step
  // and end in the same step, then send their next prompts together, wave after wave (the first
  // wave's 32 prompts of 819-1,024 tokens fill four 8,192-token steps: ~8 per wave).
  CHECK(largest_wave(exact) >= 7);
  // Output lengths uniform on 206 values: two requests end together only by chance.
  CHECK(largest_wave(jittered) <= 3);
}

TEST_CASE("a warm-up of requests ends before the measured run starts, and counts nowhere") {
  const auto& cal = h200_calibration();
  auto cfg = closed_loop(0.8);
  cfg.warmup_requests = 64;  // InferenceX: 2 x concurrency
  serving::Simulation sim(cfg, cal);
  auto s = sim.run();
  const auto& rs = sim.requests();
  REQUIRE(rs.size() == 64 + 320);
  core::Time warmup_end{}, first_measured = core::kNever;
  for (std::size_t i = 0; i < rs.size(); ++i) {
    if (i < 64) {
      CHECK_FALSE(rs[i].counted);
      warmup_end = std::max(warmup_end, rs[i].finished_at);
    } else {
      CHECK(rs[i].counted);
      first_measured = std::min(first_measured, rs[i].arrived_at);
    }
  }
  // The barrier: the measured run starts when the last warm-up request ended, all 32 users at once.
  CHECK(first_measured == warmup_end);
  CHECK(std::count_if(rs.begin(), rs.end(), [&](const serving::Request& r) { return r.arrived_at == warmup_end; }) ==
        32);
  // Only the measured requests enter the metrics, and the throughput window starts at the barrier.
  std::int64_t measured_output = 0;
  core::Time last{};
  for (std::size_t i = 64; i < rs.size(); ++i) {
    measured_output += rs[i].num_output;
    last = std::max(last, rs[i].finished_at);
  }
  CHECK(s.requests_arrived == 384);
  CHECK(s.output_tokens == measured_output);
  constexpr double kRoundoff = 1e-12;
  CHECK(s.output_tok_per_s_per_gpu ==
        doctest::Approx(static_cast<double>(measured_output) / core::to_seconds(last - warmup_end)).epsilon(kRoundoff));
}

TEST_CASE("a ramp-up spreads the users' first requests evenly") {
  auto cfg = closed_loop(0.8);
  cfg.arrival.concurrency = 4;
  cfg.num_requests = 8;
  cfg.arrival.ramp_up_s = 0.4;
  serving::Simulation sim(cfg, h200_calibration());
  sim.run();
  // User k of 4 starts at k x 0.4 / 4 s; a request has at least 819 decode steps of over a
  // millisecond each, so the first four requests are the four users' first.
  const auto& rs = sim.requests();
  REQUIRE(rs.size() == 8);
  for (int k = 0; k < 4; ++k) {
    CHECK(rs[static_cast<std::size_t>(k)].arrived_at - core::kSimStart == core::from_seconds(0.1 * k));
  }
}

TEST_CASE("client settings that cannot run are refused with the reason") {
  const auto& cal = h200_calibration();
  auto cfg = closed_loop(0.8);
  cfg.warmup_requests = 10;
  cfg.warmup_s = 5;
  CHECK_THROWS_WITH_AS(serving::Simulation(cfg, cal), "give a warm-up either in requests or in seconds, not both",
                       std::invalid_argument);
  cfg.warmup_s = 0;
  cfg.arrival.kind = serving::ArrivalKind::kPoisson;
  cfg.arrival.rate_per_s = 1;
  CHECK_THROWS_WITH_AS(serving::Simulation(cfg, cal), "a warm-up in requests needs closed-loop users",
                       std::invalid_argument);
  cfg = closed_loop(1.5);
  CHECK_THROWS_WITH_AS(serving::Simulation(cfg, cal), "random range ratios must be in [0, 1]", std::invalid_argument);
}
