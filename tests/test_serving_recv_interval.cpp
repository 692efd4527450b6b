// The receive interval, as SGLang runs it (--scheduler-recv-interval; its SchedulerRecvSkipper;
// serving::SchedulerConfig::recv_interval): the scheduler takes newly arrived requests in only when
// a counter reaches the interval; a decode step adds 1, a step with a prefill (or an idle
// scheduler) enough to reach it at once, and each receiving pass restarts the counter at 0.
#include "sim/core/input_error.h"
#include "sim/serving/deployment_plan.h"
#include "tests/test_serving_support.h"

using namespace tycoon;
using namespace tycoon::serving_test;

namespace {

// The two-prompt trace (test_serving_support.h) under a receive interval.
serving::ServingConfig recv_trace(const std::string& name, double second_at_s, int interval) {
  auto cfg = two_prompt_trace("recv_interval_" + name, second_at_s);
  cfg.scheduler.recv_interval = interval;
  return cfg;
}

}  // namespace

TEST_CASE("with a receive interval of 10, a prompt arriving during the third step waits for the pass before step 12") {
  // Step 1 is request 0's prefill: the pass after it takes requests in and restarts the counter at
  // 0. Steps 2, 3, ... decode, each adding 1: the passes before steps 3 ... 11 count 1 ... 9, the
  // one before step 12 reaches 10 and takes request 1 in. Without the interval, request 1 (arriving
  // half-way through step 3) runs in step 4: it now runs 8 steps later, 8 batch-1 decode steps.
  const PromptAlone a = prompt_alone();
  const double arrival = a.prefill_s + 1.5 * a.step_s;
  serving::Simulation off(recv_trace("mid_off", arrival, 0), h200_calibration());
  serving::Simulation on(recv_trace("mid_on", arrival, 10), h200_calibration());
  off.run();
  on.run();
  REQUIRE(on.requests().at(1).num_output == 5);
  const double delay_steps = (ttft_of(on, 1) - ttft_of(off, 1)) / a.step_s;
  CHECK(std::lround(delay_steps) == 8);
  // Request 0 arrived at an idle scheduler, which takes it in at once.
  CHECK(ttft_of(on, 0) == doctest::Approx(ttft_of(off, 0)));

  SUBCASE("an interval of 30 holds the same prompt until the pass before step 32: 28 steps") {
    serving::Simulation on30(recv_trace("mid_on30", arrival, 30), h200_calibration());
    on30.run();
    CHECK(std::lround((ttft_of(on30, 1) - ttft_of(off, 1)) / a.step_s) == 28);
  }
  SUBCASE("above 1,000 a prefill step no longer reaches the interval: at 1,005 the pass before step 7") {
    // The pass after the prefill adds 1,000 (SGLang's weight for a step with a prefill): 1,000,
    // then 1,001 ... 1,005 before steps 3 ... 7. Request 1 runs in step 7 instead of 4.
    serving::Simulation big(recv_trace("mid_on1005", arrival, 1005), h200_calibration());
    big.run();
    CHECK(std::lround((ttft_of(big, 1) - ttft_of(off, 1)) / a.step_s) == 3);
  }
  SUBCASE("the same steps with the decode fast path asked for: it stays off, the result is the same") {
    auto slow = recv_trace("mid_on_slow", arrival, 10);
    slow.scheduler.fast_forward_decode = false;
    serving::Simulation s(slow, h200_calibration());
    s.run();
    for (std::size_t i = 0; i < 2; ++i) {
      CHECK(s.requests().at(i).first_token_at == on.requests().at(i).first_token_at);
      CHECK(s.requests().at(i).last_token_at == on.requests().at(i).last_token_at);
    }
  }
  SUBCASE("with SGLang's overlap scheduler as well (its default), the prompt still runs in step 12") {
    // The overlap loop receives after it has formed the step starting: the pass at the start of
    // step k weighs step k itself (step 2, a decode, counts 1; step 11 reaches 10) and what it
    // reads runs in step k + 1. Request 1, read at the start of step 11, runs in step 12, as
    // without the overlap; request 0, at an idle scheduler, still at once.
    auto both = recv_trace("mid_on_overlap", arrival, 10);
    both.scheduler.async_scheduling = true;
    serving::Simulation b(both, h200_calibration());
    b.run();
    CHECK(std::lround((ttft_of(b, 1) - ttft_of(off, 1)) / a.step_s) == 8);
    CHECK(ttft_of(b, 1) == doctest::Approx(ttft_of(on, 1)));
    CHECK(ttft_of(b, 0) == doctest::Approx(ttft_of(off, 0)));
  }
  SUBCASE("an interval of 1 (SGLang's default) takes every request in at once") {
    serving::Simulation one(recv_trace("mid_on1", arrival, 1), h200_calibration());
    one.run();
    CHECK(ttft_of(one, 1) == doctest::Approx(ttft_of(off, 1)));
  }
}

TEST_CASE("a prompt arriving during a prefill step is taken in by the next pass") {
  // The pass after a step with a prefill adds 1,000 (SGLang's default weight), past any interval.
  const PromptAlone a = prompt_alone();
  const double arrival = 0.5 * a.prefill_s;  // while request 0's prefill runs
  serving::Simulation off(recv_trace("prefill_off", arrival, 0), h200_calibration());
  serving::Simulation on(recv_trace("prefill_on", arrival, 10), h200_calibration());
  off.run();
  on.run();
  CHECK(ttft_of(on, 1) == doctest::Approx(ttft_of(off, 1)));

  SUBCASE("with the overlap scheduler as well, the prefill's pass came before it: it waits 10 steps") {
    // The overlap loop's pass that weighs the prefill (1,000) is made when the prefill starts, before
    // request 1 arrives; the passes at the starts of steps 2 ... 11 count 1 ... 10, and step 11's
    // reads it into step 12: 10 steps after step 2, where a plain scheduler runs it.
    auto both = recv_trace("prefill_on_overlap", arrival, 10);
    both.scheduler.async_scheduling = true;
    serving::Simulation b(both, h200_calibration());
    b.run();
    CHECK(std::lround((ttft_of(b, 1) - ttft_of(off, 1)) / a.step_s) == 10);
  }
}

TEST_CASE("a prompt waiting for the pass still times out, and the queue's count stays right") {
  // Request 1 arrives half-way through step 3 with a 1 ms queue timeout: it times out in the
  // inbox (8 steps of several ms), never runs, and request 0 finishes as it does alone.
  const PromptAlone a = prompt_alone();
  auto cfg = recv_trace("timeout", a.prefill_s + 1.5 * a.step_s, 10);
  cfg.scheduler.queue_timeout_s = 0.001;
  serving::Simulation sim(cfg, h200_calibration());
  const auto summary = sim.run();
  CHECK(sim.requests().at(1).state == serving::RequestState::kTimedOut);
  CHECK(sim.requests().at(1).num_output == 0);
  CHECK(sim.requests().at(0).num_output == 400);
  CHECK(summary.requests_timed_out == 1);
}

TEST_CASE("the receive interval is SGLang's: other engines refuse it, a split deployment too, the fingerprint has it") {
  const auto& c = catalog();
  serving::ServingOverrides o;
  o.recv_interval = 10;
  o.engine = "vllm";
  CHECK_THROWS_WITH_AS(serving::resolve_serving(c, c.model("llama-3.1-70b"), c.accelerator("h200"), o),
                       doctest::Contains("receive interval: engine 'vllm' takes new requests in at every step"),
                       core::InputError);
  o.engine = "sglang";
  auto r = serving::resolve_serving(c, c.model("llama-3.1-70b"), c.accelerator("h200"), o);
  CHECK(r.scheduler.recv_interval == 10);
  SUBCASE("a negative interval is refused") {
    o.recv_interval = -1;
    CHECK_THROWS_AS(serving::resolve_serving(c, c.model("llama-3.1-70b"), c.accelerator("h200"), o), core::InputError);
  }
  SUBCASE("a disaggregated deployment refuses it (its decode worker's intake is not modelled with it)") {
    serving::PlanRequest plan;
    plan.model = &c.model("llama-3.1-70b");
    plan.pool.chip = "h200";
    plan.pool.recipe = o;
    serving::PoolRequest decode;
    decode.chip = "h200";
    decode.recipe.engine = o.engine;
    plan.decode = decode;
    CHECK_THROWS_WITH_AS(serving::resolve_plan(c, plan, {}),
                         doctest::Contains("receive interval: not modelled for a disaggregated deployment"),
                         core::InputError);
    for (bool same_chip : {true, false}) CHECK_FALSE(serving::decode_overrides(o, {}, same_chip).recv_interval);
  }
  SUBCASE("a run with the interval is never served from the tape of one without it") {
    auto cfg = gpt_oss_h200();
    const auto plain = serving::simulation_fingerprint(cfg, h200_calibration());
    cfg.scheduler.recv_interval = 1;  // the default: the same simulation
    CHECK(serving::simulation_fingerprint(cfg, h200_calibration()) == plain);
    cfg.scheduler.recv_interval = 10;
    CHECK(serving::simulation_fingerprint(cfg, h200_calibration()) != plain);
  }
}
