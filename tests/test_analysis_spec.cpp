// Sweep specs: strict parsing (every mistake named by file, JSON pointer and reason, before any
// simulation runs) and the grid's expansion.
#include <set>

#include "sim/analysis/sweep_spec.h"
#include "sim/data/json_reader.h"
#include "tests/test_analysis_support.h"

using namespace tycoon;
using namespace tycoon::analysis;
using analysis_test::catalog;
using analysis_test::tiny_spec;

namespace {

// The message of the LoadError that parsing and expanding `j` throws ("" when none).
std::string spec_error(const nlohmann::json& j) {
  try {
    auto spec = parse_sweep_spec(j, "spec.json");
    expand_sweep(spec, catalog());
  } catch (const data::LoadError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a malformed spec is refused with file, JSON pointer and reason") {
  SUBCASE("unknown top-level key") {
    auto j = tiny_spec();
    j["concurency"] = {1};
    CHECK(spec_error(j) == "spec.json: /concurency: unknown key");
  }
  SUBCASE("misspelled deployment field in base") {
    auto j = tiny_spec();
    j["base"]["tensor_paralel"] = 2;
    CHECK(spec_error(j) == "spec.json: /base/tensor_paralel: unknown key");
  }
  SUBCASE("wrong type in an axis") {
    auto j = tiny_spec();
    j["axes"]["tensor_parallel"] = {1, "two"};
    CHECK(spec_error(j) == "spec.json: /axes/tensor_parallel/1: expected an integer, got string");
  }
  SUBCASE("an axis that is not a deployment field") {
    auto j = tiny_spec();
    j["axes"]["concurrency"] = {1, 2};
    CHECK(spec_error(j).rfind("spec.json: /axes/concurrency: unknown axis", 0) == 0);
  }
  SUBCASE("bad precision name") {
    auto j = tiny_spec();
    j["axes"]["precision"] = {"bf16", "fp6"};
    CHECK(spec_error(j) == "spec.json: /axes/precision/1: 'fp6' is not one of: bf16, fp8, fp4, int4");
  }
  SUBCASE("unknown hardware id: the axis value is named") {
    auto j = tiny_spec();
    j["axes"]["hardware"] = {"h200", "h999"};
    CHECK(spec_error(j) == "spec.json: /axes/hardware/1: unknown hardware 'h999' (tycoon list hardware)");
  }
  SUBCASE("unknown model in a configuration") {
    auto j = tiny_spec();
    j["configurations"] = {{{"label", "a"}}, {{"label", "b"}, {"model", "no-such-model"}}};
    j.erase("axes");
    CHECK(spec_error(j) == "spec.json: /configurations/1: unknown model 'no-such-model' (tycoon list models)");
  }
  SUBCASE("a deployment that does not fit names its numbers") {
    auto j = tiny_spec();
    j["base"]["model"] = "llama-3.1-70b";
    j["base"]["hardware"] = "h100";
    j["axes"] = {{"precision", {"bf16"}}};
    const auto e = spec_error(j);
    CHECK(e.rfind("spec.json: /axes/precision/0: ", 0) == 0);
    CHECK(e.find("does not fit") != std::string::npos);
  }
  SUBCASE("a refusal found after the checks of ids still names its configuration's label") {
    // The label used to be moved into the result before the memory plan was checked, so this
    // refusal read "spec.json: /configurations/0: : ... does not fit".
    auto j = tiny_spec();
    j["configurations"] = {
        {{"label", "big-on-h100"}, {"model", "llama-3.1-70b"}, {"hardware", "h100"}, {"precision", "bf16"}}};
    j.erase("axes");
    const auto e = spec_error(j);
    CHECK(e.find("does not fit") != std::string::npos);
    CHECK(e.find(": big-on-h100") != std::string::npos);
  }
  SUBCASE("a workload longer than the context window") {
    auto j = tiny_spec();
    j["workloads"][0]["input_tokens"] = 200000;
    CHECK(spec_error(j).rfind("spec.json: /workloads/0: ", 0) == 0);
  }
  SUBCASE("zero concurrency, duplicate seeds, empty lists, margin as a percentage") {
    auto j = tiny_spec();
    j["concurrency"] = {0};
    CHECK(spec_error(j) == "spec.json: /concurrency/0: must be in [1, 1048576]");
    j = tiny_spec({1, 1});
    CHECK(spec_error(j) == "spec.json: /seeds: seeds must be distinct");
    j = tiny_spec();
    j["prices"] = nlohmann::json::array();
    CHECK(spec_error(j) == "spec.json: /prices: must not be empty");
    j = tiny_spec();
    j["target"]["gross_margin"] = 40;
    CHECK(spec_error(j) == "spec.json: /target/gross_margin: must be below 1 (a fraction: 0.4 is 40%)");
  }
  SUBCASE("two workloads or two prices of one name: their series and rows could not be told apart") {
    auto j = tiny_spec();
    j["workloads"] = nlohmann::json::array({{{"name", "w"}, {"kind", "random"}}, {{"name", "w"}, {"kind", "chat"}}});
    CHECK(spec_error(j) ==
          "spec.json: /workloads/1/name: workload names must be distinct: 'w' is also /workloads/0's (a name left "
          "out is derived from the entry)");
    j = tiny_spec();
    j["prices"] = nlohmann::json::array({{{"name", "a"}}, {{"name", "a"}, {"market_scale", 2}}});
    CHECK(spec_error(j).find("/prices/1/name: price names must be distinct: 'a'") != std::string::npos);
    j = tiny_spec();  // two identical entries without names derive one name
    j["prices"] = nlohmann::json::array({{{"market_scale", 2}}, {{"market_scale", 2}}});
    CHECK(spec_error(j).find("/prices/1/name: price names must be distinct") != std::string::npos);
  }
  SUBCASE("latency targets in seconds typed as milliseconds") {
    // 2 (meant: 2 s) is below the 10 ms TTFT floor: every point would miss it, so the spec is
    // refused with the reading that was probably meant; 10 ms itself is a target.
    auto j = tiny_spec();
    j["target"]["max_p90_ttft_ms"] = 2;
    CHECK(spec_error(j) ==
          "spec.json: /target/max_p90_ttft_ms: 2 ms is below 10 ms, faster than any deployment serves a first token: "
          "did you mean seconds? (2 s is \"max_p90_ttft_ms\": 2000)");
    j["target"]["max_p90_ttft_ms"] = 10;
    CHECK(spec_error(j).empty());
    j = tiny_spec();
    j["target"]["max_p99_ttft_ms"] = 0.5;
    CHECK(spec_error(j).find("/target/max_p99_ttft_ms: 0.5 ms is below 10 ms") != std::string::npos);
    // TPOT: 5.8 ms is served (Llama-3.1-8B on H200), 0.05 (meant: 50 ms) is not.
    j = tiny_spec();
    j["target"]["max_p90_tpot_ms"] = 5.8;
    CHECK(spec_error(j).empty());
    j["target"]["max_p90_tpot_ms"] = 0.05;
    CHECK(spec_error(j) ==
          "spec.json: /target/max_p90_tpot_ms: 0.05 ms is below 1 ms, faster than any deployment serves a next token: "
          "did you mean seconds? (0.05 s is \"max_p90_tpot_ms\": 50)");
  }
  SUBCASE("a price given both ways") {
    auto j = tiny_spec();
    j["prices"] = {{{"market_scale", 1.0}, {"input_usd_per_mtok", 1}, {"output_usd_per_mtok", 2}}};
    CHECK(spec_error(j) == "spec.json: /prices/0: give market_scale or absolute prices, not both");
  }
  SUBCASE("missing concurrency") {
    auto j = tiny_spec();
    j.erase("concurrency");
    CHECK(spec_error(j) == "spec.json: /concurrency: missing required field");
  }
}

TEST_CASE("the grid expands to configurations x axes x workloads x concurrency x seeds") {
  // 1 configuration x precision {bf16, fp8} = 2 configurations; x 1 workload = 2 series;
  // x 2 concurrencies x 3 seeds = 12 points. Prices (2) multiply CSV rows, not simulations.
  auto spec = parse_sweep_spec(tiny_spec({1, 2, 3}), "spec.json");
  auto sweep = expand_sweep(spec, catalog());
  CHECK(sweep.configs.size() == 2);
  CHECK(sweep.series.size() == 2);
  CHECK(sweep.points.size() == 12);
  CHECK(sweep.configs[0].label == "bf16");
  CHECK(sweep.configs[1].deployment().precision == Precision::kFp8);
  // Grid order: series, then concurrency, then seed.
  CHECK(sweep.points[0].concurrency == 2);
  CHECK(sweep.points[0].seed == 1);
  CHECK(sweep.points[2].seed == 3);
  CHECK(sweep.points[3].concurrency == 8);
  CHECK(sweep.points[6].series == 1);
  // requests_per_user 4: 4 x concurrency requests per point.
  CHECK(sweep.points[3].num_requests == 32);
  // Every point has its own resume key.
  std::set<std::string> hashes;
  for (const auto& p : sweep.points) hashes.insert(p.hash);
  CHECK(hashes.size() == sweep.points.size());
  // The rent comes from the catalog: H200 on demand.
  CHECK(sweep.configs[0].gpu_usd_per_hour ==
        doctest::Approx(catalog().accelerator("h200").price(Contract::kOnDemand)->price_usd_per_gpu_hour));
}

TEST_CASE("configurations cross with axes; the spec hash ignores formatting, not content") {
  auto j = tiny_spec();
  j["configurations"] = {{{"label", "H200"}}, {{"label", "H100"}, {"hardware", "h100"}}};
  auto spec = parse_sweep_spec(j, "spec.json");
  auto sweep = expand_sweep(spec, catalog());
  REQUIRE(sweep.configs.size() == 4);  // 2 configurations x 2 precisions
  CHECK(sweep.configs[2].label == "H100 bf16");
  CHECK(sweep.configs[2].deployment().hardware->id == "h100");

  auto again = expand_sweep(parse_sweep_spec(nlohmann::json::parse(j.dump(4)), "other.json"), catalog());
  CHECK(again.spec_hash == sweep.spec_hash);
  j["seeds"] = {1, 3};
  auto changed = expand_sweep(parse_sweep_spec(j, "spec.json"), catalog());
  CHECK(changed.spec_hash != sweep.spec_hash);
  // Points shared by both grids keep their key: a changed spec could reuse them.
  CHECK(changed.points[0].hash == sweep.points[0].hash);
}

TEST_CASE("a spec name is a plain id: it names the output folder, so no path or shell text gets in") {
  // sweeps/<name> is the default output folder, and the name once reached a shell command line
  // (the PNG converter): "x';touch INJECTED;'" ran touch, "../../x" wrote outside sweeps/.
  for (const char* name : {"x';touch INJECTED;'", "../../x", "/tmp/abs", "Upper", "with space", "-flag", ""}) {
    CAPTURE(name);
    auto j = tiny_spec();
    j["name"] = name;
    CHECK(spec_error(j).rfind("spec.json: /name: '", 0) == 0);
    CHECK(spec_error(j).find("must be 1 to 64 characters of a-z, 0-9 and '-'") != std::string::npos);
  }
  auto j = tiny_spec();
  j["name"] = "price-for-40pct-margin";
  CHECK(spec_error(j) == "");
}

TEST_CASE("a deeply nested spec is refused while parsing, before any copy") {
  // The spec used to be copied (recursively) before any check: 100,000 levels crashed.
  const std::string deep =
      R"({"format_version": 1, "name": "deep", "base": )" + std::string(100000, '[') + std::string(100000, ']') + "}";
  std::string msg;
  try {
    parse_sweep_spec(data::parse_json_text(deep, "deep.json"), "deep.json");
  } catch (const data::LoadError& e) {
    msg = e.what();
  }
  CHECK(msg.find("deep.json: /base/0/0/") == 0);
  CHECK(msg.find("nested deeper than 64 objects or arrays") != std::string::npos);
}
