// Which kernel a chip runs and how measured curves move between chips:
// prefill attention over a cached context, the latency and throughput terms of a curve measured
// on another chip, and 4-bit weights on chips with and without FP4 tensor cores.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "sim/data/catalog.h"
#include "sim/data/json_reader.h"
#include "sim/perf/deployment_json.h"
#include "sim/perf/iteration_cost.h"
#include "sim/perf/profile_lookup.h"
#include "sim/serving/resolve_config.h"
#include "tests/test_common.h"
#include "tests/test_perf_support.h"

using namespace tycoon;
using perf::OpClass;

namespace {

constexpr double kExactReordered = 1e-9;  // the same arithmetic, reordered
constexpr double kScaleTol = 0.03;        // a saturated op is within a few % of the curve's best efficiency

using test::catalog;

// Every efficiency 1 and no fixed costs: each op is its roofline (as in test_perf_model.cpp).
using perf_test::ideal_profile;

using perf_test::reference;

// Writes `card` with `field` set to `bad` as `dir`/vllm.json and checks that loading it is refused
// naming the file, the field and (when given) the reason.
void check_card_refused(nlohmann::json card, const std::filesystem::path& dir, const std::string& field,
                        const nlohmann::json& bad, const std::string& reason = "") {
  card[field] = bad;
  std::ofstream(dir / "vllm.json") << card.dump();
  INFO(bad.dump() << " should be refused" << (reason.empty() ? "" : ": " + reason));
  try {
    (void)data::load_engine(dir / "vllm.json");
    FAIL("accepted");
  } catch (const data::LoadError& e) {
    CHECK(e.file() == (dir / "vllm.json").string());
    CHECK(e.pointer().rfind("/" + field, 0) == 0);
    CHECK(std::string(e.what()).find(reason) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("prefill attention efficiency follows the context already cached, not only the new tokens") {
  auto d = reference("llama-3.1-8b", "h200");
  auto cal = ideal_profile("h200");
  // Efficiency 0.2 at a 512-token prefill rising to 0.8 at 16k (linear in log2 length).
  cal.attn_prefill_compute_eff = perf::Curve({{512, 0.2}, {16384, 0.8}});
  const double n = 2048, c = 61440;
  // A 2k chunk over a 60k context attends to n*c + n(n+1)/2 = 127,927,296 keys per head: the
  // work of a causal prefill of 15,994.6 tokens from empty, where the curve gives
  // 0.2 + 0.6 * (log2(15994.6) - 9) / 5 = 0.796, not eff(2048) = 0.44.
  const double keys = n * c + n * (n + 1) / 2;
  const double n_eq = (std::sqrt(1 + 8 * keys) - 1) / 2;
  CHECK(n_eq == doctest::Approx(15994.6).epsilon(1e-4));
  const double eff = 0.2 + 0.6 * (std::log2(n_eq) - 9) / 5;
  const double flop = 32 * 2.0 * 32 * (128 + 128) * keys;  // layers x 2 x heads x (qk + v dims) x keys
  auto cost = perf::predict_prefill(d, cal, static_cast<std::int64_t>(n), static_cast<std::int64_t>(c));
  CHECK(cost.op(OpClass::kAttentionPrefill).flop == doctest::Approx(flop).epsilon(kExactReordered));
  CHECK(cost.op(OpClass::kAttentionPrefill).compute_s ==
        doctest::Approx(flop / (989e12 * eff)).epsilon(kExactReordered));
  // From an empty cache the equivalent length is the chunk itself: eff(2048) = 0.44.
  auto fresh = perf::predict_prefill(d, cal, static_cast<std::int64_t>(n));
  const double fresh_flop = 32 * 2.0 * 32 * 256 * (n * (n + 1) / 2);
  CHECK(fresh.op(OpClass::kAttentionPrefill).compute_s ==
        doctest::Approx(fresh_flop / (989e12 * 0.44)).epsilon(kExactReordered));
}

TEST_CASE("curves borrowed from another chip: the latency term stays, only the throughput term scales") {
  // An H100 borrows the H200's measured curves (same 989 TFLOP/s bf16 peak; 3.35 instead of
  // 4.8 TB/s of HBM). An elementwise kernel moving s bytes at efficiency e took
  // t = s / (4.8e12 e) on the H200. Its fixed latency is that of the smallest measured kernel
  // beyond moving its bytes at the best efficiency e_max: t0 = s_min / (4.8e12 e(s_min)) -
  // s_min / (4.8e12 e_max) (at most a kernel's own excess over e_max). On the H100 the kernel
  // takes t0 + (t - t0) * 4.8 / 3.35, i.e. efficiency s / (3.35e12 * that).
  const auto& h100 = catalog().accelerator("h100");
  const auto& h200 = catalog().accelerator("h200");
  auto own = perf::calibration_for(catalog(), h200);
  auto borrowed = perf::calibration_for(catalog(), h100);
  REQUIRE(own.provenance != perf::Provenance::kExtrapolated);
  REQUIRE(borrowed.provenance == perf::Provenance::kExtrapolated);
  const double bw = h100.hbm_bandwidth_bytes_per_s, bw_m = h200.hbm_bandwidth_bytes_per_s;
  const auto& measured = own.elementwise_memory_eff.knots();
  const auto& moved = borrowed.elementwise_memory_eff.knots();
  REQUIRE(measured.size() > 1);
  REQUIRE(moved.size() == measured.size());
  double e_max = 0;
  for (const auto& k : measured) e_max = std::max(e_max, k.second);
  const double s_min = std::exp2(measured.front().first);
  const double t0 = s_min / (bw_m * measured.front().second) - s_min / (bw_m * e_max);
  for (std::size_t i = 0; i < measured.size(); ++i) {
    CAPTURE(i);
    const double s = std::exp2(measured[i].first), e = measured[i].second;
    const double t = s / (bw_m * e);
    const double latency = std::max(0.0, std::min(t0, t - s / (bw_m * e_max)));
    CHECK(moved[i].first == doctest::Approx(measured[i].first).epsilon(kExactReordered));
    CHECK(moved[i].second ==
          doctest::Approx(s / (bw * (latency + (t - latency) * bw_m / bw))).epsilon(kExactReordered));
  }
  // Compute curves scale by the peak ratio whole (their small-size values are memory-bound time,
  // which the memory term carries): a GB200 uses the H200's compute curves as they are (it
  // borrows the measured H200's, not the B200's levels fitted to published results).
  auto on_gb200 = perf::calibration_for(catalog(), catalog().accelerator("gb200"));
  REQUIRE(on_gb200.provenance == perf::Provenance::kExtrapolated);
  CHECK(on_gb200.gemm_compute_eff[0].knots() == own.gemm_compute_eff[0].knots());
}

TEST_CASE("a launch-bound op predicted on another chip keeps its fixed latency") {
  // Llama-3.1-8B decoding one sequence on an H100 with the H200's curves, against the H200
  // itself. The norms, rotary, activation and cache writes of one token move 16-86 kB each:
  // on the H200 they run far below the curve's best bandwidth (launch and ramp-up dominate), so
  // on the H100 they take about the same time, not 4.8 / 3.35 = 1.43x as long. The FFN's weight
  // read (235 MB per layer; its few microseconds of latency are a small share) scales by about
  // 1.43x.
  auto d200 = reference("llama-3.1-8b", "h200");
  auto d100 = reference("llama-3.1-8b", "h100");
  data::Engine vllm = catalog().engine("vllm");  // one fused kernel per elementwise step
  d200.engine = d100.engine = &vllm;
  auto on_h200 = perf::predict_decode(d200, perf::calibration_for(catalog(), *d200.hardware), 1, 128);
  auto on_h100 = perf::predict_decode(d100, perf::calibration_for(catalog(), *d100.hardware), 1, 128);
  const double bw_ratio = 4.8 / 3.35;
  const double small = on_h100.op(OpClass::kNormElementwise).memory_s / on_h200.op(OpClass::kNormElementwise).memory_s;
  const double large = on_h100.op(OpClass::kDenseFfn).memory_s / on_h200.op(OpClass::kDenseFfn).memory_s;
  CHECK(small < 1.1);  // latency kept (scaling the whole time would give 1.43)
  CHECK(small >= 1.0);
  CHECK(large == doctest::Approx(bw_ratio).epsilon(kScaleTol));
}

TEST_CASE("4-bit experts: W4A16 on Hopper (bf16 tensor cores), native FP4 on Blackwell") {
  // gpt-oss-120b's MXFP4 experts, a long prefill (compute-bound expert GEMMs). Weights are read
  // at 4 bits plus one 8-bit scale per 32 values on both chips.
  const double tokens = 16384;
  const double expert_flop = 2 * tokens * 4 * 2880.0 * 2880 * 3 * 36;  // pairs x width x inter x 3 mats x layers
  SUBCASE("H200: no FP4 tensor cores, the kernel dequantises to bf16 and multiplies at the bf16 peak") {
    auto d = reference("gpt-oss-120b", "h200", Precision::kFp4);
    REQUIRE_FALSE(d.hardware->supports(Precision::kFp4));
    CHECK(d.math_precision(Precision::kFp4) == Precision::kBf16);
    auto cost = perf::predict_prefill(d, ideal_profile("h200"), static_cast<std::int64_t>(tokens));
    CHECK(cost.op(OpClass::kMoeExperts).compute_s == doctest::Approx(expert_flop / 989e12).epsilon(kExactReordered));
  }
  SUBCASE("B200: FP4 tensor cores at the datasheet's 9 PFLOP/s dense") {
    auto d = reference("gpt-oss-120b", "b200", Precision::kFp4);
    REQUIRE(d.hardware->supports(Precision::kFp4));
    CHECK(d.math_precision(Precision::kFp4) == Precision::kFp4);
    auto cost = perf::predict_prefill(d, ideal_profile("b200"), static_cast<std::int64_t>(tokens));
    CHECK(cost.op(OpClass::kMoeExperts).compute_s == doctest::Approx(expert_flop / 9e15).epsilon(kExactReordered));
  }
}

TEST_CASE("grouped expert GEMMs reach a share of their own math's peak: fp8 has its own curve, fp4 shares it") {
  // DeepSeek-R1's fp8 experts on an H200 and its fp4 experts on a B200, a long prefill. The
  // profile's bf16 curve says 0.5 and its fp8 curve 0.3 at any size: an fp8 grouped GEMM reached
  // 0.30 of the fp8 peak at 256 rows per expert where the bf16 one reached 0.47 of its own
  // (calibration/data/h200/moe_fp8_grouped.jsonl), so scaling the bf16 curve by the fp8 peak
  // made prefill expert GEMMs 1.6x too fast.
  auto cal = ideal_profile("h200");
  cal.moe_compute_eff = {perf::Curve::constant(0.5), perf::Curve::constant(0.3), perf::Curve::constant(0.3)};
  const double tokens = 16384;
  auto moe_compute = [&](const char* chip, Precision p) {
    auto cost = perf::predict_prefill(reference("deepseek-r1", chip, p, 8), cal, static_cast<std::int64_t>(tokens));
    return cost.op(OpClass::kMoeExperts);
  };
  auto fp8 = moe_compute("h200", Precision::kFp8);
  CHECK(fp8.compute_s == doctest::Approx(fp8.flop / (1979e12 * 0.3)).epsilon(kExactReordered));
  auto bf16 = moe_compute("h200", Precision::kBf16);
  CHECK(bf16.compute_s == doctest::Approx(bf16.flop / (989e12 * 0.5)).epsilon(kExactReordered));
  auto fp4 = moe_compute("b200", Precision::kFp4);
  CHECK(fp4.compute_s == doctest::Approx(fp4.flop / (9e15 * 0.3)).epsilon(kExactReordered));
}

TEST_CASE("a W4A16 kernel the operator chooses (--mxfp4-backend) prices 4-bit experts at its shares of the curves") {
  // gpt-oss-120b's MXFP4 experts through an engine's alternative W4A16 kernel that reaches 0.4 of
  // the grouped GEMM's compute efficiency and 1.25 of its weight streaming: on an H200 (no 4-bit
  // math) the compute term of a long prefill is 1 / 0.4 = 2.5x the default kernel's. With the
  // memory curve at 0.5 the expert weights stream at 0.5 x 1.25 = 0.625 of the bandwidth, 1 / 1.25
  // of the default's time, and a share past the bandwidth is capped at it (0.5 x 4 -> 1: half the
  // default's time); the op's other traffic (activation, combine) is the same in all three, so the
  // capped kernel saves 0.5 / 0.2 = 2.5x what the 1.25 one saves. On a B200 (FP4 tensor cores)
  // and for fp8 weights the choice changes nothing, and the deployment is refused (below).
  data::Engine engine = test::catalog().engine("torch-reference");
  engine.w4a16_moe_kernels["slowfast"] = {{Vendor::kNvidia}, 0.4, 1.25};
  engine.w4a16_moe_kernels["past-bandwidth"] = {{Vendor::kNvidia}, 1.0, 4.0};
  const double tokens = 16384;
  auto experts = [&](const char* chip, Precision p, std::optional<std::string> backend) {
    auto d = reference("gpt-oss-120b", chip, p);
    d.engine = &engine;
    d.mxfp4_backend = backend;
    auto cal = ideal_profile(chip);
    cal.moe_memory_eff = perf::Curve::constant(0.5);
    return perf::predict_prefill(d, cal, static_cast<std::int64_t>(tokens)).op(OpClass::kMoeExperts);
  };
  auto chosen = experts("h200", Precision::kFp4, "slowfast"), plain = experts("h200", Precision::kFp4, std::nullopt);
  CHECK(chosen.compute_s == doctest::Approx(plain.compute_s / 0.4).epsilon(kExactReordered));
  const auto capped = experts("h200", Precision::kFp4, "past-bandwidth");
  CHECK(chosen.memory_s < plain.memory_s);
  CHECK(plain.memory_s - capped.memory_s ==
        doctest::Approx(2.5 * (plain.memory_s - chosen.memory_s)).epsilon(kExactReordered));
  for (const auto& [chip, p] : {std::pair{"b200", Precision::kFp4}, std::pair{"h200", Precision::kFp8}}) {
    CHECK(experts(chip, p, "slowfast").compute_s == experts(chip, p, std::nullopt).compute_s);
    CHECK(experts(chip, p, "slowfast").memory_s == experts(chip, p, std::nullopt).memory_s);
  }
}

TEST_CASE(
    "an H100 told to run vLLM's Marlin kernel leaves vLLM's published Triton table for the curves at Marlin's shares") {
  // The H100's profile carries vLLM's own published MoE kernel (aiconfigurator's Triton
  // matmul_ogs timings, hardware_db/engine_kernels/moe.json); the published InferenceX runs used
  // Marlin instead (VLLM_MXFP4_USE_MARLIN=1). With --mxfp4-backend marlin the experts are priced
  // by the H100's grouped-GEMM curves at the shares in vllm.json, not by the Triton table.
  const auto& cat = test::catalog();
  const auto cal = perf::calibration_for(cat, cat.accelerator("h100"));
  REQUIRE(cal.engine_moe_kernel("vllm", Precision::kFp4, Precision::kBf16) != nullptr);
  const data::W4a16MoeKernel* marlin = cat.engine("vllm").w4a16_moe_kernel("marlin");
  REQUIRE(marlin != nullptr);
  auto experts = [&](std::optional<std::string> backend, const data::Engine& e) {
    auto d = reference("gpt-oss-120b", "h100", Precision::kFp4);
    d.engine = &e;
    d.mxfp4_backend = backend;
    return perf::predict_prefill(d, cal, 8192).op(OpClass::kMoeExperts);
  };
  // The same engine without published kernels and without the shares' scaling: the curve path.
  data::Engine curves_only = cat.engine("vllm");
  curves_only.id = "vllm-curves";
  curves_only.w4a16_moe_kernels["unit"] = {{Vendor::kNvidia}, 1.0, 1.0};
  const auto with_marlin = experts("marlin", cat.engine("vllm"));
  const auto on_curves = experts("unit", curves_only);
  CHECK(with_marlin.compute_s == doctest::Approx(on_curves.compute_s / marlin->compute_share).epsilon(kExactReordered));
  // At decode sizes Marlin streams the touched experts' weights faster than the curve does: the
  // card's share of it, capped at the chip's best measured weight streaming (its dense GEMM's).
  auto decode = [&](std::optional<std::string> backend, const data::Engine& e) {
    auto d = reference("gpt-oss-120b", "h100", Precision::kFp4);
    d.engine = &e;
    d.mxfp4_backend = backend;
    return perf::predict_decode(d, cal, 16, 2048).op(OpClass::kMoeExperts);
  };
  const auto marlin_decode = decode("marlin", cat.engine("vllm")), curve_decode = decode("unit", curves_only);
  CHECK(marlin_decode.memory_s < curve_decode.memory_s);
  CHECK(marlin_decode.memory_s >= curve_decode.memory_s / marlin->memory_share * (1 - kExactReordered));
}

TEST_CASE("the benchmark's configuration names the W4A16 kernel an operator chose, and only then") {
  const auto& cat = test::catalog();
  serving::ServingOverrides o;
  o.engine = "vllm";
  o.precision = Precision::kFp4;
  o.spec_draft_tokens = 0;  // speculative decoding is outside the validation set too
  const auto plain = serving::resolve_serving(cat, cat.model("gpt-oss-120b"), cat.accelerator("h200"), o).deployment;
  CHECK_FALSE(perf::describe_deployment(plain).contains("mxfp4_backend"));
  o.mxfp4_backend = "marlin";
  const auto marlin = serving::resolve_serving(cat, cat.model("gpt-oss-120b"), cat.accelerator("h200"), o).deployment;
  CHECK(perf::describe_deployment(marlin)["mxfp4_backend"] == "marlin");
  CHECK(perf::outside_validation(marlin).find("marlin W4A16 expert kernel") != std::string::npos);
  CHECK(perf::outside_validation(plain).empty());
}

TEST_CASE("--mxfp4-backend is refused where it would be ignored or names no kernel of the engine") {
  const auto& cat = test::catalog();
  auto resolve = [&](const char* chip, const char* model, Precision p, const char* backend, const char* engine) {
    serving::ServingOverrides o;
    o.engine = engine;
    o.precision = p;
    o.mxfp4_backend = backend;
    return serving::resolve_serving(cat, cat.model(model), cat.accelerator(chip), o).deployment;
  };
  CHECK(resolve("h200", "gpt-oss-120b", Precision::kFp4, "marlin", "vllm").w4a16_moe_kernel() != nullptr);
  CHECK_THROWS_WITH_AS(resolve("h200", "gpt-oss-120b", Precision::kFp4, "cutlass", "vllm"),
                       doctest::Contains("has no such MXFP4 MoE kernel (it has: marlin;"), core::InputError);
  CHECK_THROWS_WITH_AS(resolve("h200", "gpt-oss-120b", Precision::kFp4, "marlin", "sglang"),
                       doctest::Contains("it has none to choose"), core::InputError);
  CHECK_THROWS_WITH_AS(resolve("b200", "gpt-oss-120b", Precision::kFp4, "marlin", "vllm"),
                       doctest::Contains("has 4-bit math"), core::InputError);
  CHECK_THROWS_WITH_AS(resolve("mi300x", "gpt-oss-120b", Precision::kFp4, "marlin", "vllm"),
                       doctest::Contains("marlin kernel does not run on the"), core::InputError);
  CHECK_THROWS_WITH_AS(resolve("h200", "llama-3.1-70b", Precision::kFp8, "marlin", "vllm"),
                       doctest::Contains("native 4-bit expert checkpoint"), core::InputError);
}

TEST_CASE("an engine card's W4A16 kernels are refused with the file, the field and the reason when malformed") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "tycoon-w4a16-card";
  fs::create_directories(dir);
  auto card = nlohmann::json::parse(std::ifstream(fs::path(TYCOON_SOURCE_DIR) / "hardware_db/engines/vllm.json"));
  const auto nv = nlohmann::json::array({"nvidia"});
  for (const auto& bad :
       {nlohmann::json{{"marlin", {{"vendors", nv}, {"compute_share", 0.0}, {"memory_share", 1.0}}}},
        nlohmann::json{{"marlin", {{"vendors", nv}, {"compute_share", 0.5}, {"memory_share", -1.0}}}},
        nlohmann::json{{"marlin", {{"vendors", nv}, {"compute_share", 0.5}}}},
        nlohmann::json{{"marlin", {{"compute_share", 0.5}, {"memory_share", 1.0}}}},
        nlohmann::json{
            {"marlin", {{"vendors", nlohmann::json::array()}, {"compute_share", 0.5}, {"memory_share", 1.0}}}},
        nlohmann::json{
            {"marlin", {{"vendors", nlohmann::json::array({"intel"})}, {"compute_share", 0.5}, {"memory_share", 1.0}}}},
        nlohmann::json{{"marlin", {{"vendors", nv}, {"compute_share", 0.5}, {"memory_share", 1.0}, {"x", 1}}}},
        nlohmann::json{{"marlin", 0.5}}, nlohmann::json(0.5)}) {
    check_card_refused(card, dir, "w4a16_moe_kernels", bad);
  }
  card["sources"].erase("w4a16_moe_kernels");
  card["w4a16_moe_kernels"] = {{"marlin", {{"vendors", nv}, {"compute_share", 0.5}, {"memory_share", 1.0}}}};
  check_card_refused(card, dir, "sources", card["sources"], "no source given for 'w4a16_moe_kernels'");
  card["sources"]["w4a16_moe_kernels"] = "test";
  std::ofstream(dir / "vllm.json") << card.dump();
  const auto e = data::load_engine(dir / "vllm.json");
  REQUIRE(e.w4a16_moe_kernel("marlin") != nullptr);
  CHECK(e.w4a16_moe_kernel("marlin")->compute_share == 0.5);
  CHECK(e.w4a16_moe_kernel("triton") == nullptr);
  fs::remove_all(dir);
}

TEST_CASE("an engine that keeps a native 4-bit expert checkpoint's activations in bf16 multiplies in bf16 on a B200") {
  // vLLM's default MXFP4 MoE backend on Blackwell (Engine::native_fp4_expert_activation: nvidia
  // bf16) multiplies GPT-OSS's MXFP4 experts with bf16 activations: on the ideal profile the
  // expert GEMMs of a long prefill take the B200's fp4 / bf16 peak ratio longer, 9e15 / 2.25e15
  // = 4x, while their weights stream in 4 bits as before. DeepSeek-R1 quantised to NVFP4 after
  // training keeps the 4-bit math, and an H200 (no 4-bit math) multiplies in bf16 either way.
  data::Engine bf16_act = test::catalog().engine("torch-reference");
  bf16_act.native_fp4_expert_activation[Vendor::kNvidia] = Precision::kBf16;
  const auto* plain = &test::catalog().engine("torch-reference");
  REQUIRE(plain->native_fp4_expert_activation_on(Vendor::kNvidia) == Precision::kFp4);
  auto experts = [&](const char* model, const char* chip, const data::Engine* e) {
    auto d = reference(model, chip, Precision::kFp4);
    d.engine = e;
    return perf::predict_prefill(d, ideal_profile(chip), 16384).op(OpClass::kMoeExperts);
  };
  const auto& b200 = test::catalog().accelerator("b200");
  const double fp4_over_bf16 = b200.peak_flop_per_s(Precision::kFp4) / b200.peak_flop_per_s(Precision::kBf16);
  CHECK(fp4_over_bf16 == doctest::Approx(4.0));
  auto mx = experts("gpt-oss-120b", "b200", &bf16_act), mx_plain = experts("gpt-oss-120b", "b200", plain);
  CHECK(mx.compute_s == doctest::Approx(mx_plain.compute_s * fp4_over_bf16).epsilon(kExactReordered));
  CHECK(mx.memory_s == mx_plain.memory_s);
  CHECK(experts("deepseek-r1", "b200", &bf16_act).compute_s == experts("deepseek-r1", "b200", plain).compute_s);
  CHECK(experts("gpt-oss-120b", "h200", &bf16_act).compute_s == experts("gpt-oss-120b", "h200", plain).compute_s);
  // The shipped vLLM card says so, with its source.
  const auto& vllm = test::catalog().engine("vllm");
  CHECK(vllm.native_fp4_expert_activation_on(Vendor::kNvidia) == Precision::kBf16);
  CHECK(vllm.sources.contains("native_fp4_expert_activation"));
}

TEST_CASE("an engine card's native 4-bit expert activation is refused with the file, the field and the reason") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "tycoon-fp4-act-card";
  fs::create_directories(dir);
  auto card = nlohmann::json::parse(std::ifstream(fs::path(TYCOON_SOURCE_DIR) / "hardware_db/engines/vllm.json"));
  const std::vector<std::pair<nlohmann::json, std::string>> bad_cards = {
      {{{"nvidia", "int4"}}, "must be bf16, fp8 or fp4"},
      {{{"nvidia", "fp16"}}, "must be bf16, fp8 or fp4"},
      {{{"nvidia", 16}}, "string"},
      {{{"intel", "bf16"}}, "unknown vendor"},
      {nlohmann::json("bf16"), "object"}};
  for (const auto& entry : bad_cards)
    check_card_refused(card, dir, "native_fp4_expert_activation", entry.first, entry.second);
  // A value without its source is refused too.
  card["native_fp4_expert_activation"] = {{"nvidia", "fp8"}};
  card["sources"].erase("native_fp4_expert_activation");
  std::ofstream(dir / "vllm.json") << card.dump();
  CHECK_THROWS_AS((void)data::load_engine(dir / "vllm.json"), data::LoadError);
  card["sources"]["native_fp4_expert_activation"] = "test";
  std::ofstream(dir / "vllm.json") << card.dump();
  CHECK(data::load_engine(dir / "vllm.json").native_fp4_expert_activation_on(Vendor::kNvidia) == Precision::kFp8);
  fs::remove_all(dir);
}

TEST_CASE("a chip fitted to published results: its own profile, lent to no sibling") {
  // The MI300X's levels are fitted to its published serving results (calibration/fit/
  // fit_published.py): every prediction on it is fitted-to-published, at any size, since no
  // kernel of the chip was measured. Those levels hold the engine versions and traffic of the
  // rows they were fitted to, so the MI325X (same vendor and family) does not borrow them: it
  // keeps the datasheet placeholder until it has rows of its own.
  auto mi300x = perf::calibration_for(catalog(), catalog().accelerator("mi300x"));
  CHECK(mi300x.provenance == perf::Provenance::kFittedToPublished);
  CHECK(mi300x.source.find("calibration/fit/fit_published.py") != std::string::npos);
  auto d = reference("llama-3.1-70b", "mi300x");
  CHECK(perf::predict_decode(d, mi300x, 1, 128).provenance == perf::Provenance::kFittedToPublished);
  CHECK(perf::predict_decode(d, mi300x, 64, 100000).provenance == perf::Provenance::kFittedToPublished);
  auto mi325x = perf::calibration_for(catalog(), catalog().accelerator("mi325x"));
  CHECK(mi325x.provenance == perf::Provenance::kDatasheet);
}
