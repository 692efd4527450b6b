// Asynchronous scheduling, as vLLM runs it (--async-scheduling, its default since v0.14) and SGLang's
// and TensorRT-LLM's overlap schedulers (their defaults; serving::SchedulerConfig::async_scheduling):
// the engine forms step N+1 as soon as step N is
// launched and reads the requests that arrived while step N ran only when N's output is back, into
// step N+2. A request that arrives while a step runs therefore starts one step later than under a
// synchronous scheduler; one that arrives at an idle engine, or while the last step of the work in
// hand runs, starts at once.
#include "sim/core/input_error.h"
#include "sim/serving/deployment_plan.h"
#include "tests/test_serving_support.h"

using namespace tycoon;
using namespace tycoon::serving_test;

namespace {

// The two-prompt trace (test_serving_support.h), scheduled asynchronously or not.
serving::ServingConfig async_trace(const std::string& name, double second_at_s, bool async, int first_output = 400) {
  auto cfg = two_prompt_trace("async_" + name, second_at_s, first_output);
  cfg.scheduler.async_scheduling = async;
  return cfg;
}

}  // namespace

TEST_CASE(
    "asynchronously scheduled, a prompt arriving during the third step runs in the fifth, one decode step later") {
  // Step 1 is request 0's prefill, steps 2, 3, ... its decodes. Request 1 arrives half-way
  // through step 3: a synchronous scheduler reads it when step 3 ends and runs it in step 4; an
  // asynchronous one formed step 4 when step 3 began, and runs it in step 5, one batch-1 decode
  // step (step 4, request 0's alone) later.
  const PromptAlone a = prompt_alone();
  const double arrival = a.prefill_s + 1.5 * a.step_s;
  serving::Simulation sync(async_trace("mid_sync", arrival, false), h200_calibration());
  serving::Simulation async(async_trace("mid_async", arrival, true), h200_calibration());
  sync.run();
  async.run();
  REQUIRE(async.requests().at(1).num_output == 5);
  CHECK(std::lround((ttft_of(async, 1) - ttft_of(sync, 1)) / a.step_s) == 1);
  CHECK(ttft_of(async, 1) - ttft_of(sync, 1) == doctest::Approx(a.step_s).epsilon(0.02));  // one step, within 2%
  // Request 0 arrived at an idle engine, which schedules it at once.
  CHECK(ttft_of(async, 0) == ttft_of(sync, 0));

  SUBCASE("the same run with the decode fast path off: step by step, the same instants") {
    auto slow = async_trace("mid_async_slow", arrival, true);
    slow.scheduler.fast_forward_decode = false;
    serving::Simulation s(slow, h200_calibration());
    s.run();
    for (std::size_t i = 0; i < 2; ++i) {
      CHECK(s.requests().at(i).first_token_at == async.requests().at(i).first_token_at);
      CHECK(s.requests().at(i).last_token_at == async.requests().at(i).last_token_at);
    }
  }
}

TEST_CASE("asynchronously scheduled, a prompt arriving during a prefill step waits for the decode step after it") {
  // Request 1 arrives while request 0's prefill (step 1) runs: synchronously it runs in step 2,
  // asynchronously in step 3, after request 0's first decode step.
  const PromptAlone a = prompt_alone();
  const double arrival = 0.5 * a.prefill_s;
  serving::Simulation sync(async_trace("prefill_sync", arrival, false), h200_calibration());
  serving::Simulation async(async_trace("prefill_async", arrival, true), h200_calibration());
  sync.run();
  async.run();
  CHECK(std::lround((ttft_of(async, 1) - ttft_of(sync, 1)) / a.step_s) == 1);
}

TEST_CASE("asynchronously scheduled, a prompt arriving during the last step of the work in hand starts at once") {
  // Request 0 answers 5 tokens: its prefill, then 4 decode steps, the last ending the work. An
  // engine running that last step has no next step formed (nothing is left to form it from), so
  // it reads request 1 when the step ends and runs it at once, as a synchronous one does.
  const PromptAlone a = prompt_alone();
  const double arrival = a.prefill_s + 3.5 * a.step_s;  // half-way through step 5, request 0's last
  serving::Simulation sync(async_trace("last_sync", arrival, false, 5), h200_calibration());
  serving::Simulation async(async_trace("last_async", arrival, true, 5), h200_calibration());
  sync.run();
  async.run();
  REQUIRE(async.requests().at(0).num_output == 5);
  CHECK(async.requests().at(0).last_token_at < async.requests().at(1).arrived_at + core::from_seconds(a.step_s));
  CHECK(ttft_of(async, 1) == ttft_of(sync, 1));
}

TEST_CASE("a prompt held for the step after next still times out, and the queue's count stays right") {
  // Request 1 arrives half-way through step 3 with a 1 ms queue timeout, shorter than step 4:
  // it times out while held, never runs, and request 0 finishes as it does alone.
  const PromptAlone a = prompt_alone();
  auto cfg = async_trace("timeout", a.prefill_s + 1.5 * a.step_s, true);
  cfg.scheduler.queue_timeout_s = 0.001;
  REQUIRE(a.step_s > 0.0015);  // step 4 outlasts the timeout from inside step 3
  serving::Simulation sim(cfg, h200_calibration());
  const auto summary = sim.run();
  CHECK(sim.requests().at(1).state == serving::RequestState::kTimedOut);
  CHECK(sim.requests().at(0).num_output == 400);
  CHECK(summary.requests_timed_out == 1);
}

TEST_CASE(
    "asynchronous scheduling is vLLM's, SGLang's and TensorRT-LLM's: other engines refuse it, a split deployment "
    "too, the fingerprint has it") {
  const auto& c = catalog();
  serving::ServingOverrides o;
  o.async_scheduling = true;
  o.engine = "llamacpp";
  CHECK_THROWS_WITH_AS(serving::resolve_serving(c, c.model("llama-3.1-70b"), c.accelerator("h200"), o),
                       doctest::Contains("asynchronous scheduling: engine 'llamacpp' schedules each step after"),
                       core::InputError);
  for (const char* engine : {"sglang", "trtllm"}) {
    o.engine = engine;
    CHECK(serving::resolve_serving(c, c.model("llama-3.1-70b"), c.accelerator("h200"), o).scheduler.async_scheduling);
  }
  // SGLang turns its overlap scheduler off with speculative decoding: asked for together, refused;
  // TensorRT-LLM keeps it with MTP drafting.
  o.spec_draft_tokens = 3;
  o.spec_acceptance_length = 2.5;
  o.engine = "sglang";
  CHECK_THROWS_WITH_AS(serving::resolve_serving(c, c.model("llama-3.1-70b"), c.accelerator("h200"), o),
                       doctest::Contains("async_scheduling_with_spec_decode"), core::InputError);
  o.engine = "trtllm";
  o.spec_method = "mtp";
  CHECK(serving::resolve_serving(c, c.model("deepseek-r1"), c.accelerator("h200"), o).scheduler.async_scheduling);
  o.spec_draft_tokens.reset();
  o.spec_acceptance_length.reset();
  o.spec_method.reset();
  o.engine = "vllm";
  auto r = serving::resolve_serving(c, c.model("llama-3.1-70b"), c.accelerator("h200"), o);
  CHECK(r.scheduler.async_scheduling);
  o.async_scheduling.reset();
  CHECK_FALSE(
      serving::resolve_serving(c, c.model("llama-3.1-70b"), c.accelerator("h200"), o).scheduler.async_scheduling);
  o.async_scheduling = true;

  SUBCASE("a disaggregated deployment refuses it") {
    serving::PlanRequest plan;
    plan.model = &c.model("llama-3.1-70b");
    plan.pool.chip = "h200";
    plan.pool.recipe = o;
    serving::PoolRequest decode;
    decode.chip = "h200";
    decode.recipe.engine = o.engine;
    plan.decode = decode;
    CHECK_THROWS_WITH_AS(serving::resolve_plan(c, plan, {}),
                         doctest::Contains("asynchronous scheduling: not modelled for a disaggregated deployment"),
                         core::InputError);
    for (bool same_chip : {true, false}) CHECK_FALSE(serving::decode_overrides(o, {}, same_chip).async_scheduling);
    // Asked for on the decode pool alone, it is refused too, not dropped.
    plan.pool.recipe.async_scheduling.reset();
    plan.decode->recipe.async_scheduling = true;
    CHECK_THROWS_WITH_AS(serving::resolve_plan(c, plan, {}),
                         doctest::Contains("asynchronous scheduling: not modelled for a disaggregated deployment"),
                         core::InputError);
  }
  SUBCASE("an asynchronous run is never served from the tape or memo of a synchronous one") {
    auto cfg = gpt_oss_h200();
    const auto plain = serving::simulation_fingerprint(cfg, h200_calibration());
    cfg.scheduler.async_scheduling = true;
    CHECK(serving::simulation_fingerprint(cfg, h200_calibration()) != plain);
  }
}
