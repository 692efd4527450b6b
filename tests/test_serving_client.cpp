// The benchmark client: closed-loop users as vLLM's benchmark_serving.py runs
// them for InferenceX: random lengths in [ratio x X, X] on input and output, a warm-up of
// requests that ends before the measured run, users released together or over a ramp-up.
#include <algorithm>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

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
  cfg.arrival.kind = serving::ArrivalKind::kPoisson;
  cfg.arrival.rate_per_s = 1;
  CHECK_THROWS_WITH_AS(serving::Simulation(cfg, cal), "a warm-up in requests needs closed-loop users",
                       std::invalid_argument);
  cfg = closed_loop(1.5);
  CHECK_THROWS_WITH_AS(serving::Simulation(cfg, cal), "random range ratios must be in [0, 1]", std::invalid_argument);
}

TEST_CASE("an idle cap shortens the pauses only while the whole system sits idle") {
  // The later AgentX replays keep every recorded pause but let the system sit idle at most 10 s
  // (AIPerf's inferencex-agentx-mvp scenario, system_idle_gap_cap_seconds=10.0): when no request
  // is in flight for that long, the user due first sends now and every other waiting user's turn
  // moves earlier by the same amount (the replay skips the idle time). With 4 users and the recorded
  // pauses uncapped (mean 172 s), no idle stretch of the system may pass 10 s, while a single
  // user may still pause longer than that as long as another one works.
  auto cfg = gpt_oss_h200();
  cfg.workload.kind = serving::WorkloadKind::kAgenticCoding;
  cfg.workload.max_pause_s = 0;
  cfg.arrival.concurrency = 4;
  cfg.duration_s = 3600;
  cfg.arrival.idle_cap_s = 10;
  serving::Simulation capped(cfg, h200_calibration());
  capped.run();
  cfg.arrival.idle_cap_s = 0;
  serving::Simulation uncapped(cfg, h200_calibration());
  uncapped.run();

  // The longest stretch with no request in flight, and the longest pause of one user.
  auto longest = [](const serving::Simulation& sim, double* user_pause) {
    std::vector<std::pair<core::Time, core::Time>> spans;
    std::map<std::uint32_t, core::Time> last_end;
    *user_pause = 0;
    for (const auto& r : sim.requests()) spans.emplace_back(r.arrived_at, r.finished_at);
    std::sort(spans.begin(), spans.end());
    for (const auto& r : sim.requests()) {
      if (auto it = last_end.find(r.session); it != last_end.end() && r.arrived_at > it->second) {
        *user_pause = std::max(*user_pause, core::to_seconds(r.arrived_at - it->second));
      }
      last_end[r.session] = r.finished_at;
    }
    double idle = 0;
    core::Time busy_until = spans.front().second;
    for (const auto& [from, to] : spans) {
      if (from > busy_until) idle = std::max(idle, core::to_seconds(from - busy_until));
      busy_until = std::max(busy_until, to);
    }
    return idle;
  };
  double capped_pause = 0, uncapped_pause = 0;
  const double capped_idle = longest(capped, &capped_pause);
  const double uncapped_idle = longest(uncapped, &uncapped_pause);
  INFO("longest idle: capped " << capped_idle << " s, uncapped " << uncapped_idle << " s; longest user pause: capped "
                               << capped_pause << " s");
  constexpr double kTick = 1e-6;  // the clock's resolution, with room
  CHECK(capped_idle <= 10 + kTick);
  CHECK(uncapped_idle > 60);  // recorded pauses run to minutes when nobody else works
  CHECK(capped_pause > 10);   // one user's pause is not capped while another works
  CHECK(capped.requests().size() > uncapped.requests().size());
}

TEST_CASE("an idle cap skips idle time for every waiting user alike: the replay is the uncapped one, compressed") {
  // AIPerf's system idle cap pulls every pending timer forward by the same amount when the whole
  // system has been idle for the cap, so the replay keeps the gaps between users' turns and only
  // loses the idle time beyond the cap. With 2 users and the recorded pauses uncapped, the two
  // runs are the same until the first skip; from there until two requests overlap every request
  // runs alone and takes the same time in both, and the capped run's arrivals are the uncapped
  // run's minus the idle time skipped before them. Releasing only the user due first (the other's
  // turn left where it was) would put the other user's next request later than that. Over seeds
  // 1-6, at least 3 skips and 6 requests after a skip are compared.
  using Key = std::pair<std::uint32_t, std::size_t>;  // (user, its k-th request)
  auto by_user = [](const serving::Simulation& sim) {
    std::vector<const serving::Request*> order;
    for (const auto& r : sim.requests()) order.push_back(&r);
    std::sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->arrived_at < b->arrived_at; });
    std::map<std::uint32_t, std::size_t> seen;
    std::vector<std::pair<Key, const serving::Request*>> out;
    for (const auto* r : order) out.push_back({{r->session, seen[r->session]++}, r});
    return out;
  };
  const auto cap = core::from_seconds(10);
  int compressed = 0, after_skip = 0;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    auto cfg = gpt_oss_h200();
    cfg.workload.kind = serving::WorkloadKind::kAgenticCoding;
    cfg.workload.max_pause_s = 0;
    cfg.arrival.concurrency = 2;
    cfg.duration_s = 3600;
    cfg.seed = seed;
    serving::Simulation uncapped(cfg, h200_calibration());
    uncapped.run();
    cfg.arrival.idle_cap_s = 10;
    serving::Simulation capped(cfg, h200_calibration());
    capped.run();
    std::map<Key, core::Time> capped_at;
    for (const auto& [key, r] : by_user(capped)) capped_at[key] = r->arrived_at;
    core::Time busy_until{};
    auto skipped = core::from_seconds(0);
    bool first = true;
    for (const auto& [user_request, r] : by_user(uncapped)) {
      const Key key = user_request;  // a plain variable: INFO's lambda cannot capture a structured binding
      if (skipped.count() > 0 && r->arrived_at < busy_until) break;  // the first overlap after a skip
      if (!first && r->arrived_at > busy_until && r->arrived_at - busy_until > cap) {
        skipped += (r->arrived_at - busy_until) - cap;
        ++compressed;
      }
      first = false;
      REQUIRE(capped_at.count(key));
      INFO("seed " << seed << ", user " << key.first << ", request " << key.second);
      CHECK(std::abs(core::to_seconds(capped_at[key] - (r->arrived_at - skipped))) < 1e-6);
      if (skipped.count() > 0) ++after_skip;
      busy_until = std::max(busy_until, r->finished_at);
    }
  }
  INFO(compressed << " idle stretches compressed, " << after_skip << " requests compared after a skip");
  CHECK(compressed >= 3);
  CHECK(after_skip >= 6);
}
