// Restartable hours (sim/game/sim_tape.h): a game driven through forks, a tape and simulations run
// a few events at a time reaches the same states, news and advice as the same game run blocking.
// This is what keeps the browser's frames short without changing a single result.
#include <doctest/doctest.h>

#include <limits>

#include "sim/game/sim_tape.h"
#include "sim/game/state_json.h"
#include "sim/serving/deployment_plan.h"
#include "sim/serving/disaggregated.h"
#include "tests/advisor_test_util.h"
#include "tests/test_serving_support.h"

using namespace tycoon;

TEST_CASE("a simulation run in slices of events returns the bytes of simulate()") {
  auto cfg = serving_test::poisson_run(serving_test::gpt_oss_h200(), 8, 30, 1000, 300);
  const auto& cal = serving_test::h200_calibration();
  const auto whole = serving::simulate(cfg, cal);
  for (std::int64_t slice : {1, 97, 100000}) {
    CAPTURE(slice);
    serving::SlicedSimulation job(cfg, cal);
    int calls = 0;
    while (!job.advance(slice)) ++calls;
    const auto sliced = job.result();
    if (slice == 1) CHECK(calls > 1000);  // it really was cut into many slices
    CHECK(sliced.requests_completed == whole.requests_completed);
    CHECK(sliced.output_tokens == whole.output_tokens);
    CHECK(sliced.num_iterations == whole.num_iterations);
    CHECK(sliced.ttft_s.p90 == whole.ttft_s.p90);  // exact: same events in the same order
    CHECK(sliced.itl_s.p99 == whole.itl_s.p99);
    CHECK(sliced.simulated_time_s == whole.simulated_time_s);
  }
}

TEST_CASE("a disaggregated deployment runs in slices to the bytes of simulate(), and is fingerprinted apart") {
  // GPT-OSS-120B, one H200 prefill replica feeding two H200 decode replicas over InfiniBand: the
  // game's sliced runner must take the disaggregated simulation (not refuse it), and its tape must
  // never hand an aggregated result to a disaggregated call of otherwise equal settings.
  auto cfg = serving_test::poisson_run(serving_test::gpt_oss_h200(), 6, 20, 2000, 300);
  const auto aggregated_fingerprint = game::simulation_fingerprint(cfg, serving_test::h200_calibration());
  serving::Disaggregation d;
  d.decode.deployment = cfg.deployment;
  d.decode.scheduler = cfg.scheduler;
  d.decode.replicas = 2;
  const auto& chip = serving_test::catalog().accelerator("h200");
  d.link = serving::resolve_kv_link(serving::KvLinkKind::kInfiniband, chip, chip, serving_test::catalog().kv_links);
  cfg.disaggregated = d;
  const auto& cal = serving_test::h200_calibration();
  const auto whole = serving::simulate(cfg, cal);
  REQUIRE(whole.disaggregated.has_value());
  for (std::int64_t slice : {1, 100000}) {
    CAPTURE(slice);
    serving::SlicedSimulation job(cfg, cal);
    while (!job.advance(slice)) {
    }
    const auto sliced = job.result();
    REQUIRE(sliced.disaggregated.has_value());
    CHECK(sliced.requests_completed == whole.requests_completed);
    CHECK(sliced.output_tokens == whole.output_tokens);
    CHECK(sliced.ttft_s.p90 == whole.ttft_s.p90);  // exact: same events in the same order
    CHECK(sliced.disaggregated->num_transfers == whole.disaggregated->num_transfers);
    CHECK(sliced.num_gpus == 3);  // both pools' GPUs
  }
  const auto disaggregated_fingerprint = game::simulation_fingerprint(cfg, cal);
  CHECK(disaggregated_fingerprint != aggregated_fingerprint);
  cfg.disaggregated->link =
      serving::resolve_kv_link(serving::KvLinkKind::kEthernet, chip, chip, serving_test::catalog().kv_links);
  CHECK(game::simulation_fingerprint(cfg, cal) != disaggregated_fingerprint);  // the link is part of it
}

TEST_CASE("a configuration the simulator refuses is refused the same way in slices") {
  auto cfg = serving_test::gpt_oss_h200();
  cfg.replicas = 0;
  serving::SlicedSimulation job(cfg, serving_test::h200_calibration());
  CHECK(job.done());
  CHECK_THROWS_AS(job.result(), std::invalid_argument);
}

namespace {

// Plays `hours` hours of the advisor market through TapedWork with simulations cut into slices of
// `events`, as the browser's runner does across frames.
game::GameState play_taped(int hours, std::int64_t events, std::int64_t& sliced) {
  game::GameOptions o;
  o.seed = 11;
  game::Game g(test::advisor_market(), test::catalog(), o);
  auto opts = test::fast_advisor_options();
  g.set_advisor(std::make_shared<advisor::Chien>(test::catalog(), g.scenario(),
                                                 advisor::load_code_change_catalog_from_root(TYCOON_SOURCE_DIR), opts));
  game::TapedWork taped;
  const game::TapedWork::Work step = [](game::Game& x) { x.step(); };
  for (int h = 0; h < hours; ++h) {
    const std::string id = std::to_string(g.state().hour) + "|step";
    while (!taped.prepare(g, id, step, events)) {
    }
    {
      auto& tape = taped.tape();
      serving::ScopedSimulateInterceptor guard(&tape);
      g.step();
      // Every simulation of the real hour came from the tape, in the order the fork asked.
      CHECK(tape.consumed() == tape.size());
    }
    taped.done();
  }
  sliced = taped.simulations_sliced();
  return g.state();
}

}  // namespace

TEST_CASE("hours run through forks and the tape equal hours run blocking, advice included") {
  constexpr int kHours = 8;  // the advisor posts from hour 2, every 3 hours (fast options)
  game::GameOptions o;
  o.seed = 11;
  game::Game plain(test::advisor_market(), test::catalog(), o);
  plain.set_advisor(std::make_shared<advisor::Chien>(test::catalog(), plain.scenario(),
                                                     advisor::load_code_change_catalog_from_root(TYCOON_SOURCE_DIR),
                                                     test::fast_advisor_options()));
  plain.advance(kHours);
  std::int64_t sliced = 0;
  const auto taped = play_taped(kHours, 64, sliced);
  CHECK(sliced > 0);
  CHECK(!plain.state().inbox.empty());
  CHECK(game::to_json(taped).dump() == game::to_json(plain.state()).dump());
}

TEST_CASE("what a client sees of the state carries claims, never the hidden truths") {
  game::GameOptions o;
  o.seed = 11;
  game::Game g(test::advisor_market(), test::catalog(), o);
  auto chien = std::make_shared<advisor::Chien>(test::catalog(), g.scenario(),
                                                advisor::load_code_change_catalog_from_root(TYCOON_SOURCE_DIR),
                                                test::fast_advisor_options());
  g.set_advisor(chien);
  g.advance(3);
  REQUIRE(!g.state().inbox.empty());
  const auto& a = g.state().inbox.front();
  // A benchmark paid for now is ready two game hours later: until then its measurement is hidden.
  REQUIRE(g.apply(game::CheckAdvice{a.id, game::AdviceCheckKind::kBenchmark}).ok);
  const auto view = game::player_view_json(g.state());
  CHECK(!view.contains("rng"));
  for (const auto& x : view["inbox"]) {
    CHECK(x.contains("claimed_speedup"));
    CHECK(!x["effect"].contains("speedup"));
    CHECK(!x["effect"].contains("reputation_hit"));
    for (const auto& c : x["checks"]) {
      if (c["ready_at_hour"].get<std::int64_t>() > g.state().hour) CHECK(!c.contains("measured_speedup"));
    }
  }
  // The save keeps everything (a resumed game must go on exactly).
  CHECK(game::to_json(g.state())["inbox"][0]["effect"].contains("speedup"));
}

TEST_CASE("the debrief reveals every proposal's truth, and only once the game is over") {
  game::GameOptions o;
  o.seed = 11;
  o.days = 1;
  game::Game g(test::advisor_market(), test::catalog(), o);
  g.set_advisor(std::make_shared<advisor::Chien>(test::catalog(), g.scenario(),
                                                 advisor::load_code_change_catalog_from_root(TYCOON_SOURCE_DIR),
                                                 test::fast_advisor_options()));
  g.advance(6);
  REQUIRE(!g.state().inbox.empty());
  CHECK(g.revealed_debrief().is_null());  // during play: claims only
  g.run_to_end();
  const auto d = g.revealed_debrief();
  REQUIRE(d.contains("proposals"));
  CHECK(d["proposals"].size() == g.state().inbox.size());
  for (const auto& r : d["proposals"]) {
    CHECK(r["truth"].contains("speedup"));
    CHECK(r.contains("right_call"));
    CHECK(r.contains("verdict"));
  }
}

TEST_CASE("the W4A16 kernel an operator chooses is part of a simulation's fingerprint, its shares too") {
  // A run with vLLM's Marlin kernel (--mxfp4-backend marlin) must never be served from the tape of
  // a run with the default kernel, nor from one made when the card's Marlin shares were other.
  auto cfg = serving_test::gpt_oss_h200();
  const auto& cal = serving_test::h200_calibration();
  data::Engine engine = serving_test::catalog().engine("vllm");
  REQUIRE(engine.w4a16_moe_kernel("marlin") != nullptr);
  cfg.deployment.engine = &engine;
  const auto plain = game::simulation_fingerprint(cfg, cal);
  cfg.deployment.mxfp4_backend = "marlin";
  const auto marlin = game::simulation_fingerprint(cfg, cal);
  CHECK(marlin != plain);
  engine.w4a16_moe_kernels["marlin"].memory_share *= 1.1;
  CHECK(game::simulation_fingerprint(cfg, cal) != marlin);
}

TEST_CASE(
    "the draft method is part of a simulation's fingerprint: an MTP drafter is never served an EAGLE run's tape") {
  // An MTP draft pass is a full block of the target (its experts included), an EAGLE pass a small
  // head: the same drafts and acceptance cost different steps. EAGLE's two names are one model.
  auto cfg = serving_test::gpt_oss_h200();
  const auto& cal = serving_test::h200_calibration();
  cfg.deployment.spec_decode = data::SpecDecode{"eagle3", 3, 2.18};
  const auto eagle3 = game::simulation_fingerprint(cfg, cal);
  cfg.deployment.spec_decode->method = "eagle";
  CHECK(game::simulation_fingerprint(cfg, cal) == eagle3);
  cfg.deployment.spec_decode->method = "mtp";
  CHECK(game::simulation_fingerprint(cfg, cal) != eagle3);
}

TEST_CASE("a decode pool on another chip runs the engine's default W4A16 kernel, on the same chip the chosen one") {
  // --mxfp4-backend chooses a kernel for chips without 4-bit math: a B200 decode pool behind an
  // H200 prefill pool would otherwise be refused for a choice it cannot make.
  serving::ServingOverrides prefill;
  prefill.mxfp4_backend = "marlin";
  CHECK_FALSE(serving::decode_overrides(prefill, {}, false).mxfp4_backend.has_value());
  CHECK(serving::decode_overrides(prefill, {}, true).mxfp4_backend == std::optional<std::string>("marlin"));
}
