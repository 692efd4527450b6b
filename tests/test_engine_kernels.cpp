// The engines' own MoE kernels (hardware_db/engine_kernels/moe.json, sim/perf/engine_kernels.cpp):
// on a chip this project has not measured, an engine with a published MoE kernel prices its
// routed experts with it; the published sizes come out exactly, splits the derivation did not use
// come out close, and a measured chip keeps its own curves.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "sim/core/input_error.h"
#include "sim/core/types.h"
#include "sim/data/catalog.h"
#include "sim/data/json_reader.h"
#include "sim/perf/engine_kernels.h"
#include "sim/perf/iteration_cost.h"
#include "sim/perf/op_class.h"
#include "sim/perf/profile_lookup.h"
#include "sim/serving/resolve_config.h"
#include "tests/test_common.h"

using namespace tycoon;
using perf::OpClass;

namespace {

constexpr double kExactModel = 1e-9;  // the derivation inverted: the same arithmetic both ways
// A split of the same kernel the derivation did not use (more GPUs, so smaller expert slices per
// GPU): the median over its decode sizes within this share of the published times.
constexpr double kOtherSplitTol = 0.15;

nlohmann::json read_json(const std::filesystem::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

perf::Deployment deployment(const char* model, const char* chip, const char* engine, Precision p, int tp) {
  perf::Deployment d;
  d.model = &test::catalog().model(model);
  d.hardware = &test::catalog().accelerator(chip);
  d.engine = &test::catalog().engine(engine);
  d.precision = p;
  d.tensor_parallel = tp;
  return d;
}

// One MoE layer's expert op in milliseconds, for a decode step of `tokens` sequences.
double expert_ms(const perf::Deployment& d, const perf::CalibrationProfile& cal, int tokens, double moe_layers) {
  return perf::predict_decode(d, cal, tokens, 1).op(OpClass::kMoeExperts).time_s * 1e3 / moe_layers;
}

}  // namespace

TEST_CASE("engine MoE kernels: every published size comes out as published, on chips we have not measured") {
  const auto& cat = test::catalog();
  const auto file = read_json(cat.root / "hardware_db" / "engine_kernels" / "moe.json");
  int checked = 0;
  for (const auto& k : file["kernels"]) {
    const std::string chip = k["hardware"], engine = k["engine"], model = k["model"];
    const auto cal = perf::calibration_for(cat, cat.accelerator(chip));
    // A measured chip (the H200) keeps its own curves: its entries are the check's, not the model's.
    if (cal.provenance == perf::Provenance::kMeasured) continue;
    const auto weights = *parse_enum<Precision>(k["weights"].get<std::string>(), kPrecisionNames);
    const auto math = *parse_enum<Precision>(k["math"].get<std::string>(), kPrecisionNames);
    auto d = deployment(model.c_str(), chip.c_str(), engine.c_str(), weights, k["tp"].get<int>());
    d.expert_parallel = k["ep"].get<int>();
    if (weights == Precision::kFp4 && cat.accelerator(chip).supports(Precision::kFp4)) d.expert_activation = math;
    REQUIRE(d.expert_math_precision(weights) == math);
    REQUIRE(cal.engine_moe_kernel(engine, weights, math) != nullptr);
    double moe_layers = 0;
    for (const auto& g : d.model->layer_groups) {
      if (g.ffn && g.ffn->kind == data::FfnKind::kMoe) moe_layers += g.count;
    }
    for (const auto& point : k["tokens_ms"]) {
      const int tokens = point[0].get<int>();
      CAPTURE(chip);
      CAPTURE(engine);
      CAPTURE(k["weights"].get<std::string>());
      CAPTURE(k["math"].get<std::string>());
      CAPTURE(tokens);
      // One fused call: the activation and the combine are inside the published time.
      CHECK(expert_ms(d, cal, tokens, moe_layers) == doctest::Approx(point[1].get<double>()).epsilon(kExactModel));
      ++checked;
    }
  }
  CHECK(checked >= 20 * 20);
  // The chip's own source names where the expert times come from.
  const auto b200 = perf::calibration_for(cat, cat.accelerator("b200"));
  CHECK(b200.source.find("hardware_db/engine_kernels/moe.json") != std::string::npos);
}

TEST_CASE("engine MoE kernels: other splits of the same kernel, not used to derive it, come out close") {
  const auto& cat = test::catalog();
  const auto published = read_json(cat.root / "calibration" / "published" / "moe_kernels.json");
  const auto b200 = perf::calibration_for(cat, cat.accelerator("b200"));
  for (int tp : {2, 4}) {
    CAPTURE(tp);
    const auto d = deployment("gpt-oss-120b", "b200", "vllm", Precision::kFp4, tp);
    std::vector<double> ratios;
    for (const auto& s : published["series"]) {
      if (s["gpu"] != "b200" || s["engine"] != "vllm" || s["model"] != "gpt-oss-120b" || s["moe_tp"] != tp ||
          s["kernel_source"].get<std::string>().find("flashinfer_trtllm") == std::string::npos) {
        continue;
      }
      for (const auto& point : s["tokens_ms"]) {
        const int tokens = point[0].get<int>();
        if (tokens < 8 || tokens > 256) continue;  // decode batches
        ratios.push_back(expert_ms(d, b200, tokens, 36) / point[1].get<double>());
      }
    }
    REQUIRE(ratios.size() >= 8);
    std::nth_element(ratios.begin(), ratios.begin() + ratios.size() / 2, ratios.end());
    CHECK(ratios[ratios.size() / 2] == doctest::Approx(1.0).epsilon(kOtherSplitTol));
  }
}

TEST_CASE("engine MoE kernels: a measured chip keeps its own curves; an engine without a published kernel too") {
  const auto& cat = test::catalog();
  // The H200's curves are this project's measurements: its calibration and validation were made
  // with them, so no engine kernel replaces them there.
  CHECK(perf::calibration_for(cat, cat.accelerator("h200")).engine_moe.empty());
  // The H100 borrows the H200's curves (extrapolated): the engines' published kernels apply.
  CHECK_FALSE(perf::calibration_for(cat, cat.accelerator("h100")).engine_moe.empty());
  // On the B200, an engine with no published kernel (llama.cpp) prices experts with the chip's
  // curves and adds the activation and the combine as kernels of their own.
  const auto b200 = perf::calibration_for(cat, cat.accelerator("b200"));
  const auto vllm = deployment("gpt-oss-120b", "b200", "vllm", Precision::kFp4, 1);
  const auto llama = deployment("gpt-oss-120b", "b200", "llamacpp", Precision::kFp4, 1);
  const auto v = perf::predict_decode(vllm, b200, 64, 1);
  const auto l = perf::predict_decode(llama, b200, 64, 1);
  // Same weights read; the unfused engine also moves the activation's and the combine's bytes.
  CHECK(l.op(OpClass::kMoeExperts).bytes > v.op(OpClass::kMoeExperts).bytes);
}

TEST_CASE("engine MoE kernels: a bad kernels file names the file, the place and the reason") {
  const auto& cat = test::catalog();
  const auto dir = std::filesystem::temp_directory_path() / ("tycoon-engine-kernels-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / "moe.json";
  // The file around one kernel entry (written piecewise: GCC 12 at -O1 warns falsely on a
  // literal + string concatenation here).
  auto write = [&](const std::string& kernel) {
    std::ofstream out(path);
    out << R"({"about": "x", "kernels": [)" << kernel << "]}";
  };
  auto error_of = [&]() -> std::string {
    perf::CalibrationProfile p;
    try {
      perf::attach_engine_moe_kernels(p, cat, cat.accelerator("b200"), path);
    } catch (const data::LoadError& e) {
      CHECK(e.file() == path.string());
      return e.pointer() + ": " + e.reason();
    }
    return "";
  };
  const std::string good = R"({"hardware": "b200", "engine": "vllm", "weights": "fp4", "math": "bf16",
    "model": "gpt-oss-120b", "tp": 1, "ep": 1, "source": "test", "tokens_ms": [[1, 0.03], [2, 0.04]]})";
  write(good);
  CHECK(error_of().empty());
  std::string unknown = good;
  unknown.replace(unknown.find("\"vllm\""), 6, "\"vlm\"");
  write(unknown);
  CHECK(error_of() == "/kernels/0/engine: unknown engine 'vlm'");
  std::string backwards = good;
  backwards.replace(backwards.find("[[1, 0.03], [2, 0.04]]"), 22, "[[2, 0.03], [1, 0.04]]");
  write(backwards);
  CHECK(error_of() == "/kernels/0/tokens_ms/1/0: token counts must increase from 1");
  std::string dense = good;
  dense.replace(dense.find("gpt-oss-120b"), 12, "llama-3.1-8b");
  write(dense);
  CHECK(error_of() == "/kernels/0/model: 'llama-3.1-8b' has no MoE layer");
  write(good + ", " + good);
  CHECK(error_of() ==
        "/kernels/1/math: a second kernel for b200 vllm fp4 bf16 (one per chip, engine, weights and math)");
  {
    std::ofstream out(path);
    out << R"({"about": "x", "kernel": []})";
  }
  CHECK(error_of().find("kernel") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("--expert-activation is refused where it would be ignored, with the reason") {
  const auto& cat = test::catalog();
  serving::ServingOverrides o;
  o.engine = "vllm";
  o.expert_activation = Precision::kFp8;
  // GPT-OSS-120B ships its experts in MXFP4: on a B200 the choice is the engine's to make.
  o.precision = Precision::kFp4;
  const auto r = serving::resolve_serving(cat, cat.model("gpt-oss-120b"), cat.accelerator("b200"), o);
  CHECK(r.deployment.expert_math_precision(Precision::kFp4) == Precision::kFp8);
  // Llama-3.1-70B has no experts: nothing to multiply in fp8.
  o.precision = Precision::kFp8;
  CHECK_THROWS_WITH_AS(serving::resolve_serving(cat, cat.model("llama-3.1-70b"), cat.accelerator("b200"), o),
                       doctest::Contains("applies to a native 4-bit expert checkpoint"), core::InputError);
  // A chip without fp4 math cannot take fp4 activations.
  o.precision = Precision::kFp4;
  o.expert_activation = Precision::kFp4;
  CHECK_THROWS_WITH_AS(serving::resolve_serving(cat, cat.model("gpt-oss-120b"), cat.accelerator("h200"), o),
                       doctest::Contains("has no fp4 math"), core::InputError);
}
