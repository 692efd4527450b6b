// One resolver from (catalog, recipe, overrides) to the serving configuration, so that one recipe
// runs the same way in the game, the CLI and the UI; and one vocabulary per concept.
#include <doctest/doctest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "sim/advisor/deployment_setup.h"
#include "sim/analysis/sweep_spec.h"
#include "sim/game/game.h"
#include "sim/perf/profile_lookup.h"
#include "sim/serving/resolve_config.h"
#include "sim/serving/serving_sim.h"
#include "tests/game_test_util.h"

namespace tycoon {
namespace {

using serving::KvAdmission;

const data::Catalog& resolve_catalog() { return test::catalog(); }

// Every ServingConfig the game hands its serving backend.
struct ConfigRecorder {
  std::shared_ptr<std::vector<serving::ServingConfig>> seen = std::make_shared<std::vector<serving::ServingConfig>>();
  serving::ServingSummary operator()(const serving::ServingConfig& c, const perf::CalibrationProfile& cal) const {
    seen->push_back(c);
    return test::FixedCapacityBackend{}(c, cal);
  }
};

// The flat GPT-OSS-120B scenario with one H200 replica whose recipe switches the engine.
game::Scenario engine_scenario(const std::string& engine) {
  auto j = test::flat_scenario_json(2.0);
  j["start"] = {{"contracts", {{{"chip", "h200"}, {"contract", "on_demand"}, {"num_gpus", 1}}}},
                {"deployments",
                 {{{"model", "gpt-oss-120b"}, {"chip", "h200"}, {"replicas", 1}, {"recipe", {{"engine", engine}}}}}}};
  return test::scenario_from(j);
}

// A one-configuration sweep of GPT-OSS-120B on H200.
nlohmann::json analysis_spec(const std::string& engine) {
  return {{"format_version", 1},
          {"name", "resolve"},
          {"base", {{"model", "gpt-oss-120b"}, {"hardware", "h200"}, {"engine", engine}}},
          {"workloads", {{{"name", "short"}, {"kind", "random"}, {"input_tokens", 256}, {"output_tokens", 64}}}},
          {"concurrency", {2}},
          {"seeds", {1}},
          {"requests_per_user", 2}};
}

// The admission policy each front end runs `engine` with for GPT-OSS-120B on one H200 (whose
// catalog recipe is vLLM's), in the order game, advisor, sweep, benchmark.
std::array<KvAdmission, 4> admission_everywhere(const std::string& engine) {
  // The game: what its serving windows are asked to simulate in one hour.
  ConfigRecorder backend;
  game::GameOptions opts;
  opts.windows = std::make_shared<game::ServingWindows>(backend);
  game::Game g(engine_scenario(engine), resolve_catalog(), opts);
  g.step();
  REQUIRE_FALSE(backend.seen->empty());
  const KvAdmission in_game = backend.seen->front().scheduler.kv_admission;
  for (const auto& c : *backend.seen) CHECK(c.scheduler.kv_admission == in_game);

  // The advisor: its own runs of the same deployment.
  REQUIRE(g.state().company.deployments.size() == 1);
  const auto& d = g.state().company.deployments.front();
  REQUIRE(d.recipe.engine == engine);
  const auto cal = perf::calibration_for(resolve_catalog(), resolve_catalog().accelerator("h200"));
  advisor::DeploymentSetup setup(resolve_catalog(), g.scenario(), d, d.recipe, cal, 1.0);
  const KvAdmission in_advisor = setup.open_loop(60, 1, advisor::unit_op_times()).scheduler.kv_admission;
  CHECK(setup.benchmark(8, 16, 1, advisor::unit_op_times()).scheduler.kv_admission == in_advisor);

  // A sweep configuration naming the engine.
  auto spec_json = analysis_spec(engine);
  const auto spec = analysis::parse_sweep_spec(spec_json, "resolve.json");
  const KvAdmission in_sweep =
      analysis::resolve_config(spec, resolve_catalog(), spec.base, "base", "/base").scheduler().kv_admission;

  // `tycoon benchmark --model gpt-oss-120b --hardware h200 --engine E` (cli/deployment_options.cpp
  // passes exactly these overrides; no --kv-admission).
  serving::ServingOverrides o;
  o.engine = engine;
  o.spec_draft_tokens = 0;
  const KvAdmission in_benchmark = serving::resolve_serving(resolve_catalog(), resolve_catalog().model("gpt-oss-120b"),
                                                            resolve_catalog().accelerator("h200"), o)
                                       .scheduler.kv_admission;
  return {in_game, in_advisor, in_sweep, in_benchmark};
}

}  // namespace

TEST_CASE("game, advisor, sweep and benchmark run one engine with the engine card's KV admission") {
  SUBCASE("TensorRT-LLM: guaranteed-no-evict everywhere") {
    // hardware_db/engines/trtllm.json: GUARANTEED_NO_EVICT is TensorRT-LLM's default capacity
    // policy. Before the single resolver only the benchmark and the sweep (which tested the id
    // "trtllm") ran it; the game and the advisor admitted optimistically.
    REQUIRE(resolve_catalog().engine("trtllm").kv_admission == KvAdmission::kGuaranteedNoEvict);
    const auto a = admission_everywhere("trtllm");
    CHECK(a[0] == KvAdmission::kGuaranteedNoEvict);  // game
    CHECK(a[1] == KvAdmission::kGuaranteedNoEvict);  // advisor
    CHECK(a[2] == KvAdmission::kGuaranteedNoEvict);  // sweep
    CHECK(a[3] == KvAdmission::kGuaranteedNoEvict);  // benchmark
  }
  SUBCASE("vLLM: optimistic everywhere") {
    const auto a = admission_everywhere("vllm");
    for (auto x : a) CHECK(x == KvAdmission::kOptimistic);
  }
}

TEST_CASE("the resolver takes the recipe, then the overrides, within what the engine can do") {
  const auto& m = resolve_catalog().model("gpt-oss-120b");
  const auto& hw = resolve_catalog().accelerator("h200");
  const data::Recipe* recipe = resolve_catalog().find_recipe(m.id, hw.id);
  REQUIRE(recipe != nullptr);
  REQUIRE(recipe->engine == "vllm");
  REQUIRE(recipe->spec_decode.has_value());

  SUBCASE("no overrides: the recipe as written, the engine card's admission") {
    auto r = serving::resolve_serving(resolve_catalog(), m, hw, {});
    CHECK(r.recipe == recipe);
    CHECK(r.deployment.engine->id == "vllm");
    CHECK(r.deployment.precision == recipe->precision);
    CHECK(r.deployment.tensor_parallel == recipe->tensor_parallel);
    CHECK(r.deployment.kv_page_tokens == recipe->kv_page_tokens);
    REQUIRE(r.deployment.spec_decode.has_value());
    CHECK(r.deployment.spec_decode->num_draft_tokens == recipe->spec_decode->num_draft_tokens);
    CHECK(r.scheduler.max_num_seqs == recipe->max_num_seqs);
    CHECK(r.scheduler.max_num_batched_tokens == recipe->max_num_batched_tokens);
    CHECK(r.scheduler.kv_admission == KvAdmission::kOptimistic);
  }
  SUBCASE("another engine keeps the recipe's model and chip settings, not its drafter") {
    serving::ServingOverrides o;
    o.engine = "sglang";
    auto r = serving::resolve_serving(resolve_catalog(), m, hw, o);
    CHECK(r.deployment.engine->id == "sglang");
    CHECK(r.deployment.precision == recipe->precision);
    CHECK(r.deployment.tensor_parallel == recipe->tensor_parallel);
    CHECK_FALSE(r.deployment.spec_decode.has_value());
    CHECK(r.scheduler.max_num_seqs == recipe->max_num_seqs);
  }
  SUBCASE("an engine without a prefix cache or chunked prefill runs without them") {
    // hardware_db/engines/torch-reference.json: supports_prefix_caching false, chunked prefill false.
    serving::ServingOverrides o;
    o.engine = "torch-reference";
    o.prefix_caching = true;
    o.chunked_prefill = true;
    auto r = serving::resolve_serving(resolve_catalog(), resolve_catalog().model("llama-3.1-8b"), hw, o);
    CHECK_FALSE(r.scheduler.prefix_caching);
    CHECK_FALSE(r.scheduler.chunked_prefill);
  }
  SUBCASE("an explicit admission policy wins over the card's") {
    serving::ServingOverrides o;
    o.engine = "trtllm";
    o.kv_admission = KvAdmission::kOptimistic;
    CHECK(serving::resolve_serving(resolve_catalog(), m, hw, o).scheduler.kv_admission == KvAdmission::kOptimistic);
  }
  SUBCASE("draft tokens without a known acceptance are refused") {
    serving::ServingOverrides o;
    o.engine = "sglang";  // the recipe's acceptance belongs to its vLLM drafter
    o.spec_draft_tokens = 3;
    CHECK_THROWS_AS(serving::resolve_serving(resolve_catalog(), m, hw, o), std::invalid_argument);
    o.spec_acceptance_length = 2.0;
    auto r = serving::resolve_serving(resolve_catalog(), m, hw, o);
    REQUIRE(r.deployment.spec_decode.has_value());
    CHECK(r.deployment.spec_decode->num_draft_tokens == 3);
    CHECK(r.deployment.spec_decode->acceptance_length == 2.0);
    o.spec_acceptance_length = 4.5;  // more than 3 draft tokens + the bonus token
    CHECK_THROWS_AS(serving::resolve_serving(resolve_catalog(), m, hw, o), std::invalid_argument);
  }
  SUBCASE("out-of-range overrides name their field") {
    serving::ServingOverrides o;
    o.max_num_seqs = 0;
    CHECK_THROWS_WITH(serving::resolve_serving(resolve_catalog(), m, hw, o), "max_num_seqs must be at least 1 (got 0)");
  }
}

TEST_CASE("the game's recipe resolves through the same function as the CLI's flags") {
  // The game's full recipe for a pair with a catalog recipe, given back as overrides, resolves to
  // what the catalog recipe resolves to with no overrides (speculative acceptance aside, which the
  // game takes from the segment's traffic).
  const auto& m = resolve_catalog().model("llama-3.1-8b");
  const auto& hw = resolve_catalog().accelerator("h200");
  auto recipe = game::default_recipe(resolve_catalog(), m, hw);
  auto from_game = game::resolve_recipe(resolve_catalog(), m.id, hw.id, recipe, 1.0);
  auto from_cli = serving::resolve_serving(resolve_catalog(), m, hw, {});
  CHECK(from_game.deployment.precision == from_cli.deployment.precision);
  CHECK(from_game.deployment.tensor_parallel == from_cli.deployment.tensor_parallel);
  CHECK(from_game.deployment.kv_page_tokens == from_cli.deployment.kv_page_tokens);
  CHECK(from_game.deployment.cuda_graphs == from_cli.deployment.cuda_graphs);
  CHECK(from_game.scheduler.max_num_seqs == from_cli.scheduler.max_num_seqs);
  CHECK(from_game.scheduler.max_num_batched_tokens == from_cli.scheduler.max_num_batched_tokens);
  CHECK(from_game.scheduler.prefix_caching == from_cli.scheduler.prefix_caching);
  CHECK(from_game.scheduler.chunked_prefill == from_cli.scheduler.chunked_prefill);
  CHECK(from_game.scheduler.kv_admission == from_cli.scheduler.kv_admission);
}

TEST_CASE("SGLang sizes its running-request limit from its KV pool unless a setting gives one") {
  // SGLang without --max-running-requests runs min(pool // 2, request slots), the slots
  // min(max(int(pool / context * 512), 2048), 4096) (data::kv_pool_running_limit cites the code).
  SUBCASE("the formula") {
    // Llama 3.1 8B FP8 on one H200: a 961,442-token pool over a 131,072-token window gives
    // int(961442 / 131072 * 512) = 3,755 slots, within [2048, 4096].
    CHECK(data::kv_pool_running_limit(961442, 131072) == 3755);
    CHECK(data::kv_pool_running_limit(100000, 131072) == 2048);    // at least 2048 slots ...
    CHECK(data::kv_pool_running_limit(3000, 131072) == 1500);      // ... but half the pool's tokens at most
    CHECK(data::kv_pool_running_limit(50000000, 131072) == 4096);  // and 4096 slots at most
  }
  const auto& m = resolve_catalog().model("llama-3.1-8b");
  const auto& hw = resolve_catalog().accelerator("h200");
  SUBCASE("the resolver leaves the limit to SGLang, to a setting when one is given, and to vLLM's setting") {
    serving::ServingOverrides o;
    o.engine = "sglang";
    CHECK(serving::resolve_serving(resolve_catalog(), m, hw, o).scheduler.running_limit_from_engine);
    o.max_num_seqs = 64;
    CHECK_FALSE(serving::resolve_serving(resolve_catalog(), m, hw, o).scheduler.running_limit_from_engine);
    o.max_num_seqs.reset();
    o.engine = "vllm";
    CHECK_FALSE(serving::resolve_serving(resolve_catalog(), m, hw, o).scheduler.running_limit_from_engine);
  }
  SUBCASE("the game and the advisor resolve it the same way: the recipe's lever unmoved leaves it to SGLang") {
    // game::resolve_recipe is what the game's serving windows and the advisor's runs resolve
    // through. The recipe's max_num_seqs is vLLM's setting; moved off it, it is SGLang's
    // --max-running-requests.
    auto recipe = game::default_recipe(resolve_catalog(), resolve_catalog().model("gpt-oss-120b"), hw);
    recipe.engine = "sglang";
    recipe.spec_draft_tokens = 0;
    CHECK(game::resolve_recipe(resolve_catalog(), "gpt-oss-120b", "h200", recipe, 1.0)
              .scheduler.running_limit_from_engine);
    recipe.max_num_seqs = 128;
    auto capped = game::resolve_recipe(resolve_catalog(), "gpt-oss-120b", "h200", recipe, 1.0);
    CHECK_FALSE(capped.scheduler.running_limit_from_engine);
    CHECK(capped.scheduler.max_num_seqs == 128);
    recipe.engine = "vllm";
    recipe.max_num_seqs =
        game::default_recipe(resolve_catalog(), resolve_catalog().model("gpt-oss-120b"), hw).max_num_seqs;
    CHECK_FALSE(game::resolve_recipe(resolve_catalog(), "gpt-oss-120b", "h200", recipe, 1.0)
                    .scheduler.running_limit_from_engine);
  }
  SUBCASE("352 users all run at once on SGLang; vLLM's recipe setting holds them to 256") {
    // The published SGLang point (docs/fidelity_published.md): 352 users of 1,000/1,000 tokens
    // on one H200. With the recipes' 256 (vLLM's setting) 96 users queued for a whole answer.
    auto run = [&](const std::string& engine) {
      serving::ServingOverrides o;
      o.engine = engine;
      o.precision = Precision::kFp8;
      o.spec_draft_tokens = 0;
      auto r = serving::resolve_serving(resolve_catalog(), m, hw, o);
      serving::ServingConfig c;
      c.deployment = r.deployment;
      c.scheduler = r.scheduler;
      c.workload.kind = serving::WorkloadKind::kRandom;
      c.workload.input_tokens = 1000;
      c.workload.output_tokens = 1000;
      c.arrival.concurrency = 352;
      c.num_requests = 704;
      c.seed = 1;
      return serving::simulate(c, perf::calibration_for(resolve_catalog(), hw));
    };
    const auto sglang = run("sglang");
    CHECK(sglang.max_num_seqs == data::kv_pool_running_limit(sglang.kv_capacity_tokens_per_replica, 131072));
    CHECK(sglang.peak_running_seqs == 352);
    const auto vllm = run("vllm");
    CHECK(vllm.max_num_seqs == 256);
    CHECK(vllm.peak_running_seqs == 256);
  }
}

}  // namespace tycoon
