// Same configuration and seed, same summary, bit for bit (STYLE.md point 5).
#include "tests/test_serving_support.h"

using namespace tycoon;
using namespace tycoon::serving_test;

namespace {

void check_identical(const serving::ServingSummary& a, const serving::ServingSummary& b) {
  auto same = [](const serving::LatencyStats& x, const serving::LatencyStats& y) {
    return x.mean == y.mean && x.p50 == y.p50 && x.p90 == y.p90 && x.p99 == y.p99;
  };
  CHECK(same(a.ttft_s, b.ttft_s));
  CHECK(same(a.tpot_s, b.tpot_s));
  CHECK(same(a.itl_s, b.itl_s));
  CHECK(same(a.e2e_s, b.e2e_s));
  CHECK(a.output_tok_per_s_per_gpu == b.output_tok_per_s_per_gpu);
  CHECK(a.p90_interactivity_tok_per_s_per_user == b.p90_interactivity_tok_per_s_per_user);
  CHECK(a.requests_arrived == b.requests_arrived);
  CHECK(a.requests_completed == b.requests_completed);
  CHECK(a.requests_failed == b.requests_failed);
  CHECK(a.cached_input_tokens == b.cached_input_tokens);
  CHECK(a.output_tokens == b.output_tokens);
  CHECK(a.simulated_time_s == b.simulated_time_s);
  CHECK(a.num_iterations == b.num_iterations);
  CHECK(a.num_preemptions == b.num_preemptions);
  CHECK(a.time_by_op_s == b.time_by_op_s);
  CHECK(a.requests_per_replica == b.requests_per_replica);
}

serving::ServingConfig busy_config(std::uint64_t seed) {
  // Everything random at once: agentic sessions with think times, bursty arrivals, spec
  // decoding draws, two replicas with prefix-affinity routing, a cache small enough to preempt.
  auto cfg = gpt_oss_h200(true);
  cfg.deployment.spec_decode = data::SpecDecode{"eagle3", 3, 2.31};
  cfg.workload.kind = serving::WorkloadKind::kAgenticCoding;
  cfg.arrival.kind = serving::ArrivalKind::kBursty;
  cfg.arrival.rate_per_s = 0.5;
  cfg.replicas = 2;
  cfg.router = serving::RouterKind::kPrefixAffinity;
  cfg.scheduler.kv_capacity_tokens = 400000;
  cfg.num_requests = 150;
  cfg.seed = seed;
  return cfg;
}

}  // namespace

TEST_CASE("the same seed gives the same summary") {
  auto a = serving::simulate(busy_config(42), h200_calibration());
  auto b = serving::simulate(busy_config(42), h200_calibration());
  CHECK(a.requests_completed > 0);
  check_identical(a, b);

  SUBCASE("and another seed gives another run") {
    auto c = serving::simulate(busy_config(43), h200_calibration());
    CHECK(c.simulated_time_s != a.simulated_time_s);
  }
}

TEST_CASE("a progress observer sees the run advance and changes nothing in its result") {
  // `tycoon benchmark` prints progress from this callback (the simulator prints nothing). An open
  // loop of 20,000 requests has one arrival event per request, so more than kProgressEvents
  // (16,384) events: the observer must be called at least once (engine steps add more events;
  // the decode fast path folds many steps into one, so they are no lower bound). What it sees
  // only grows, never passes the requests the run sends, and the summary is the same bytes as
  // without an observer (exact comparison: same events in the same order).
  auto cfg = gpt_oss_h200();
  cfg.arrival.kind = serving::ArrivalKind::kPoisson;
  cfg.arrival.rate_per_s = 20;
  cfg.num_requests = 20000;
  REQUIRE(cfg.num_requests > serving::kProgressEvents);
  std::vector<serving::ServingProgress> seen;
  auto observed =
      serving::simulate(cfg, h200_calibration(), [&](const serving::ServingProgress& p) { seen.push_back(p); });
  auto plain = serving::simulate(cfg, h200_calibration());
  check_identical(observed, plain);
  REQUIRE(!seen.empty());
  for (std::size_t i = 0; i < seen.size(); ++i) {
    CHECK(seen[i].requests_expected == 20000);
    CHECK(seen[i].requests_ended <= 20000);
    CHECK(seen[i].duration_s == 0);
    if (i > 0) {
      CHECK(seen[i].requests_ended >= seen[i - 1].requests_ended);
      CHECK(seen[i].simulated_s >= seen[i - 1].simulated_s);
    }
  }
  CHECK(seen.back().simulated_s <= plain.simulated_time_s);
  CHECK(seen.back().requests_ended > 0);

  SUBCASE("a short run ends before the first report: the observer is not called") {
    cfg.num_requests = 10;
    seen.clear();
    serving::simulate(cfg, h200_calibration(), [&](const serving::ServingProgress& p) { seen.push_back(p); });
    CHECK(seen.empty());
  }
}
