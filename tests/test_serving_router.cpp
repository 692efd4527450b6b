// Replicas behind a router: load is spread, and prefix affinity keeps sessions on their cache.
#include "tests/test_serving_support.h"

#include <algorithm>

using namespace tycoon;
using namespace tycoon::serving_test;

TEST_CASE("round-robin gives each of 4 replicas exactly a quarter of the requests") {
  auto cfg = gpt_oss_h200();
  cfg.replicas = 4;
  cfg.router = serving::RouterKind::kRoundRobin;
  cfg.arrival.kind = serving::ArrivalKind::kPoisson;
  cfg.arrival.rate_per_s = 20;
  cfg.workload.input_tokens = 512;
  cfg.workload.output_tokens = 64;
  cfg.num_requests = 200;
  auto s = serving::simulate(cfg, h200_calibration());
  REQUIRE(s.requests_per_replica.size() == 4);
  for (auto n : s.requests_per_replica) CHECK(n == 50);
  CHECK(s.num_gpus == 4);
}

TEST_CASE("least-outstanding spreads closed-loop users evenly") {
  // 32 users over 4 replicas: each replica keeps ~8 outstanding, so each receives ~1/4 of the
  // 320 requests; we allow 15% either way.
  auto cfg = gpt_oss_h200();
  cfg.replicas = 4;
  cfg.router = serving::RouterKind::kLeastOutstanding;
  cfg.arrival.concurrency = 32;
  cfg.workload.input_tokens = 1024;
  cfg.workload.output_tokens = 128;
  cfg.num_requests = 320;
  auto s = serving::simulate(cfg, h200_calibration());
  for (auto n : s.requests_per_replica) CHECK(std::abs(static_cast<double>(n) - 80.0) <= 12.0);

  SUBCASE("and serves more per GPU-second than one replica per 8 users would lose") {
    // Four replicas at 8 users each run smaller batches than one at 32: per-GPU throughput
    // drops but per-user interactivity rises.
    auto one = cfg;
    one.replicas = 1;
    auto single = serving::simulate(one, h200_calibration());
    CHECK(s.p90_interactivity_tok_per_s_per_user > single.p90_interactivity_tok_per_s_per_user);
    CHECK(s.output_tok_per_s_per_gpu < single.output_tok_per_s_per_gpu);
  }
}

TEST_CASE("prefix affinity keeps multi-turn sessions on the replica that caches them") {
  // Chat conversations resend their history. Round-robin scatters a conversation's turns over
  // 4 replicas (a cache hit needs the same replica: ~1 in 4); prefix affinity sends each turn
  // back to its history.
  auto cfg = gpt_oss_h200();
  cfg.replicas = 4;
  cfg.workload.kind = serving::WorkloadKind::kChat;
  cfg.workload.input_tokens = 400;
  cfg.workload.output_tokens = 200;
  cfg.arrival.kind = serving::ArrivalKind::kPoisson;
  cfg.arrival.rate_per_s = 2;
  cfg.num_requests = 400;
  cfg.router = serving::RouterKind::kRoundRobin;
  auto rr = serving::simulate(cfg, h200_calibration());
  cfg.router = serving::RouterKind::kPrefixAffinity;
  auto affinity = serving::simulate(cfg, h200_calibration());
  CHECK(affinity.prefix_cache_hit_rate > rr.prefix_cache_hit_rate + 0.15);
  for (auto n : affinity.requests_per_replica) CHECK(n > 40);  // still spread, not pinned to one
}
