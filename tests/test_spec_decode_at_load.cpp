// Speculative decoding at load: what verifying k + 1 tokens per sequence
// costs as the batch grows, what the drafter costs by drafting method, the running limit an
// engine sets itself with speculative decoding on, the gain against published serving runs, and
// the provenance of a prediction whose mechanism the validation set does not cover.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <vector>

#include <nlohmann/json.hpp>

#include <doctest/doctest.h>

#include "sim/core/input_error.h"
#include "sim/data/catalog.h"
#include "sim/perf/iteration_cost.h"
#include "sim/perf/profile_lookup.h"
#include "sim/serving/resolve_config.h"
#include "sim/serving/serving_sim.h"
#include "sim/serving/simulation.h"
#include "tests/test_common.h"
#include "tests/test_perf_support.h"

using namespace tycoon;
using perf::OpClass;

namespace {

constexpr double kExactSpec = 1e-9;  // pure arithmetic on the same numbers
// The gain is held within 20% of the published figure.
constexpr double kPublishedGainTol = 0.20;

using test::catalog;

// Every efficiency 1, no fixed costs: each op is exactly its roofline (as in test_perf_model.cpp).
using perf_test::ideal_profile;

using perf_test::reference;

// A deployment as the serving CLI resolves it (recipe, engine card, overrides).
serving::ResolvedServing resolved(const char* model, const char* chip, const char* engine, Precision p, int drafts,
                                  double acceptance) {
  serving::ServingOverrides o;
  o.engine = engine;
  o.precision = p;
  o.tensor_parallel = 1;
  o.spec_draft_tokens = drafts;
  if (drafts > 0) o.spec_acceptance_length = acceptance;
  const auto& c = catalog();
  return serving::resolve_serving(c, c.model(model), c.accelerator(chip), o);
}

}  // namespace

TEST_CASE("the verify step at large batch costs more than a plain decode step of the same batch") {
  // k = 3 drafts: each of the 256 sequences runs 4 positions through the target, 1,024 rows in
  // every GEMM. The weights are read once either way, but 1,024 rows are past the point where
  // a GEMM turns compute-bound on the H200 (the calibrated bf16 curve reaches ~0.77 of peak
  // there): the verify step is no longer nearly free.
  const auto& cal = perf::calibration_for(catalog(), catalog().accelerator("h200"));
  SUBCASE("dense: Llama 3.1 8B in bf16") {
    auto d = resolved("llama-3.1-8b", "h200", "vllm", Precision::kBf16, 0, 1).deployment;
    const auto plain = perf::predict_decode(d, cal, 256, 2048);
    d.spec_decode = data::SpecDecode{"eagle3", 3, 2.31};
    const auto verify = perf::predict_decode(d, cal, 256, 2048);
    // The FFN's arithmetic is exactly 4x (4 rows per sequence), and it is compute-bound.
    CHECK(verify.op(OpClass::kDenseFfn).flop ==
          doctest::Approx(4 * plain.op(OpClass::kDenseFfn).flop).epsilon(kExactSpec));
    CHECK_FALSE(verify.op(OpClass::kDenseFfn).memory_bound());
    CHECK(verify.op(OpClass::kDenseFfn).time_s > 1.5 * plain.op(OpClass::kDenseFfn).time_s);
    CHECK(verify.total_s > 1.3 * plain.total_s);
  }
  SUBCASE("MoE: GPT-OSS-120B in MXFP4") {
    auto d = resolved("gpt-oss-120b", "h200", "vllm", Precision::kFp4, 0, 1).deployment;
    const auto plain = perf::predict_decode(d, cal, 256, 2048);
    d.spec_decode = data::SpecDecode{"eagle3", 3, 2.31};
    const auto verify = perf::predict_decode(d, cal, 256, 2048);
    // 256 tokens already touch all 128 experts: the verify step reads no more expert weights,
    // but does 4x the expert arithmetic.
    CHECK(verify.op(OpClass::kMoeExperts).flop ==
          doctest::Approx(4 * plain.op(OpClass::kMoeExperts).flop).epsilon(kExactSpec));
    CHECK(verify.op(OpClass::kMoeExperts).time_s > plain.op(OpClass::kMoeExperts).time_s);
    CHECK(verify.total_s > plain.total_s);
  }
}

TEST_CASE("an EAGLE drafter's first pass runs over every position the target verified") {
  // vLLM V1's EAGLE proposer and SGLang's draft extend after verification run the drafter once
  // over the b(k + 1) verified positions (the pass that yields the first draft), then k - 1
  // passes of one row per sequence. GPT-OSS-120B (h = 2,880), b = 8, k = 3: one pass of 32 rows
  // and two of 8, each through the head's five bf16 GEMMs (weights n x k x 2 B, inputs m x k x
  // 2 B, outputs m x n x 2 B), and 3 samplings of 8 x 32,000 fp32 logits (read and written).
  auto cal = ideal_profile("h200");
  auto d = reference("gpt-oss-120b", "h200", Precision::kFp4);
  d.spec_decode = data::SpecDecode{"eagle3", 3, 2.31};
  const auto cost = perf::predict_decode(d, cal, 8, 1024);
  const double h = 2880;
  auto head_bytes = [&](double m) {
    double bytes = 0;
    for (auto [n, k] : {std::pair{4 * h, 2 * h}, {h, h}, {6 * h, h}, {h, 3 * h}, {32000.0, h}}) {
      bytes += n * k * 2 + m * k * 2 + m * n * 2;
    }
    return bytes;
  };
  const double expected = head_bytes(32) + 2 * head_bytes(8) + 3 * (8 * 32000 * 4 * 2);
  CHECK(cost.op(OpClass::kDrafter).bytes == doctest::Approx(expected).epsilon(kExactSpec));
}

TEST_CASE("an MTP drafter runs one full block of the target and its LM head per pass") {
  // Multi-token prediction (DeepSeek-V3's MTP module: one transformer block of the target's own
  // architecture and the shared output head). On Llama 3.1 8B one block holds 4,096 x (4,096 +
  // 2 x 1,024) + 4,096 x 4,096 = 41.94M attention and 3 x 4,096 x 14,336 = 176.16M FFN
  // parameters; the LM head 128,256 x 4,096. b = 4, k = 2: the block runs over 4 x 3 = 12 rows
  // then 4, and each pass samples one token per sequence through the LM head (4 rows, twice).
  // Arithmetic: 2 flop per parameter per row (norms, rotary and sampling do none).
  auto cal = ideal_profile("h200");
  auto d = reference("llama-3.1-8b", "h200");
  d.spec_decode = data::SpecDecode{"mtp", 2, 1.8};
  const auto cost = perf::predict_decode(d, cal, 4, 1024);
  const double block = 4096.0 * (4096 + 2 * 1024) + 4096.0 * 4096 + 3 * 4096.0 * 14336;
  const double lm_head = 128256.0 * 4096;
  const double expected = 2 * block * (12 + 4) + 2 * lm_head * 4 * 2;
  CHECK(cost.op(OpClass::kDrafter).flop == doctest::Approx(expected).epsilon(kExactSpec));
  // Per pass, a block of the 8B model costs far more than an EAGLE head of the same width.
  auto eagle = d;
  eagle.spec_decode = data::SpecDecode{"eagle3", 2, 1.8};
  CHECK(cost.op(OpClass::kDrafter).time_s > perf::predict_decode(eagle, cal, 4, 1024).op(OpClass::kDrafter).time_s);
  // A method the model does not know is refused where the deployment is checked.
  d.spec_decode->method = "lookahead";
  CHECK_THROWS_AS(perf::check_deployment(d), core::InputError);
}

TEST_CASE("MTP drafts only with a model that ships a multi-token-prediction module") {
  // Llama 3.1 8B ships none (its card has no mtp_modules): drafting by mtp would time a block that
  // does not exist, so the deployment is refused. DeepSeek-R1 ships one (num_nextn_predict_layers
  // 1 in its config), and the same request passes.
  auto llama = reference("llama-3.1-8b", "h200");
  llama.engine = &test::catalog().engine("vllm");  // the reference engine drafts nothing
  REQUIRE(llama.model->mtp_modules == 0);
  llama.spec_decode = data::SpecDecode{"mtp", 2, 1.8};
  CHECK_THROWS_WITH_AS(perf::check_deployment(llama), doctest::Contains("mtp_modules"), core::InputError);
  llama.spec_decode->method = "eagle3";
  CHECK_NOTHROW(perf::check_deployment(llama));
  auto deepseek = reference("deepseek-r1", "h200", Precision::kFp8, 8);
  deepseek.engine = &test::catalog().engine("sglang");
  CHECK(deepseek.model->mtp_modules == 1);
  deepseek.spec_decode = data::SpecDecode{"mtp", 3, 2.18};
  CHECK_NOTHROW(perf::check_deployment(deepseek));
}

TEST_CASE("SGLang runs at most 48 requests at once with speculative decoding unless told otherwise") {
  // sgl-project/sglang server_args.py: EAGLE/EAGLE3 reset --max-running-requests to 48 when it
  // is unset (hardware_db/engines/sglang.json, spec_decode_running_limit). Without speculative
  // decoding SGLang sizes its limit from the KV pool (at least 2,048 here); vLLM's is its setting.
  const std::int64_t pool = 300000;
  auto eagle = resolved("gpt-oss-120b", "h100", "sglang", Precision::kFp4, 3, 2.42);
  CHECK(serving::running_limit(eagle.scheduler, eagle.deployment, pool) == 48);
  auto plain = resolved("gpt-oss-120b", "h100", "sglang", Precision::kFp4, 0, 1);
  CHECK(serving::running_limit(plain.scheduler, plain.deployment, pool) >= 2048);
  auto set = eagle;
  set.scheduler.running_limit_from_engine = false;  // --max-running-requests given
  set.scheduler.max_num_seqs = 96;
  CHECK(serving::running_limit(set.scheduler, set.deployment, pool) == 96);
  auto vllm = resolved("gpt-oss-120b", "h200", "vllm", Precision::kFp4, 3, 2.31);
  CHECK(serving::running_limit(vllm.scheduler, vllm.deployment, pool) == vllm.scheduler.max_num_seqs);
}

TEST_CASE("spec decoding's gain on SGLang's published gpt-oss-120b runs on one H100") {
  // calibration/published/spec_decode_serving.json (Dogacel/specdrift-gpt-oss-120b-eagle3,
  // secondary mirror): SGLang, H100 TP1, MT-Bench, EAGLE-3 with 3 steps, topk 1, 4 draft tokens
  // (3 drafted + the root verified per step), acceptance 2.41-2.43. Output tok/s without -> with:
  // batch 1 212 -> 285 (1.344x), batch 8 795 -> 1,044 (1.313x), batch 64 1,620 -> 2,339
  // (1.444x). Before verification was priced as compute, the model gave 2.02x at batch 64 (verification nearly free
  // once every expert is touched); SGLang runs 48 of the 64 users at once with EAGLE, which is most of what it gives up
  // there.
  // The path built with std::filesystem: GCC 12 at -O1 warns falsely on a string concatenation here.
  std::ifstream in(std::filesystem::path(TYCOON_SOURCE_DIR) / "calibration" / "published" / "spec_decode_serving.json");
  REQUIRE(in);
  const auto published = nlohmann::json::parse(in);
  const auto& setup = published.at("setup");
  REQUIRE(setup.at("engine") == "sglang");
  const int drafts = setup.at("num_drafted_tokens").get<int>();
  const double acceptance = setup.at("acceptance_length").get<double>();
  const auto& cal = perf::calibration_for(catalog(), catalog().accelerator("h100"));
  REQUIRE(published.at("points").size() == 3);
  for (const auto& point : published.at("points")) {
    const int batch = point.at("batch").get<int>();
    const double published_gain =
        point.at("spec_output_tok_per_s").get<double>() / point.at("plain_output_tok_per_s").get<double>();
    CAPTURE(batch);
    CAPTURE(published_gain);
    double tok_per_s[2] = {0, 0};
    for (int k : {0, drafts}) {
      serving::ServingConfig cfg;
      auto r = resolved("gpt-oss-120b", "h100", "sglang", Precision::kFp4, k, acceptance);
      cfg.deployment = r.deployment;
      cfg.scheduler = r.scheduler;
      cfg.workload.kind = serving::WorkloadKind::kRandom;  // MT-Bench modelled as 128 in / 1,024 out
      cfg.workload.input_tokens = 128;
      cfg.workload.output_tokens = 1024;
      cfg.workload.input_range_ratio = cfg.workload.output_range_ratio = 1.0;
      cfg.arrival.concurrency = batch;
      cfg.num_requests = 4 * batch;
      cfg.warmup_requests = batch;
      cfg.seed = 1;
      tok_per_s[k > 0] = serving::simulate(cfg, cal).output_tok_per_s_per_gpu;
    }
    const double gain = tok_per_s[1] / tok_per_s[0];
    CAPTURE(gain);
    CHECK(gain == doctest::Approx(published_gain).epsilon(kPublishedGainTol));
  }
}

TEST_CASE("a step with speculative decoding is extrapolated: the validation set has no such step") {
  // The H200's held-out validation (build/tycoon validate) measures plain decode and prefill
  // steps; a prediction of a mechanism outside it carries the extrapolated class's error.
  const auto& cal = perf::calibration_for(catalog(), catalog().accelerator("h200"));
  auto d = resolved("llama-3.1-8b", "h200", "vllm", Precision::kBf16, 0, 1).deployment;
  CHECK(perf::predict_decode(d, cal, 8, 1024).provenance == perf::Provenance::kInterpolated);
  CHECK(perf::outside_validation(d).empty());
  d.spec_decode = data::SpecDecode{"eagle3", 3, 2.31};
  CHECK(perf::predict_decode(d, cal, 8, 1024).provenance == perf::Provenance::kExtrapolated);
  CHECK(perf::outside_validation(d) == "speculative decoding");
  // The serving simulator's per-step model says the same.
  perf::DecodeStepModel step(d, cal, 8);
  CHECK(step.step_provenance(1024 + 4) == perf::Provenance::kExtrapolated);
}
