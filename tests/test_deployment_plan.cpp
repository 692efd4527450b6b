// The deployment plan (sim/serving/deployment_plan.h): the one place a deployment becomes the
// configuration the serving kernel runs. An engine behaviour written once reaches every caller; a
// split deployment's pools follow one rule for their defaults; a speedup tunes every pool.
#include <doctest/doctest.h>

#include <memory>
#include <vector>

#include "sim/advisor/deployment_setup.h"
#include "sim/analysis/sweep_spec.h"
#include "sim/game/game.h"
#include "sim/perf/profile_lookup.h"
#include "sim/serving/deployment_plan.h"
#include "tests/game_test_util.h"

namespace tycoon {
namespace {

using serving::KvAdmission;

// Every configuration the game hands its serving backend.
struct RecordingBackend {
  std::shared_ptr<std::vector<serving::ServingConfig>> seen = std::make_shared<std::vector<serving::ServingConfig>>();
  serving::ServingSummary operator()(const serving::ServingConfig& c, const perf::CalibrationProfile& cal) const {
    seen->push_back(c);
    return test::FixedCapacityBackend{}(c, cal);
  }
};

// The bundled catalog with one engine behaviour changed on one card: the engine of GPT-OSS-120B's
// H200 recipe now admits requests only when their whole KV fits (TensorRT-LLM's policy).
data::Catalog catalog_with_new_rule() {
  data::Catalog c = test::catalog();
  const std::string engine = c.find_recipe("gpt-oss-120b", "h200")->engine;
  for (auto& e : c.engines) {
    if (e.id == engine) {
      REQUIRE(e.kv_admission != KvAdmission::kGuaranteedNoEvict);  // else the test shows nothing
      e.kv_admission = KvAdmission::kGuaranteedNoEvict;
    }
  }
  return c;
}

// The admission every pool of every configuration the game ran in its first hour used.
std::vector<KvAdmission> game_admissions(const data::Catalog& cat, bool split) {
  auto j = test::flat_scenario_json(2.0);
  j["allow_disaggregated"] = true;
  RecordingBackend backend;
  game::GameOptions opts;
  opts.windows = std::make_shared<game::ServingWindows>(backend);
  game::Game g(test::scenario_from(j), cat, opts);
  REQUIRE(g.apply(game::RentGpus{"h200", Contract::kOnDemand, 2}).ok);
  game::Deploy d{"gpt-oss-120b", "h200", std::nullopt, 1, {}, {}};
  if (split) d.decode = game::DecodePoolSpec{"h200", 1, {}, serving::KvLinkKind::kNvlink};
  auto r = g.apply(d);
  REQUIRE_MESSAGE(r.ok, r.message);
  g.step();
  REQUIRE_FALSE(backend.seen->empty());
  std::vector<KvAdmission> out;
  for (const auto& c : *backend.seen) {
    out.push_back(c.scheduler.kv_admission);
    CHECK(c.disaggregated.has_value() == split);
    if (c.disaggregated) out.push_back(c.disaggregated->decode.scheduler.kv_admission);
  }
  return out;
}

nlohmann::json sweep_json(bool split) {
  nlohmann::json base = {{"model", "gpt-oss-120b"}, {"hardware", "h200"}};
  if (split) {
    base["disaggregated"] = true;
    base["kv_link"] = "nvlink";
  }
  return {{"format_version", 1},
          {"name", "plan"},
          {"base", base},
          {"workloads", {{{"name", "short"}, {"kind", "random"}, {"input_tokens", 256}, {"output_tokens", 64}}}},
          {"concurrency", {2}},
          {"seeds", {1}},
          {"requests_per_user", 2}};
}

}  // namespace

TEST_CASE(
    "an engine behaviour set once on its card reaches aggregated and split deployments, the game, the advisor "
    "and sweeps") {
  const data::Catalog cat = catalog_with_new_rule();
  constexpr auto kNew = KvAdmission::kGuaranteedNoEvict;

  SUBCASE("the game, one pool and two pools") {
    for (bool split : {false, true}) {
      CAPTURE(split);
      const auto seen = game_admissions(cat, split);
      for (auto a : seen) CHECK(a == kNew);
    }
  }
  SUBCASE("the advisor's own runs of the deployment") {
    const auto j = test::flat_scenario_json(2.0);
    const game::Scenario scenario = test::scenario_from(j);
    game::DeploymentState d;
    d.model = "gpt-oss-120b";
    d.chip = "h200";
    d.segment = scenario.segments.front().id;
    d.recipe = game::default_recipe(cat, cat.model(d.model), cat.accelerator(d.chip));
    const auto cal = perf::calibration_for(cat, cat.accelerator("h200"));
    advisor::DeploymentSetup setup(cat, scenario, d, d.recipe, cal, 1.0);
    CHECK(setup.open_loop(60, 1, advisor::unit_op_times()).scheduler.kv_admission == kNew);
    CHECK(setup.benchmark(8, 16, 1, advisor::unit_op_times()).scheduler.kv_admission == kNew);
  }
  SUBCASE("sweeps, one pool and two pools") {
    for (bool split : {false, true}) {
      CAPTURE(split);
      const auto spec = analysis::parse_sweep_spec(sweep_json(split), "plan.json");
      const auto c = analysis::resolve_config(spec, cat, spec.base, "base", "/base");
      CHECK(c.scheduler().kv_admission == kNew);
      REQUIRE(c.disaggregation().has_value() == split);
      if (split) CHECK(c.disaggregation()->decode.scheduler.kv_admission == kNew);
    }
  }
  SUBCASE("the bundled card is unchanged: the rule above came from the one edit") {
    const auto& stock = test::catalog();
    CHECK(stock.engine(stock.find_recipe("gpt-oss-120b", "h200")->engine).kv_admission != kNew);
  }
}

TEST_CASE(
    "a decode pool's unset recipe fields follow one rule: the prefill pool's on its chip, its own chip's "
    "recipe elsewhere") {
  serving::ServingOverrides prefill;
  prefill.tensor_parallel = 2;
  prefill.precision = Precision::kFp8;
  prefill.max_num_seqs = 64;
  prefill.kv_cache_dtype = Precision::kFp8;
  prefill.prefix_caching = false;
  serving::ServingOverrides decode;
  decode.max_num_batched_tokens = 512;

  const auto same = serving::decode_overrides(prefill, decode, /*same_chip=*/true);
  CHECK(same.tensor_parallel == 2);
  CHECK(same.precision == Precision::kFp8);
  CHECK(same.max_num_seqs == 64);
  CHECK(same.max_num_batched_tokens == 512);  // its own field wins
  CHECK(same.kv_cache_dtype == Precision::kFp8);

  // Another chip: parallelism, weight precision and batch limits are sized to that chip's memory
  // and domain, so they come from its recipe; the engine-wide choices still carry over.
  const auto other = serving::decode_overrides(prefill, decode, /*same_chip=*/false);
  CHECK_FALSE(other.tensor_parallel.has_value());
  CHECK_FALSE(other.precision.has_value());
  CHECK_FALSE(other.max_num_seqs.has_value());
  CHECK(other.max_num_batched_tokens == 512);
  CHECK(other.kv_cache_dtype == Precision::kFp8);
  CHECK(other.prefix_caching == false);
}

TEST_CASE("a plan's speedup tunes every pool, and its identity tells a tuned plan from a stock one") {
  const auto& cat = test::catalog();
  serving::PlanRequest r;
  r.model = &cat.model("gpt-oss-120b");
  r.pool.chip = "h200";
  r.decode = serving::PoolRequest{"b200", {}, 1};
  const auto stock = serving::resolve_plan(cat, r, serving::catalog_calibrations(cat));
  r.speedup = 1.25;
  const auto tuned = serving::resolve_plan(cat, r, serving::catalog_calibrations(cat));

  // x1.25 on the peaks and bandwidths of both pools' chips (exact: a multiplication).
  const auto& h200 = cat.accelerator("h200");
  const auto& b200 = cat.accelerator("b200");
  CHECK(tuned.config.deployment.hardware->hbm_bandwidth_bytes_per_s == h200.hbm_bandwidth_bytes_per_s * 1.25);
  CHECK(tuned.config.disaggregated->decode.deployment.hardware->hbm_bandwidth_bytes_per_s ==
        b200.hbm_bandwidth_bytes_per_s * 1.25);
  // The decode pool carries its own chip's calibration, tuned too.
  REQUIRE(tuned.config.disaggregated->decode.calibration.has_value());
  CHECK(tuned.config.disaggregated->decode.calibration->chip == stock.config.disaggregated->decode.calibration->chip);
  CHECK(tuned.config.disaggregated->decode.calibration->kernel_floor_s ==
        doctest::Approx(stock.config.disaggregated->decode.calibration->kernel_floor_s / 1.25).epsilon(1e-12));
  // The stock plan points into the catalog; a copy of the tuned plan keeps its chips alive.
  CHECK(stock.config.deployment.hardware == &h200);
  const serving::DeploymentPlan copy = tuned;
  CHECK(copy.config.deployment.hardware == tuned.config.deployment.hardware);
  // Same run, tuned or not: two identities; the same plan resolved again: the same one.
  CHECK(stock.identity(stock.config) != tuned.identity(tuned.config));
  r.speedup = 1.0;
  const auto again = serving::resolve_plan(cat, r, serving::catalog_calibrations(cat));
  CHECK(again.identity(again.config) == stock.identity(stock.config));
}

TEST_CASE("a plan that cannot run names the pool and the reason") {
  const auto& cat = test::catalog();
  serving::PlanRequest r;
  r.model = &cat.model("gpt-oss-120b");
  r.pool.chip = "h200";
  r.decode = serving::PoolRequest{"h200", {}, 1};
  r.decode->recipe.engine = "sglang";
  try {
    (void)serving::resolve_plan(cat, r, {});
    FAIL("a split over two engines ran");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("both pools run one engine") != std::string::npos);
  }
  r.decode->recipe.engine.reset();
  r.decode->recipe.max_num_seqs = 0;
  try {
    (void)serving::resolve_plan(cat, r, {});
    FAIL("a decode pool with max_num_seqs 0 ran");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).rfind("decode pool: ", 0) == 0);
  }
}

}  // namespace tycoon
