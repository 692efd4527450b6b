// Sweeps over disaggregated prefill/decode deployments: `disaggregated` as an axis, the decode
// pool's fields, its rent, and what reaches the simulator.
#include "sim/analysis/sweep_run.h"
#include "sim/analysis/sweep_spec.h"
#include "sim/data/json_reader.h"
#include "tests/test_analysis_support.h"

using namespace tycoon;
using namespace tycoon::analysis;
using analysis_test::catalog;
using analysis_test::tiny_spec;

namespace {

std::string split_spec_error(const nlohmann::json& j) {
  try {
    auto spec = parse_sweep_spec(j, "spec.json");
    expand_sweep(spec, catalog());
  } catch (const data::LoadError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("disaggregated is a sweep axis: aggregated and disaggregated series of one deployment") {
  // tiny_spec: precision {bf16, fp8} x disaggregated {false, true} = 4 configurations.
  auto j = tiny_spec({1});
  j["axes"]["disaggregated"] = {false, true};
  j["base"]["decode_replicas"] = 2;  // the decode pool: 2 replicas of the prefill pool's recipe
  j["base"]["kv_link"] = "ethernet";
  // decode_* without disaggregated: the aggregated values of the axis refuse them.
  CHECK(split_spec_error(j).find("set \"disaggregated\": true") != std::string::npos);
  j["base"].erase("decode_replicas");
  j["base"].erase("kv_link");
  j["axes"].erase("disaggregated");
  j["configurations"] = {
      {{"label", "agg"}},
      {{"label", "disagg"}, {"disaggregated", true}, {"decode_replicas", 2}, {"kv_link", "ethernet"}}};
  auto spec = parse_sweep_spec(j, "spec.json");
  auto sweep = expand_sweep(spec, catalog());
  REQUIRE(sweep.configs.size() == 4);  // {agg, disagg} x {bf16, fp8}
  const auto& agg = sweep.configs[0];
  const auto& dis = sweep.configs[2];
  CHECK(!agg.disaggregation().has_value());
  REQUIRE(dis.disaggregation().has_value());
  CHECK(dis.replicas() == 1);
  CHECK(dis.disaggregation()->decode.replicas == 2);
  // Same chip: the decode pool takes the prefill pool's precision and TP.
  CHECK(dis.disaggregation()->decode.deployment.precision == dis.deployment().precision);
  CHECK(dis.disaggregation()->decode.deployment.tensor_parallel == dis.deployment().tensor_parallel);
  CHECK(dis.disaggregation()->link.kind == serving::KvLinkKind::kEthernet);
  CHECK(dis.disaggregation()->link.bandwidth_bytes_per_s == doctest::Approx(10e9));
  // Same chip, same rent per GPU.
  CHECK(dis.gpu_usd_per_hour == doctest::Approx(agg.gpu_usd_per_hour));
  // Aggregated configurations hash as before (no "disaggregated" key); the two differ.
  CHECK(!agg.describe().contains("disaggregated"));
  CHECK(dis.describe().contains("disaggregated"));
  CHECK(sweep.points[0].hash != sweep.points[2 * 2].hash);
  // The simulator gets both pools: 1 prefill + 2 decode GPUs.
  const auto& point = sweep.points[2 * 2];  // series 2 (disagg bf16), first concurrency, seed 1
  auto cfg = serving_config(sweep, spec, point);
  REQUIRE(cfg.disaggregated.has_value());
  auto s = serving::simulate(cfg, perf::CalibrationProfile::datasheet("h200"));
  CHECK(s.num_gpus == 3);
  CHECK(s.requests_completed == point.num_requests);
  REQUIRE(s.disaggregated.has_value());
  CHECK(s.disaggregated->num_transfers == point.num_requests);
}

TEST_CASE("a decode pool on another chip resolves its own recipe and the rent is GPU-weighted") {
  // GPT-OSS-120B: prefill on 1 H200 (its recipe), decode on 2 B200 (the B200 recipe's FP4, TP1).
  // Rent per GPU = (1 x H200 + 2 x B200) / 3 GPUs.
  nlohmann::json j = {
      {"format_version", 1},
      {"name", "mixed"},
      {"base", {{"model", "gpt-oss-120b"}, {"hardware", "h200"}, {"engine", "vllm"}}},
      {"configurations",
       {{{"label", "h200 -> b200"}, {"disaggregated", true}, {"decode_hardware", "b200"}, {"decode_replicas", 2}}}},
      {"workloads", {{{"name", "short"}, {"kind", "random"}, {"input_tokens", 256}, {"output_tokens", 64}}}},
      {"concurrency", {2}},
      {"seeds", {1}},
      {"prices", {{{"name", "market"}}}}};
  auto spec = parse_sweep_spec(j, "spec.json");
  auto sweep = expand_sweep(spec, catalog());
  const auto& c = sweep.configs[0];
  REQUIRE(c.disaggregation().has_value());
  const auto& dd = c.disaggregation()->decode.deployment;
  const auto* recipe = catalog().find_recipe("gpt-oss-120b", "b200");
  REQUIRE(recipe != nullptr);
  CHECK(dd.hardware->id == "b200");
  CHECK(dd.precision == recipe->precision);
  CHECK(dd.tensor_parallel == recipe->tensor_parallel);
  const double h200 = catalog().accelerator("h200").price(Contract::kOnDemand)->price_usd_per_gpu_hour;
  const double b200 = catalog().accelerator("b200").price(Contract::kOnDemand)->price_usd_per_gpu_hour;
  CHECK(c.gpu_usd_per_hour == doctest::Approx((h200 + 2 * b200) / 3));
  // NVLink does not join two chip types: refused at the configuration's pointer.
  j["configurations"][0]["kv_link"] = "nvlink";
  CHECK(split_spec_error(j).rfind("spec.json: /configurations/0: ", 0) == 0);
  // The run picks the B200 calibration for the decode pool.
  auto cals = calibrations_for(sweep, catalog());
  auto perf = run_point(sweep, spec, sweep.points[0], cals);
  CHECK(perf.error.empty());
  CHECK(perf.num_gpus == 3);
}

TEST_CASE("an aggregated fleet: `replicas` and `router` reach the simulator, and a fleet hashes apart") {
  auto j = tiny_spec({1});
  j["axes"].erase("precision");
  j["configurations"] = {{{"label", "one"}}, {{"label", "fleet"}, {"replicas", 4}, {"router", "least-outstanding"}}};
  auto spec = parse_sweep_spec(j, "spec.json");
  auto sweep = expand_sweep(spec, catalog());
  REQUIRE(sweep.configs.size() == 2);
  const auto& one = sweep.configs[0];
  const auto& fleet = sweep.configs[1];
  CHECK(one.num_gpus() == 1);
  CHECK(fleet.num_gpus() == 4);  // 4 replicas of TP1
  // A single replica hashes as before (no "replicas" key); a fleet names its size and router.
  CHECK(!one.describe().contains("replicas"));
  CHECK(fleet.describe()["replicas"] == 4);
  CHECK(fleet.describe()["router"] == "least-outstanding");
  CHECK(sweep.points[0].hash != sweep.points[spec.concurrency.size()].hash);
  auto cfg = serving_config(sweep, spec, sweep.points[spec.concurrency.size()]);
  CHECK(cfg.replicas == 4);
  CHECK(cfg.router == serving::RouterKind::kLeastOutstanding);
  // A split deployment routes over its prefill replicas too: another router hashes apart, and
  // round robin hashes as before (no key).
  {
    auto d = tiny_spec({1});
    d["axes"].erase("precision");
    d["configurations"] = {
        {{"label", "rr"}, {"disaggregated", true}, {"prefill_replicas", 2}},
        {{"label", "pa"}, {"disaggregated", true}, {"prefill_replicas", 2}, {"router", "prefix-affinity"}}};
    auto ds = parse_sweep_spec(d, "spec.json");
    auto dx = expand_sweep(ds, catalog());
    CHECK(!dx.configs[0].describe()["disaggregated"].contains("router"));
    CHECK(dx.configs[1].describe()["disaggregated"]["router"] == "prefix-affinity");
    CHECK(dx.points[0].hash != dx.points[ds.concurrency.size()].hash);
  }
  // `replicas` counts an aggregated deployment's: a split one names each pool's.
  j["configurations"][1]["disaggregated"] = true;
  CHECK(split_spec_error(j).find("prefill_replicas and decode_replicas") != std::string::npos);
  j["configurations"][1].erase("disaggregated");
  j["configurations"][1]["router"] = "random";
  CHECK(split_spec_error(j).find("/configurations/1/router: 'random' is not one of") != std::string::npos);
}

TEST_CASE("the xpyd_gpus axis enumerates every split of a GPU budget and the aggregated fleet of it") {
  // Llama-3.1-8B at TP1 in both pools, 4 GPUs: aggregated x4, 1P3D, 2P2D, 3P1D; at decode TP2:
  // x + 2y = 4 leaves only 2P1D beside the aggregated fleet.
  auto j = tiny_spec({1});
  j["axes"] = {{"xpyd_gpus", {4}}};
  j["base"]["kv_link"] = "nvlink";  // set for the splits, dropped for the aggregated fleet
  auto spec = parse_sweep_spec(j, "spec.json");
  auto sweep = expand_sweep(spec, catalog());
  std::vector<std::string> labels;
  for (const auto& c : sweep.configs) {
    labels.push_back(c.label);
    CHECK(c.num_gpus() == 4);  // every configuration spends the whole budget
  }
  CHECK(labels == std::vector<std::string>{"4 GPUs aggregated x4", "4 GPUs 1P3D", "4 GPUs 2P2D", "4 GPUs 3P1D"});
  CHECK(!sweep.configs[0].disaggregation().has_value());
  REQUIRE(sweep.configs[1].disaggregation().has_value());
  CHECK(sweep.configs[1].disaggregation()->link.kind == serving::KvLinkKind::kNvlink);
  CHECK(sweep.configs[1].disaggregation()->decode.replicas == 3);

  j["base"]["decode_tensor_parallel"] = 2;
  spec = parse_sweep_spec(j, "spec.json");
  sweep = expand_sweep(spec, catalog());
  REQUIRE(sweep.configs.size() == 2);
  CHECK(sweep.configs[1].label == "4 GPUs 2P1D");
  CHECK(sweep.configs[1].disaggregation()->decode.deployment.tensor_parallel == 2);

  // The axis sets the split itself; a budget nothing fills, or a repeated one, is refused where written.
  j["base"].erase("decode_tensor_parallel");
  j["base"]["decode_replicas"] = 2;
  CHECK(split_spec_error(j).find("the xpyd_gpus axis sets disaggregated") != std::string::npos);
  j["base"].erase("decode_replicas");
  j["axes"]["xpyd_gpus"] = {4, 4};
  CHECK(split_spec_error(j).find("/axes/xpyd_gpus/1: GPU budgets must be distinct") != std::string::npos);
  j["axes"]["xpyd_gpus"] = {1};
  CHECK(split_spec_error(j).find("/axes/xpyd_gpus/0: must be in [2, 512]") != std::string::npos);
  j["axes"]["xpyd_gpus"] = {3};
  j["base"]["tensor_parallel"] = 2;
  j["base"]["decode_tensor_parallel"] = 2;
  CHECK(split_spec_error(j).find("no aggregated fleet or xPyD split fills 3 GPUs") != std::string::npos);
}
