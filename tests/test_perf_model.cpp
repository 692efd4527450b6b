// The performance model's accounting against closed-form expectations. An "ideal" profile
// (every efficiency 1, no fixed costs) makes each op exactly its roofline, so the expected
// numbers below follow from the model card and the datasheet alone.
#include <array>
#include <cmath>
#include <utility>

#include <doctest/doctest.h>

#include "sim/core/input_error.h"
#include "sim/data/catalog.h"
#include "sim/perf/iteration_cost.h"
#include "sim/perf/memory_plan.h"
#include "sim/perf/op_class.h"
#include "sim/perf/profile_lookup.h"
#include "tests/test_common.h"
#include "tests/test_perf_support.h"

using namespace tycoon;
using perf::OpClass;

namespace {

constexpr double kExactModel = 1e-9;    // pure arithmetic on the same numbers
constexpr double kPerfModelTol = 0.02;  // activations and small ops ride on top of the dominant term

using test::catalog;

using perf_test::ideal_profile;

using perf_test::reference;

}  // namespace

TEST_CASE("memory plan counts Llama 3.1 8B exactly") {
  auto d = reference("llama-3.1-8b", "h200");
  auto m = perf::plan_memory(d);
  // 8.03e9 parameters in bf16 (2 bytes); embedding and LM head are separate tables.
  CHECK(m.weight_bytes == doctest::Approx(16.06e9).epsilon(0.002));
  // 32 layers x (K and V) x 8 KV heads x 128 dims x 2 bytes = 131,072 bytes per token.
  CHECK(m.kv_bytes_per_token == doctest::Approx(131072).epsilon(kExactModel));
  CHECK(m.fits);
}

TEST_CASE("memory plan: sliding windows, MLA and fp8 KV") {
  SUBCASE("gpt-oss-120b: only the 18 full-attention layers grow with context") {
    auto m = perf::plan_memory(reference("gpt-oss-120b", "h200", Precision::kFp4));
    // 18 x 2 x 8 x 64 x 2 bytes = 36,864; the 18 windowed layers keep 128 tokens each per sequence.
    CHECK(m.kv_bytes_per_token == doctest::Approx(36864).epsilon(kExactModel));
    CHECK(m.fixed_bytes_per_sequence == doctest::Approx(18 * 128 * 2 * 8 * 64 * 2.0).epsilon(kExactModel));
    // MXFP4 experts: ~114.7e9 expert parameters at 4.25 bits + ~2.1e9 bf16 others ≈ 65 GB
    // (vLLM's blog reports ~63 GB on disk).
    CHECK(m.weight_bytes == doctest::Approx(65e9).epsilon(0.03));
  }
  SUBCASE("DeepSeek-R1 MLA stores the 512 latent + 64 rope values per layer, replicated across TP") {
    auto d = reference("deepseek-r1", "h200", Precision::kFp8, 8);
    auto m = perf::plan_memory(d);
    CHECK(m.kv_bytes_per_token == doctest::Approx(61 * 576 * 2.0).epsilon(kExactModel));
    d.kv_cache_dtype = Precision::kFp8;
    CHECK(perf::plan_memory(d).kv_bytes_per_token == doctest::Approx(61 * 576 * 1.0).epsilon(kExactModel));
  }
}

TEST_CASE("a deployment that does not fit is an error with the numbers") {
  // Llama 3.1 70B in bf16 is 141 GB of weights: more than one 80 GB H100.
  auto m = perf::plan_memory(reference("llama-3.1-70b", "h100"));
  CHECK_FALSE(m.fits);
  CHECK(m.reason.find("weights 141.") != std::string::npos);
  CHECK(m.reason.find("85.0 GB") != std::string::npos);  // 81,089 MiB: what the runtime sees of "80 GB"
  // Split over 4 GPUs it fits.
  CHECK(perf::plan_memory(reference("llama-3.1-70b", "h100", Precision::kBf16, 4)).fits);
  // Said the way the engine budgets its memory, so that the figures add up: TensorRT-LLM gives
  // the KV cache a share of what is free once weights and activations are in, and here nothing is.
  auto trt = reference("llama-3.1-70b", "h100");
  trt.engine = &catalog().engine("trtllm");
  const auto t = perf::plan_memory(trt);
  CHECK_FALSE(t.fits);
  CHECK(t.reason.find("= 145.9 GB per GPU, more than it has") != std::string::npos);
  // A GPU memory utilization override is a share of the memory: above 1 it is refused.
  auto over = reference("llama-3.1-8b", "h200");
  over.gpu_memory_utilization = 1.5;
  CHECK_THROWS_WITH_AS(perf::check_deployment(over),
                       "GPU memory utilization must be in (0, 1] (0: the engine's default)", core::InputError);
}

TEST_CASE("memory plans size the memory the runtime sees, not the datasheet's GB") {
  // The calibration H200 reports 150,109,880,320 bytes (torch total_memory, gpu_mem_bytes of
  // every calibration row); vLLM takes gpu_memory_utilization of that.
  auto vllm_h200 = reference("llama-3.1-8b", "h200");
  vllm_h200.engine = &catalog().engine("vllm");
  auto h200 = perf::plan_memory(vllm_h200);
  CHECK(h200.hbm_bytes == 150109880320.0);
  CHECK(h200.usable_bytes == doctest::Approx(0.9 * 150109880320.0).epsilon(kExactModel));
  // DeepSeek-R1 in FP8 runs on 4 x B200 in InferenceX (benchmarks/dsr1_fp8_b200.sh, TP=4: SGLang
  // with --mem-fraction-static 0.95, an fp8_e4m3 KV cache, 32 running requests, 8,192-token
  // prefill chunks). It fits in the 182,631 MiB each B200 exposes (169 GB of weights per GPU),
  // and would not in the 180e9 B of the datasheet.
  auto d = reference("deepseek-r1", "b200", Precision::kFp8, 4);
  d.engine = &catalog().engine("sglang");
  d.gpu_memory_utilization = 0.95;
  d.kv_cache_dtype = Precision::kFp8;
  auto m = perf::plan_memory(d, 8192, 32);
  CHECK(m.fits);
  CHECK(m.hbm_bytes == 191502483456.0);
  // Its 32 users of 8k-token prompts and 1k-token answers fit at once in the memory the runtime
  // sees, and would not in the datasheet's.
  constexpr std::int64_t kContext = 8192 + 1024;
  CHECK(m.max_sequences(kContext) >= 32);
  data::Accelerator datasheet = *d.hardware;
  datasheet.runtime_memory_bytes = datasheet.hbm_bytes;
  d.hardware = &datasheet;
  CHECK(perf::plan_memory(d, 8192, 32).max_sequences(kContext) < 32);
}

TEST_CASE(
    "each engine sizes its KV cache its own way: vLLM of the total, TensorRT-LLM of what is free, SGLang of the "
    "static") {
  // Both default to 0.9, but vLLM's --gpu-memory-utilization bounds weights, activations and KV
  // cache together, while TensorRT-LLM's free_gpu_memory_fraction is taken of the memory left once
  // the model is loaded (vllm-project/vllm PR #5158). With Llama 3.1 70B in FP8 on one H200 (about
  // 71 GB of weights) TensorRT-LLM's cache is larger by a tenth of everything else it holds.
  auto d = reference("llama-3.1-70b", "h200", Precision::kFp8);
  d.engine = &catalog().engine("vllm");
  const auto vllm = perf::plan_memory(d);
  d.engine = &catalog().engine("trtllm");
  const auto trt = perf::plan_memory(d);
  const double fixed = vllm.weight_bytes + vllm.runtime_reserve_bytes + vllm.activation_bytes;
  CHECK(vllm.kv_capacity_bytes == doctest::Approx(0.9 * vllm.hbm_bytes - fixed).epsilon(kExactModel));
  CHECK(trt.kv_capacity_bytes == doctest::Approx(0.9 * (trt.hbm_bytes - fixed)).epsilon(kExactModel));
  CHECK(trt.kv_capacity_bytes - vllm.kv_capacity_bytes == doctest::Approx(0.1 * fixed).epsilon(kExactModel));
  CHECK(trt.kv_capacity_tokens > vllm.kv_capacity_tokens);
  MESSAGE("KV cache per GPU: vLLM " << vllm.kv_capacity_bytes / 1e9 << " GB, TensorRT-LLM "
                                    << trt.kv_capacity_bytes / 1e9 << " GB (weights, runtime and activations "
                                    << fixed / 1e9 << " GB)");
  // An explicit fraction overrides the engine's, taken of what the engine takes it of.
  d.gpu_memory_utilization = 0.5;
  CHECK(perf::plan_memory(d).kv_capacity_bytes == doctest::Approx(0.5 * (trt.hbm_bytes - fixed)).epsilon(kExactModel));
  d.engine = &catalog().engine("vllm");
  CHECK(perf::plan_memory(d).kv_capacity_bytes == doctest::Approx(0.5 * vllm.hbm_bytes - fixed).epsilon(kExactModel));
  // SGLang's --mem-fraction-static bounds the weights and its KV pool; activations and the
  // runtime come out of the rest (SGLang's memory-management guide).
  d.gpu_memory_utilization = 0;
  d.engine = &catalog().engine("sglang");
  const auto sgl = perf::plan_memory(d);
  CHECK(sgl.kv_capacity_bytes ==
        doctest::Approx(d.engine->kv_memory_fraction * sgl.hbm_bytes - sgl.weight_bytes).epsilon(kExactModel));
  // The fraction is the card's, not a constant: another card value gives another cache.
  data::Engine edited = catalog().engine("vllm");
  edited.kv_memory_fraction = 0.8;
  d.engine = &edited;
  CHECK(perf::plan_memory(d).kv_capacity_bytes == doctest::Approx(0.8 * vllm.hbm_bytes - fixed).epsilon(kExactModel));
}

TEST_CASE("decode of one sequence is bound by reading the weights") {
  auto d = reference("llama-3.1-8b", "h200");
  auto cal = ideal_profile("h200");
  auto cost = perf::predict_decode(d, cal, 1, 128);
  // 16.06e9 weight bytes less the 1.05e9 embedding table (gathered, not read) = 15.0e9 bytes;
  // / 4.8e12 B/s = 3.13 ms. KV (128 x 131 kB = 17 MB) and activations add <1%.
  double weights_s = (perf::plan_memory(d).weight_bytes - 128256.0 * 4096 * 2) / 4.8e12;
  CHECK(cost.total_s == doctest::Approx(weights_s).epsilon(kPerfModelTol));
  CHECK(cost.total_s >= weights_s);
  CHECK(cost.op(OpClass::kDenseFfn).memory_bound());
  CHECK(cost.op(OpClass::kAttentionDecode).memory_bound());
}

TEST_CASE("doubling bandwidth halves a memory-bound step") {
  auto d = reference("llama-3.1-8b", "h200");
  auto fast = *d.hardware;
  fast.hbm_bandwidth_bytes_per_s *= 2;
  auto d2 = d;
  d2.hardware = &fast;
  auto cal = ideal_profile("h200");
  double t1 = perf::predict_decode(d, cal, 8, 1024).total_s;
  double t2 = perf::predict_decode(d2, cal, 8, 1024).total_s;
  CHECK(t2 == doctest::Approx(t1 / 2).epsilon(kPerfModelTol));
}

TEST_CASE("a long prefill is bound by compute: 2 FLOP per parameter per token plus attention") {
  auto d = reference("llama-3.1-8b", "h200");
  auto cal = ideal_profile("h200");
  const double n = 8192;
  auto cost = perf::predict_prefill(d, cal, static_cast<std::int64_t>(n));
  // Linear layers (embedding excluded, LM head on the last token only): 6.98e9 parameters.
  double linear_params = 32 * (4096.0 * (32 + 16) * 128 + 4096.0 * 4096 + 3 * 4096.0 * 14336);
  double attn = 32 * 2.0 * 32 * (128 + 128) * (n * (n + 1) / 2);  // causal: n(n+1)/2 scores per head
  double expected = (2 * linear_params * n + attn) / 989e12;
  CHECK(cost.total_s == doctest::Approx(expected).epsilon(kPerfModelTol));
  CHECK_FALSE(cost.op(OpClass::kDenseFfn).memory_bound());
  CHECK(cost.op(OpClass::kAttentionPrefill).flop == doctest::Approx(attn).epsilon(kExactModel));
}

TEST_CASE("MoE: distinct experts touched saturate at E") {
  auto d = reference("gpt-oss-120b", "h200");
  auto cal = ideal_profile("h200");
  // One token touches top_k = 4 of 128 experts; many tokens touch all 128. Weight bytes read by
  // the expert GEMMs scale accordingly (activations are small at one token).
  double one = perf::predict_decode(d, cal, 1, 128).op(OpClass::kMoeExperts).bytes;
  double many = perf::predict_prefill(d, cal, 16384).op(OpClass::kMoeExperts).bytes;
  double expert_bytes_all = 36 * 128 * 3 * 2880.0 * 2880 * 2;  // bf16
  CHECK(one == doctest::Approx(expert_bytes_all * 4 / 128).epsilon(0.01));
  // Minus the activations: the grouped GEMMs' inputs and outputs (hidden in, 2 x inter out, inter
  // in, hidden out) and the SwiGLU kernel between them (read 2 x inter, write inter).
  double pairs = 16384.0 * 4;
  double gemm_act = pairs * 36 * (2880 * 2 + 2880 * 3) * 2.0;
  double swiglu = pairs * 36 * 2880 * 3 * 2.0;
  double weights_many = many - gemm_act - swiglu;
  CHECK(weights_many == doctest::Approx(expert_bytes_all).epsilon(1e-6));

  // The reference engine routes with separate gather / scatter-add kernels, counted with the
  // router as moe_shared: gather and weight each routed row (read + write twice), zero the output
  // and scatter-add into it. A fused-routing engine counts a one-pass combine instead (each
  // token's k expert outputs read, one hidden vector written), with the expert kernels.
  const auto& ref_engine = catalog().engine("torch-reference");
  REQUIRE_FALSE(ref_engine.fused_moe_routing);
  double router = 16384.0 * 36 * (128 * 2880 * 2.0 / 16384 + 2880 * 2.0 + 128 * 2.0);
  double routing = (4 * pairs + 2 * 16384.0) * 36 * 2880 * 2.0;
  CHECK(perf::predict_prefill(d, cal, 16384).op(OpClass::kMoeShared).bytes ==
        doctest::Approx(router + routing).epsilon(1e-6));
  auto fused = d;
  fused.engine = &catalog().engine("vllm");
  REQUIRE(fused.engine->fused_moe_routing);
  double combine = (pairs + 16384.0) * 36 * 2880 * 2.0;
  CHECK(perf::predict_prefill(fused, cal, 16384).op(OpClass::kMoeExperts).bytes ==
        doctest::Approx(many + combine).epsilon(1e-6));
}

TEST_CASE("sliding-window layers read at most the window in decode") {
  auto d = reference("gpt-oss-120b", "h200");
  auto cal = ideal_profile("h200");
  // At context 64k the 18 windowed layers read 128 tokens, the 18 full layers 64k: the windowed
  // half adds under 0.2% to the KV read.
  double bytes = perf::predict_decode(d, cal, 1, 65536).op(OpClass::kAttentionDecode).bytes;
  double full_only = 18 * 65537.0 * 2 * 8 * 64 * 2;
  CHECK(bytes == doctest::Approx(full_only).epsilon(0.005));
}

TEST_CASE("tensor parallel halves the weights per GPU and adds two all-reduces per layer") {
  auto cal = ideal_profile("h200");
  auto d1 = reference("llama-3.1-8b", "h200");
  auto d2 = reference("llama-3.1-8b", "h200", Precision::kBf16, 2);
  auto c1 = perf::predict_decode(d1, cal, 1, 128);
  auto c2 = perf::predict_decode(d2, cal, 1, 128);
  CHECK(c2.op(OpClass::kDenseFfn).bytes == doctest::Approx(c1.op(OpClass::kDenseFfn).bytes / 2).epsilon(1e-3));
  CHECK(c1.op(OpClass::kTpAllReduce).time_s == 0);
  // 64 all-reduces of 8 KB: latency dominates (10 us each in the ideal profile = 0, so only bytes).
  CHECK(c2.op(OpClass::kTpAllReduce).bytes == doctest::Approx(64 * 4096 * 2.0).epsilon(kExactModel));
}

TEST_CASE("speculative decoding verifies k+1 tokens per sequence and pays for the drafter") {
  auto cal = ideal_profile("h200");
  SUBCASE("dense model: memory-bound, so 4x the tokens costs far less than 4x the time") {
    auto d = reference("llama-3.1-8b", "h200");
    auto base = perf::predict_decode(d, cal, 4, 2048);
    d.spec_decode = data::SpecDecode{"eagle3", 3, 2.31};
    auto spec = perf::predict_decode(d, cal, 4, 2048);
    CHECK(spec.num_tokens == 16);
    CHECK(spec.op(OpClass::kDrafter).time_s > 0);
    CHECK(spec.total_s < 1.3 * base.total_s);
  }
  SUBCASE("MoE model: verified tokens route to more experts, so the step grows with k") {
    auto d = reference("gpt-oss-120b", "h200", Precision::kFp4);
    double base = perf::predict_decode(d, cal, 4, 2048).op(OpClass::kMoeExperts).bytes;
    d.spec_decode = data::SpecDecode{"eagle3", 3, 2.31};
    double spec = perf::predict_decode(d, cal, 4, 2048).op(OpClass::kMoeExperts).bytes;
    // 4 tokens touch 128(1-(1-4/128)^4) = 15.3 experts per layer. With k = 3, each of the 4
    // sequences verifies 4 positions that touch 4 x (1 + 3 x 0.5) = 10 distinct experts (the
    // card's sequence_new_expert_fraction 0.5), as many as ln(1 - 10/128) / ln(1 - 4/128) = 2.56
    // independent tokens; 4 x 2.56 = 10.25 independent tokens touch 35.6 (16 independent
    // tokens, the model before the reuse, would touch 50.9).
    CHECK(spec / base == doctest::Approx(35.6 / 15.3).epsilon(0.03));
  }
}

TEST_CASE("speculative decoding on MoE: one sequence's verified positions reuse experts") {
  // GPT-OSS-120B (128 experts, top-4), one sequence, k = 4 drafts: the 5
  // verified positions touch 4 x (1 + 4 x 0.5) = 12 experts per layer (Cohere's measured reuse,
  // models/gpt-oss-120b.json), not the 128(1 - (1 - 4/128)^5) = 18.6 of independent draws.
  // Each expert is 2,880 x 2,880 x 3 matrices of MXFP4 (4 bits per value plus one 8-bit scale
  // per 32 values: 0.53125 B) in 36 layers.
  auto cal = ideal_profile("h200");
  auto d = reference("gpt-oss-120b", "h200", Precision::kFp4);
  d.spec_decode = data::SpecDecode{"eagle3", 4, 2.42};
  const double reuse_bytes = perf::predict_decode(d, cal, 1, 1024).op(OpClass::kMoeExperts).bytes;
  data::ModelCard independent = *d.model;
  independent.sequence_new_expert_fraction = 1.0;
  d.model = &independent;
  const double independent_bytes = perf::predict_decode(d, cal, 1, 1024).op(OpClass::kMoeExperts).bytes;
  const double per_expert = 2880.0 * 2880.0 * 3 * (0.5 + 1.0 / 32) * 36;
  const double independent_touched = 128 * (1 - std::pow(1 - 4.0 / 128, 5));
  CHECK(independent_bytes - reuse_bytes ==
        doctest::Approx((independent_touched - 12) * per_expert).epsilon(kExactModel));
  // Without speculative decoding there is one position per sequence: nothing to reuse.
  d.spec_decode.reset();
  const double plain_independent = perf::predict_decode(d, cal, 8, 1024).op(OpClass::kMoeExperts).bytes;
  d.model = &catalog().model("gpt-oss-120b");
  CHECK(perf::predict_decode(d, cal, 8, 1024).op(OpClass::kMoeExperts).bytes == plain_independent);
}

TEST_CASE("the drafter's passes sample and read the context at every batch size") {
  // Each of the k draft passes samples its token from a 32,000-entry draft
  // vocabulary (fp32 logits read and written: 32,000 x 4 x 2 B per sequence) and attends over
  // the sequence's whole context in the drafter's one layer, shaped like GPT-OSS's full-attention
  // layer (8 KV heads x 64 x (K + V) x 2 B = 2,048 B per token).
  auto cal = ideal_profile("h200");
  auto d = reference("gpt-oss-120b", "h200", Precision::kFp4);
  d.spec_decode = data::SpecDecode{"eagle3", 3, 2.31};
  for (int batch : {1, 64}) {
    CAPTURE(batch);
    auto short_ctx = perf::predict_decode(d, cal, batch, 1024);
    auto long_ctx = perf::predict_decode(d, cal, batch, 33792);
    // The drafter's op class: per pass, its five bf16 GEMMs (weights n x k x 2 B, inputs m x k
    // x 2 B, outputs m x n x 2 B) and the sampling of its 32,000 logits. The first pass runs over
    // the 4 positions each sequence verified (m = 4 x batch rows), the other two over
    // one row per sequence (m = batch).
    const double h = 2880, m = batch;
    auto gemms = [&](double rows) {
      double bytes = 0;
      for (auto [n, k] : {std::pair{4 * h, 2 * h}, {h, h}, {6 * h, h}, {h, 3 * h}, {32000.0, h}}) {
        bytes += n * k * 2 + rows * k * 2 + rows * n * 2;
      }
      return bytes;
    };
    const double sampling_bytes = m * 32000 * 4 * 2;
    CHECK(short_ctx.op(OpClass::kDrafter).bytes ==
          doctest::Approx(gemms(4 * m) + 2 * gemms(m) + 3 * sampling_bytes).epsilon(kExactModel));
    // The drafter's attention: 3 passes x batch x 32,768 more keys x 2,048 B more read at the
    // long context, on top of the target's 18 full-attention layers reading the same.
    const double target_and_drafter = (18.0 + 3.0) * batch * 32768 * 2048;
    CHECK(long_ctx.op(OpClass::kAttentionDecode).bytes - short_ctx.op(OpClass::kAttentionDecode).bytes ==
          doctest::Approx(target_and_drafter).epsilon(0.001));
  }
}

TEST_CASE("every catalog model predicts a finite, positive time on a chip where it fits") {
  const auto& c = catalog();
  for (const auto& m : c.models) {
    for (int tp : {1, 2, 4, 8}) {
      perf::Deployment d;
      d.model = &m;
      d.hardware = &c.accelerator("b200");
      d.engine = &c.engine("vllm");
      d.precision = Precision::kFp8;
      d.tensor_parallel = tp;
      if (!perf::plan_memory(d).fits) continue;
      auto cal = perf::calibration_for(c, *d.hardware);
      INFO(m.id << " tp=" << tp);
      std::vector<perf::PrefillChunk> pre = {{1000, 3000, true}};
      std::vector<std::int64_t> dec(32, 5000);
      auto cost = perf::predict_iteration(perf::BatchShape{pre, dec}, d, cal);
      CHECK(std::isfinite(cost.total_s));
      CHECK(cost.total_s > 0);
      CHECK(cost.total_s < 10.0);
      break;
    }
  }
}

TEST_CASE("provenance: datasheet placeholder, own calibration, transferred curves") {
  auto d = reference("llama-3.1-8b", "h100");
  CHECK(perf::predict_decode(d, perf::CalibrationProfile::datasheet("h100"), 1, 128).provenance ==
        perf::Provenance::kDatasheet);
  CHECK(perf::predict_decode(d, ideal_profile("h100"), 1, 128).provenance == perf::Provenance::kInterpolated);
  // h200's curves used for an h100 are extrapolated.
  CHECK(perf::predict_decode(d, ideal_profile("h200"), 1, 128).provenance == perf::Provenance::kExtrapolated);
  auto narrow = ideal_profile("h100");
  narrow.max_measured_context = 1000;
  CHECK(perf::predict_decode(d, narrow, 1, 4096).provenance == perf::Provenance::kExtrapolated);
  // Levels fitted to published results rank between extrapolated (measured curves, moved) and
  // the placeholder: a mix of the two weaker classes is the weaker.
  CHECK(perf::weaker(perf::Provenance::kExtrapolated, perf::Provenance::kFittedToPublished) ==
        perf::Provenance::kFittedToPublished);
  CHECK(perf::weaker(perf::Provenance::kFittedToPublished, perf::Provenance::kDatasheet) ==
        perf::Provenance::kDatasheet);
  CHECK(perf::to_string(perf::Provenance::kFittedToPublished) == "fitted-to-published");
}

TEST_CASE("K = V layers store one tensor: Gemma 4's global layers") {
  auto d = reference("gemma-4-31b", "b200");
  auto m = perf::plan_memory(d);
  // 10 global layers x 4 KV heads x 512 dims x 2 bytes (K = V, stored once) = 40,960 bytes per
  // token; the 50 sliding layers keep 1,024 tokens x 16 heads x (256 + 256) x 2 bytes each.
  CHECK(m.kv_bytes_per_token == doctest::Approx(10 * 4 * 512 * 2.0).epsilon(kExactModel));
  CHECK(m.fixed_bytes_per_sequence == doctest::Approx(50 * 1024 * 16 * 512 * 2.0).epsilon(kExactModel));
}

TEST_CASE("QK-norm: two norm kernels over q and k, only in models that have it") {
  // Qwen3-32B normalizes each of its 64 q and 8 kv heads (head_dim 128): per layer and token one
  // read and one write of (64 + 8) x 128 bf16 values, 2 more kernels per layer.
  auto d = reference("qwen3-32b", "h200");
  REQUIRE(d.model->layer_groups.at(0).mixer->qk_norm);
  auto cal = ideal_profile("h200");
  auto with = perf::predict_prefill(d, cal, 4096);
  auto card = *d.model;
  card.layer_groups.at(0).mixer->qk_norm = false;
  auto plain = d;
  plain.model = &card;
  auto without = perf::predict_prefill(plain, cal, 4096);
  double qk_bytes = 64 * 4096.0 * (64 + 8) * 128 * 2 * 2;
  CHECK(with.op(OpClass::kNormElementwise).bytes - without.op(OpClass::kNormElementwise).bytes ==
        doctest::Approx(qk_bytes).epsilon(kExactModel));
  // Llama 3.1 8B has none.
  CHECK_FALSE(reference("llama-3.1-8b", "h200").model->layer_groups.at(0).mixer->qk_norm);
  // Each tensor is costed on its own at the qk_norm curve (measured one tensor per call): at a
  // flat 0.1 efficiency the time is the bytes over a tenth of the bandwidth, at one kernel each.
  cal.qk_norm_memory_eff = perf::Curve::constant(0.1);
  auto slow = perf::predict_prefill(d, cal, 4096);
  double bw = d.hardware->hbm_bandwidth_bytes_per_s;
  CHECK(slow.op(OpClass::kNormElementwise).time_s - without.op(OpClass::kNormElementwise).time_s ==
        doctest::Approx(qk_bytes / (0.1 * bw)).epsilon(1e-9));
}

TEST_CASE("the KV-cache write: new keys and values read in bf16, written in the cache's precision") {
  // Llama 3.1 8B, 32 layers, 8 kv heads x (128 + 128) values per token: an fp8 cache writes one
  // byte less per value than a bf16 one.
  auto d = reference("llama-3.1-8b", "h200");
  auto cal = ideal_profile("h200");
  auto bf16 = perf::predict_prefill(d, cal, 2048);
  d.kv_cache_dtype = Precision::kFp8;
  auto fp8 = perf::predict_prefill(d, cal, 2048);
  double one_byte_per_value = 32 * 2048.0 * 8 * (128 + 128);
  CHECK(bf16.op(OpClass::kNormElementwise).bytes - fp8.op(OpClass::kNormElementwise).bytes ==
        doctest::Approx(one_byte_per_value).epsilon(kExactModel));
}

TEST_CASE("eager steps: the CPU's launches bound short steps; a TP group's processes launch slower") {
  // Llama 3.1 8B prefill of 128 tokens, eager: about 30 kernels a layer at 14 us each outlast the
  // GPU's work (under a millisecond a layer on the ideal profile), so the step is host-bound.
  auto d = reference("llama-3.1-8b", "h200");
  REQUIRE(d.engine->python_eager_ops);
  auto cal = ideal_profile("h200");
  cal.eager_launch_s = 9e-6;
  cal.python_op_launch_s = 14e-6;
  cal.python_op_launch_tp_s = 20e-6;
  auto c = perf::predict_prefill(d, cal, 128);
  CHECK(c.host_bound());
  CHECK(c.total_s == doctest::Approx(c.host_launch_s).epsilon(kExactModel));
  // A long prefill is the GPU's.
  CHECK_FALSE(perf::predict_prefill(d, cal, 16384).host_bound());
  // At TP 2 every kernel costs the per-process launch time of a TP group.
  auto tp2 = reference("llama-3.1-8b", "h200", Precision::kBf16, 2);
  auto c2 = perf::predict_prefill(tp2, cal, 128);
  double kernels1 = c.host_launch_s / 14e-6, kernels2 = c2.host_launch_s / 20e-6;
  CHECK(kernels2 == doctest::Approx(kernels1 + 2 * 32).epsilon(kExactModel));  // + two all-reduces a layer
  // An engine that launches its own kernels (vLLM) pays the minimal launch cost per kernel.
  auto v = d;
  v.engine = &catalog().engine("vllm");
  REQUIRE_FALSE(v.engine->python_eager_ops);
  auto cv = perf::predict_prefill(v, cal, 128);
  CHECK(cv.host_launch_s > 0);
  CHECK(std::fmod(cv.host_launch_s / 9e-6 + 1e-6, 1.0) < 1e-3);  // a whole number of 9 us launches
}

TEST_CASE("time_shares: each op class's share of all classes' time, in class order, idle classes left out") {
  // 3 ms of expert GEMMs, 1 ms of all-reduce and nothing else: 75% and 25%, the same shares the
  // profiler panel, `tycoon benchmark` and `tycoon predict` print.
  std::array<double, perf::kNumOpClasses> t{};
  t[static_cast<std::size_t>(perf::OpClass::kTpAllReduce)] = 1e-3;
  t[static_cast<std::size_t>(perf::OpClass::kMoeExperts)] = 3e-3;
  const auto shares = perf::time_shares(t);
  REQUIRE(shares.size() == 2);
  CHECK(shares[0].op == perf::OpClass::kMoeExperts);  // class order: experts come before the all-reduce
  CHECK(shares[0].time_s == 3e-3);
  CHECK(shares[0].share == doctest::Approx(0.75).epsilon(kExactModel));
  CHECK(shares[1].op == perf::OpClass::kTpAllReduce);
  CHECK(shares[1].share == doctest::Approx(0.25).epsilon(kExactModel));
  // No time at all: no shares (not a division by zero).
  CHECK(perf::time_shares({}).empty());
}
