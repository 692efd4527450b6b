// The profiler's rules, written in sim and displayed by the panel: which steps it profiles, what
// bounds an op, what dominates a decode step and what to say about it; and the advisor's offer of
// checks, the longer benchmark included.
#include <doctest/doctest.h>

#include "sim/advisor/advisor.h"
#include "sim/advisor/bots.h"
#include "sim/game/profile_steps.h"
#include "sim/perf/bottleneck.h"
#include "tests/game_test_util.h"
#include "tests/test_serving_support.h"

using namespace tycoon;
using perf::DecodeBottleneck;
using perf::OpClass;

namespace {

// A decode step by hand: launch overhead, attention over the KV cache, dense FFN (weight reads), the rest.
perf::IterationCost step_of(double launch_s, double attention_s, double ffn_s, double other_s) {
  perf::IterationCost c;
  c.ops[static_cast<std::size_t>(OpClass::kLaunchOverhead)].time_s = launch_s;
  c.ops[static_cast<std::size_t>(OpClass::kAttentionDecode)].time_s = attention_s;
  c.ops[static_cast<std::size_t>(OpClass::kDenseFfn)].time_s = ffn_s;
  c.total_s = launch_s + attention_s + ffn_s + other_s;
  return c;
}

}  // namespace

TEST_CASE("an op is bound by overhead (no FLOPs, no bytes), memory (its memory term the larger) or compute") {
  perf::OpCost launch;  // a launch gap: time, no work
  launch.time_s = 1e-5;
  CHECK(perf::bound_of(launch) == perf::OpBound::kOverhead);
  perf::OpCost gemv{2e-3, 1e-4, 2e-3, 1e9, 1e9};  // memory term 2 ms > compute term 0.1 ms
  CHECK(perf::bound_of(gemv) == perf::OpBound::kMemory);
  perf::OpCost gemm{5e-3, 5e-3, 1e-3, 1e13, 1e9};  // compute term 5 ms > memory term 1 ms
  CHECK(perf::bound_of(gemm) == perf::OpBound::kCompute);
  perf::OpCost even{1e-3, 1e-3, 1e-3, 1e9, 1e9};  // a tie reads as memory (OpCost::memory_bound)
  CHECK(perf::bound_of(even) == perf::OpBound::kMemory);
  CHECK(perf::kOpBoundNames[static_cast<std::size_t>(perf::OpBound::kCompute)] == "compute");
}

TEST_CASE("a decode step is dominated by overheads above 30%, else by the larger of KV-cache and weight reads") {
  SUBCASE("overheads of 4 ms in a 10 ms step: 40% > 30%") {
    CHECK(perf::decode_bottleneck(step_of(4e-3, 3e-3, 3e-3, 0)) == DecodeBottleneck::kOverheads);
  }
  SUBCASE("overheads of exactly 30% do not dominate: the reads decide") {
    // 3 of 10 ms; attention 5 ms > weights 2 ms.
    CHECK(perf::decode_bottleneck(step_of(3e-3, 5e-3, 2e-3, 0)) == DecodeBottleneck::kKvCacheReads);
  }
  SUBCASE("weights read for 6 ms against 3 ms of attention") {
    CHECK(perf::decode_bottleneck(step_of(1e-3, 3e-3, 6e-3, 0)) == DecodeBottleneck::kWeightReads);
  }
  SUBCASE("equal reads count as weights: more sequences per batch still help") {
    CHECK(perf::decode_bottleneck(step_of(0, 4e-3, 4e-3, 0)) == DecodeBottleneck::kWeightReads);
  }
  SUBCASE("each verdict has its own advice, naming what dominates") {
    CHECK(perf::advice(DecodeBottleneck::kOverheads).find("Overheads dominate") == 0);
    CHECK(perf::advice(DecodeBottleneck::kKvCacheReads).find("Reading the KV cache") == 0);
    CHECK(perf::advice(DecodeBottleneck::kWeightReads).find("Reading the weights") == 0);
  }
}

TEST_CASE("the profiler's steps: the run's mean batch halfway through the answers, one prompt's prefill") {
  // The flat test scenario's segment sends 1000-token prompts for 500-token answers.
  auto g = test::flat_game(2.0, 1);
  const auto& d = g.state().company.deployments.front();
  const auto dep = serving_test::gpt_oss_h200().deployment;
  const auto& cal = serving_test::h200_calibration();
  SUBCASE("a run's mean batch of 7.6 rounds to 8; the context is 1000 + 500 / 2 = 1250 tokens") {
    const auto p = game::profile_steps(g.scenario(), d, dep, cal, 7.6);
    CHECK(p.decode_batch == 8);
    CHECK(p.decode_context_tokens == 1250);
    CHECK(p.decode.total_s == perf::predict_decode(dep, cal, 8, 1250).total_s);
    // The whole 1000-token prompt fits the step's token budget (the recipe's 8192 or so).
    REQUIRE(d.recipe.max_num_batched_tokens >= 1000);
    CHECK(p.prefill_tokens == 1000);
    CHECK(p.prefill.total_s == perf::predict_prefill(dep, cal, 1000, 0, 1).total_s);
  }
  SUBCASE("before a run has measured a batch: 16 sequences; an idle run's batch is still one") {
    CHECK(game::profile_steps(g.scenario(), d, dep, cal, std::nullopt).decode_batch == game::kProfileBatchWithoutRun);
    CHECK(game::profile_steps(g.scenario(), d, dep, cal, 0.2).decode_batch == 1);
  }
  SUBCASE("a prompt longer than the step's token budget is profiled as one budget-sized chunk") {
    auto small = d;
    small.recipe.max_num_batched_tokens = 512;
    CHECK(game::profile_steps(g.scenario(), small, dep, cal, 4.0).prefill_tokens == 512);
  }
}

TEST_CASE(
    "the advisor offers a component test, the default benchmark, one three times longer, a canary and one three times "
    "longer") {
  // 3 x the default 4 paired runs = 12.
  CHECK(advisor::kLongerBenchmarkRepetitions == 3 * game::kDefaultBenchmarkRepetitions);
  CHECK(advisor::kLongerBenchmarkRepetitions == 12);
  REQUIRE(advisor::kCheckOffers.size() == 5);
  CHECK(advisor::kCheckOffers[0].kind == game::AdviceCheckKind::kComponentTest);
  CHECK(advisor::kCheckOffers[1].kind == game::AdviceCheckKind::kBenchmark);
  CHECK(advisor::kCheckOffers[1].repetitions == 0);
  CHECK(advisor::kCheckOffers[2].kind == game::AdviceCheckKind::kBenchmark);
  CHECK(advisor::kCheckOffers[2].repetitions == advisor::kLongerBenchmarkRepetitions);
  CHECK(advisor::kCheckOffers[3].kind == game::AdviceCheckKind::kCanary);
  CHECK(advisor::kCheckOffers[3].repetitions == 0);
  CHECK(advisor::kCheckOffers[4].kind == game::AdviceCheckKind::kCanary);
  // The longer canary is three default canaries (AdvisorOptions::canary_hours, 6).
  CHECK(advisor::kCheckOffers[4].repetitions == advisor::kLongerCanaryHours);
  CHECK(advisor::kLongerCanaryHours == 3 * static_cast<int>(advisor::AdvisorOptions{}.canary_hours));
  CHECK(advisor::BotOptions{}.more_canary_hours == advisor::kLongerCanaryHours);
  // The verify-then-decide bot repeats an open benchmark at the same length the player is offered.
  CHECK(advisor::BotOptions{}.more_repetitions == advisor::kLongerBenchmarkRepetitions);
}
