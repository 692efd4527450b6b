// Property test: over many random seeds and configurations, every request ends in exactly one
// terminal state and is counted, no KV block leaks, and no metric is NaN.
#include "tests/test_serving_support.h"

using namespace tycoon;
using namespace tycoon::serving_test;

namespace {

struct Drawn {
  serving::ServingConfig config;
  std::string description;
};

Drawn draw_config(std::uint64_t seed) {
  core::RngStream r(seed, core::RngPurpose::kAdvisor);
  auto pick = [&](int n) { return static_cast<int>(r.uniform_int(0, n - 1)); };
  Drawn out{gpt_oss_h200(pick(2) == 1), ""};
  auto& c = out.config;
  c.seed = seed;
  c.workload.kind = static_cast<serving::WorkloadKind>(pick(5));  // every shape but trace
  c.workload.input_tokens = r.uniform_int(16, 3000);
  c.workload.output_tokens = r.uniform_int(1, 400);
  c.arrival.kind = static_cast<serving::ArrivalKind>(pick(4));
  c.arrival.concurrency = static_cast<int>(r.uniform_int(1, 48));
  c.arrival.rate_per_s = 0.5 + 20 * r.uniform01();
  c.arrival.burst_factor = 1.5 + 4 * r.uniform01();
  c.arrival.diurnal_amplitude = r.uniform01();
  c.replicas = static_cast<int>(r.uniform_int(1, 4));
  c.router = static_cast<serving::RouterKind>(pick(3));
  c.num_requests = r.uniform_int(10, 120);
  if (pick(4) == 0) {
    c.duration_s = 5 + 60 * r.uniform01();
    if (pick(2) == 0) c.num_requests = 0;
  }
  if (pick(3) == 0) c.warmup_s = 10 * r.uniform01();
  auto& sc = c.scheduler;
  sc.max_num_seqs = static_cast<int>(r.uniform_int(1, 64));
  sc.max_num_batched_tokens = static_cast<int>(r.uniform_int(512, 8192));
  sc.chunked_prefill = pick(4) != 0;
  sc.prefix_caching = pick(4) != 0;
  // Tiny caches force preemption; some requests then exceed the whole cache and fail.
  sc.kv_capacity_tokens = pick(2) == 0 ? r.uniform_int(2000, 20000) : 0;
  if (pick(3) == 0) sc.queue_timeout_s = 0.05 + 5 * r.uniform01();
  if (pick(3) == 0) sc.max_queue = static_cast<int>(r.uniform_int(0, 20));
  if (pick(3) == 0) sc.kv_admission = serving::KvAdmission::kGuaranteedNoEvict;
  if (c.deployment.spec_decode) {
    int k = static_cast<int>(r.uniform_int(1, 7));
    c.deployment.spec_decode->num_draft_tokens = k;
    c.deployment.spec_decode->acceptance_length = 1 + k * r.uniform01();
    sc.max_num_batched_tokens = std::max(sc.max_num_batched_tokens, 1 + k);
  }
  out.description = "seed " + std::to_string(seed) + ": " +
                    std::string(serving::kWorkloadNames[static_cast<std::size_t>(c.workload.kind)]) + " " +
                    std::to_string(c.workload.input_tokens) + "/" + std::to_string(c.workload.output_tokens) + ", " +
                    std::string(serving::kArrivalNames[static_cast<std::size_t>(c.arrival.kind)]) + ", " +
                    std::to_string(c.replicas) + " replicas, kv " + std::to_string(sc.kv_capacity_tokens) + ", seqs " +
                    std::to_string(sc.max_num_seqs) + ", spec " + (c.deployment.spec_decode ? "on" : "off") + ", " +
                    std::string(serving::kKvAdmissionNames[static_cast<std::size_t>(sc.kv_admission)]);
  return out;
}

bool all_finite(const serving::ServingSummary& s) {
  bool ok = finite(s.ttft_s) && finite(s.tpot_s) && finite(s.itl_s) && finite(s.e2e_s);
  for (double x : {s.output_tok_per_s_per_gpu, s.p90_interactivity_tok_per_s_per_user, s.prefix_cache_hit_rate,
                   s.simulated_time_s, s.mean_batch_size, s.kv_utilization_mean}) {
    ok = ok && std::isfinite(x) && x >= 0;
  }
  for (double t : s.time_by_op_s) ok = ok && std::isfinite(t) && t >= 0;
  return ok;
}

}  // namespace

TEST_CASE("invariants hold over 60 random seeds and configurations") {
  constexpr int kConfigs = 60;
  int with_preemption = 0, with_failures = 0;
  for (std::uint64_t seed = 1; seed <= kConfigs; ++seed) {
    auto drawn = draw_config(seed);
    INFO(drawn.description);
    serving::Simulation sim(drawn.config, h200_calibration());
    serving::ServingSummary s;
    REQUIRE_NOTHROW(s = sim.run());
    // Exactly one terminal state per request, and every one counted.
    CHECK(s.requests_arrived == s.requests_completed + s.requests_failed);
    CHECK(s.requests_failed >= s.requests_rejected + s.requests_timed_out);
    CHECK(sim.num_terminal_transitions() == s.requests_arrived);
    std::int64_t routed = 0;
    for (auto n : s.requests_per_replica) routed += n;
    CHECK(routed + s.requests_exceeding_context == s.requests_arrived);
    for (const auto& r : sim.requests()) {
      CHECK(r.ended);
      CHECK(serving::is_terminal(r.state));
      if (r.state == serving::RequestState::kCompleted) {
        CHECK(r.num_output == r.output_tokens);
        CHECK(r.first_token_at >= r.arrived_at);
        CHECK(r.finished_at >= r.first_token_at);
      } else {
        CHECK(r.blocks.empty());
      }
    }
    // No KV block leaks: nothing referenced or reserved once everyone has left.
    CHECK(sim.kv_blocks_in_use() == 0);
    CHECK(sim.kv_invariants_hold());
    CHECK(all_finite(s));
    CHECK(s.prefix_cache_hit_rate <= 1.0);
    if (drawn.config.num_requests > 0)
      CHECK(s.requests_arrived - s.requests_exceeding_context <= drawn.config.num_requests);
    with_preemption += s.num_preemptions > 0;
    with_failures += s.requests_failed > 0;
  }
  // The draw must actually exercise the hard paths.
  CHECK(with_preemption >= 5);
  CHECK(with_failures >= 5);
}
