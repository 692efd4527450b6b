// What a request pays outside the GPU step: the engine's API server charges a
// fixed per-request latency and tokenizes prompts on one first-come-first-served CPU lane before
// the scheduler sees them; an offline benchmark (token ids in) pays neither.
#include <algorithm>
#include <cmath>
#include <vector>

#include "tests/test_serving_support.h"

using namespace tycoon;
using namespace tycoon::serving_test;

namespace {

// `users` users, one exact-length random request each, all sent at t = 0.
serving::ServingConfig one_round(const data::Engine& engine, int users, std::int64_t isl) {
  auto cfg = gpt_oss_h200();
  cfg.deployment.engine = &engine;
  cfg.api_server = true;  // text in, as a served benchmark sends it
  cfg.workload.kind = serving::WorkloadKind::kRandom;
  cfg.workload.input_tokens = isl;
  cfg.workload.output_tokens = 16;
  cfg.workload.input_range_ratio = 1.0;
  cfg.workload.output_range_ratio = 1.0;
  cfg.arrival.concurrency = users;
  cfg.num_requests = users;
  return cfg;
}

std::vector<double> ttfts(const serving::Simulation& sim) {
  std::vector<double> out;
  for (const auto& r : sim.requests()) out.push_back(core::to_seconds(r.first_token_at - r.arrived_at));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("the API server's per-request latency is added to the TTFT of an idle engine, and --offline skips it") {
  const auto& cal = h200_calibration();
  const data::Engine& vllm = catalog().engine("vllm");
  // The engine card's figure (vLLM PR #21139: 12 ms of V1 front-end preprocessing per request).
  REQUIRE(vllm.frontend_request_s == doctest::Approx(0.012));
  auto cfg = one_round(vllm, 1, 1024);
  serving::Simulation served(cfg, cal);
  served.run();
  cfg.api_server = false;
  serving::Simulation offline(cfg, cal);
  offline.run();
  // One request on an idle engine: its GPU work is the same, shifted by the front end. The
  // 1,024-token prompt tokenizes in 1,024 x 2.07 us = 2.1 ms, inside the 12 ms request latency
  // (both run concurrently), so the difference is the 12 ms alone.
  constexpr double kEventTimeRounding = 1e-8;  // two conversions to integer event time
  CHECK(std::abs(ttfts(served)[0] - ttfts(offline)[0] - 0.012) < kEventTimeRounding);
}

TEST_CASE("prompts tokenize one after another on the front end's lane") {
  const auto& cal = h200_calibration();
  // A slow tokenizer (1 ms per token, 100-token prompts: 0.1 s each) and no fixed latency, so
  // the lane decides: the k-th of 4 prompts sent together reaches the engine at (k + 1) x 0.1 s,
  // and its first token cannot come earlier. Were the lane parallel, all four would reach the
  // engine at 0.1 s and the last TTFT would be about 0.1 s plus a step.
  data::Engine slow = catalog().engine("vllm");
  slow.frontend_request_s = 0;
  slow.tokenize_s_per_input_token = 1e-3;
  serving::Simulation sim(one_round(slow, 4, 100), cal);
  sim.run();
  const auto t = ttfts(sim);
  REQUIRE(t.size() == 4);
  for (std::size_t k = 0; k < 4; ++k) CHECK(t[k] >= 0.1 * static_cast<double>(k + 1));
  // ... and no later than that plus one short step (a 100-token prefill takes well under 50 ms).
  constexpr double kOneShortStep = 0.05;
  CHECK(t[3] < 0.4 + kOneShortStep);
}

TEST_CASE("engine cards without front-end figures charge nothing") {
  const auto& cal = h200_calibration();
  data::Engine bare = catalog().engine("vllm");
  bare.frontend_request_s = 0;
  bare.tokenize_s_per_input_token = 0;
  auto cfg = one_round(bare, 2, 1024);
  serving::Simulation with_server(cfg, cal);
  with_server.run();
  cfg.api_server = false;
  serving::Simulation without(cfg, cal);
  without.run();
  CHECK(ttfts(with_server) == ttfts(without));
}
