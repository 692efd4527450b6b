// Speculative decoding: accepted tokens per step average the configured acceptance length.
#include "tests/test_serving_support.h"

#include "sim/serving/spec_decode.h"

using namespace tycoon;
using namespace tycoon::serving_test;
using serving::AcceptanceSampler;

TEST_CASE("accepted tokens per step average the acceptance length") {
  struct Case {
    int k;
    double acceptance;
  };
  // Seed 000: GPT-OSS-120B, 3 EAGLE-3 drafts, 2.31; Nemotron 3 Ultra 3.69; Kimi K3 3.0-3.75.
  for (Case c : {Case{3, 2.31}, Case{7, 2.76}, Case{3, 3.69}, Case{4, 3.75}, Case{1, 1.5}}) {
    CAPTURE(c.k);
    CAPTURE(c.acceptance);
    AcceptanceSampler s(c.k, c.acceptance);
    CHECK(s.mean() == doctest::Approx(c.acceptance).epsilon(1e-9));
    core::RngStream rng(17, core::RngPurpose::kAcceptance);
    constexpr int kDraws = 200000;
    double sum = 0;
    for (int i = 0; i < kDraws; ++i) {
      int a = s.draw(rng);
      REQUIRE(a >= 1);
      REQUIRE(a <= c.k + 1);
      sum += a;
    }
    // The per-step count has variance below (k + 1)^2 / 4; over 200,000 draws the mean's
    // standard error is below (k + 1) / 900, and 0.02 is more than 4 of them for k <= 7.
    constexpr double kMeanTol = 0.02;
    CHECK(std::abs(sum / kDraws - c.acceptance) < kMeanTol);
  }
}

TEST_CASE("acceptance extremes and bad values") {
  core::RngStream rng(1, core::RngPurpose::kAcceptance);
  AcceptanceSampler none(3, 1.0), all(3, 4.0);
  for (int i = 0; i < 1000; ++i) {
    CHECK(none.draw(rng) == 1);
    CHECK(all.draw(rng) == 4);
  }
  CHECK_THROWS_AS(AcceptanceSampler(3, 4.5), std::invalid_argument);
  CHECK_THROWS_AS(AcceptanceSampler(3, 0.9), std::invalid_argument);
}

TEST_CASE("in the simulation, one long answer takes output / acceptance decode steps") {
  // 20,001 output tokens after a 100-token prompt: 20,000 tokens from decode steps emitting
  // 2.31 on average (3 drafts), i.e. ~8,658 steps; the step count's relative standard error is
  // ~0.5% here, so 2% is a wide margin.
  auto path = write_trace("spec_long", {R"({"arrival_s": 0, "input_tokens": 100, "output_tokens": 20001})"});
  auto cfg = with_trace(gpt_oss_h200(), path);
  cfg.deployment.spec_decode = data::SpecDecode{"eagle3", 3, 2.31};
  auto s = serving::simulate(cfg, h200_calibration());
  CHECK(s.requests_completed == 1);
  CHECK(s.output_tokens == 20001);
  const double steps = static_cast<double>(s.num_iterations - 1);
  CHECK(20000.0 / steps == doctest::Approx(2.31).epsilon(0.02));
}
