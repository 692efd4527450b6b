// Batch waiting, as TensorRT-LLM runs it (batch_wait_timeout_iters, batch_wait_max_tokens_ratio;
// serving::SchedulerConfig::batch_wait_iters): a step that would run decodes together with prompts
// holds the prompts back until they and the decodes fill the given share of the token budget, or
// until it has held them the given number of steps in a row; a step without decodes never holds.
#include "sim/core/input_error.h"
#include "sim/serving/deployment_plan.h"
#include "tests/test_serving_support.h"

using namespace tycoon;
using namespace tycoon::serving_test;

namespace {

// Request 0 decodes a long answer from t = 0; request 1 arrives at 50 ms, while request 0 decodes.
serving::ServingConfig one_decoding_one_arriving(std::int64_t second_input_tokens) {
  auto path = write_trace(
      "batch_wait_" + std::to_string(second_input_tokens),
      {R"({"arrival_s": 0, "input_tokens": 100, "output_tokens": 400})",
       R"({"arrival_s": 0.05, "input_tokens": )" + std::to_string(second_input_tokens) + R"(, "output_tokens": 5})"});
  auto cfg = with_trace(gpt_oss_h200(), path);
  cfg.scheduler.prefix_caching = false;
  return cfg;
}

double ttft_s(const serving::Simulation& sim, std::size_t i) {
  const auto& r = sim.requests().at(i);
  return core::to_seconds(r.first_token_at - r.arrived_at);
}

// One batch-1 decode step of request 0: its time between two tokens while it decodes alone.
double decode_step_s(const serving::Simulation& sim) {
  const auto& r = sim.requests().at(0);
  return core::to_seconds(r.last_token_at - r.first_token_at) / static_cast<double>(r.num_output - 1);
}

}  // namespace

TEST_CASE("batch waiting holds a prompt that arrives during decodes back for the given number of steps") {
  // TensorRT-LLM's InferenceX configuration for Llama-3.1-70B at 1k/1k: 20 steps, 90% of the budget.
  auto off = one_decoding_one_arriving(100);
  serving::Simulation base(off, h200_calibration());
  base.run();
  auto on = off;
  on.scheduler.batch_wait_iters = 20;
  on.scheduler.batch_wait_tokens_ratio = 0.9;
  serving::Simulation held(on, h200_calibration());
  held.run();
  REQUIRE(held.requests().at(1).num_output == 5);
  // The 100-token prompt and one decode token are far below 0.9 x 8,192 tokens, so the prompt waits
  // the full 20 steps: its first token comes 20 batch-1 decode steps later than without waiting
  // (within one step: where in a step it arrived differs by less than a step).
  const double step = decode_step_s(base);
  const double delay = ttft_s(held, 1) - ttft_s(base, 1);
  CHECK(std::lround(delay / step) == 20);
  // The request decoding meanwhile is not held: its first token is the same.
  CHECK(ttft_s(held, 0) == doctest::Approx(ttft_s(base, 0)));

  SUBCASE("a prompt that fills the share of the budget runs at once") {
    // 8,000 tokens + 1 decode token >= 0.9 x 8,192 = 7,372.8: no wait.
    auto big_off = one_decoding_one_arriving(8000);
    auto big_on = big_off;
    big_on.scheduler.batch_wait_iters = 20;
    big_on.scheduler.batch_wait_tokens_ratio = 0.9;
    serving::Simulation a(big_off, h200_calibration()), b(big_on, h200_calibration());
    a.run();
    b.run();
    CHECK(ttft_s(b, 1) == doctest::Approx(ttft_s(a, 1)));
  }
  SUBCASE("a prompt with no decode running never waits") {
    auto path = write_trace("batch_wait_alone", {R"({"arrival_s": 0, "input_tokens": 100, "output_tokens": 50})"});
    auto alone_off = with_trace(gpt_oss_h200(), path);
    auto alone_on = alone_off;
    alone_on.scheduler.batch_wait_iters = 20;
    alone_on.scheduler.batch_wait_tokens_ratio = 0.9;
    serving::Simulation a(alone_off, h200_calibration()), b(alone_on, h200_calibration());
    a.run();
    b.run();
    CHECK(ttft_s(b, 0) == doctest::Approx(ttft_s(a, 0)));
  }
  SUBCASE("a zero step limit never holds, whatever the share (TensorRT-LLM stops waiting at once)") {
    auto zero = off;
    zero.scheduler.batch_wait_iters = 0;
    zero.scheduler.batch_wait_tokens_ratio = 0.9;
    serving::Simulation z(zero, h200_calibration());
    z.run();
    CHECK(ttft_s(z, 1) == doctest::Approx(ttft_s(base, 1)));
  }
}

TEST_CASE("batch waiting counts the decodes' tokens and holds while any prompt is held, across arrivals") {
  // Three decodes and a prompt of 7,370 tokens: 7,370 + 3 = 7,373 >= 0.9 x 8,192 = 7,372.8, so it
  // runs at once; a prompt one token shorter comes to 7,372 and waits. The decodes' tokens tip it.
  auto path = [](std::int64_t prompt) {
    return write_trace(
        "batch_wait_tip_" + std::to_string(prompt),
        {R"({"arrival_s": 0, "input_tokens": 100, "output_tokens": 400})",
         R"({"arrival_s": 0, "input_tokens": 100, "output_tokens": 400})",
         R"({"arrival_s": 0, "input_tokens": 100, "output_tokens": 400})",
         R"({"arrival_s": 0.05, "input_tokens": )" + std::to_string(prompt) + R"(, "output_tokens": 5})"});
  };
  auto run = [&](std::int64_t prompt, bool wait) {
    auto cfg = with_trace(gpt_oss_h200(), path(prompt));
    cfg.scheduler.prefix_caching = false;
    if (wait) {
      cfg.scheduler.batch_wait_iters = 20;
      cfg.scheduler.batch_wait_tokens_ratio = 0.9;
    }
    serving::Simulation sim(cfg, h200_calibration());
    sim.run();
    return ttft_s(sim, 3);
  };
  CHECK(run(7370, true) == doctest::Approx(run(7370, false)));
  CHECK(run(7369, true) > run(7369, false) + 0.1);  // held: 20 steps of ~10 ms or more
}

TEST_CASE("a disaggregated decode pool does not batch-wait: its requests arrive prefilled") {
  serving::ServingOverrides prefill;
  prefill.batch_wait_iters = 20;
  prefill.batch_wait_tokens_ratio = 0.9;
  for (bool same_chip : {true, false}) {
    auto decode = serving::decode_overrides(prefill, {}, same_chip);
    CHECK_FALSE(decode.batch_wait_iters.has_value());
    CHECK_FALSE(decode.batch_wait_tokens_ratio.has_value());
  }
}

TEST_CASE("batch waiting is refused on an engine that does not hold prompts back, with the reason") {
  const auto& c = catalog();
  serving::ServingOverrides o;
  o.batch_wait_iters = 20;
  o.batch_wait_tokens_ratio = 0.9;
  o.engine = "vllm";
  CHECK_THROWS_WITH_AS(serving::resolve_serving(c, c.model("llama-3.1-70b"), c.accelerator("h200"), o),
                       doctest::Contains("batch waiting: engine 'vllm' does not hold prompts back"), core::InputError);
  o.engine = "trtllm";
  auto r = serving::resolve_serving(c, c.model("llama-3.1-70b"), c.accelerator("h200"), o);
  CHECK(r.scheduler.batch_wait_iters == 20);
  CHECK(r.scheduler.batch_wait_tokens_ratio == 0.9);
  SUBCASE("one limit without the other is refused: TensorRT-LLM stops holding when either is reached") {
    // With the steps alone (the share at 0) every step's tokens reach the share at once, and with
    // the share alone (0 steps) every step has waited long enough: nothing would be held.
    o.batch_wait_tokens_ratio.reset();
    CHECK_THROWS_WITH_AS(serving::resolve_serving(c, c.model("llama-3.1-70b"), c.accelerator("h200"), o),
                         doctest::Contains("with only one, nothing is held"), core::InputError);
    o.batch_wait_tokens_ratio = 0.9;
    o.batch_wait_iters.reset();
    CHECK_THROWS_WITH_AS(serving::resolve_serving(c, c.model("llama-3.1-70b"), c.accelerator("h200"), o),
                         doctest::Contains("with only one, nothing is held"), core::InputError);
  }
  SUBCASE("a share outside [0, 1] is refused") {
    o.batch_wait_tokens_ratio = 1.5;
    CHECK_THROWS_WITH_AS(serving::resolve_serving(c, c.model("llama-3.1-70b"), c.accelerator("h200"), o),
                         doctest::Contains("batch_wait_tokens_ratio must lie in [0, 1]"), core::InputError);
  }
}
