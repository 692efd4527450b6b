// A deployment: one model on one chip with one engine and one recipe — the input of the
// performance model. Holds pointers into a Catalog that must outlive it.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "sim/core/types.h"
#include "sim/data/accelerator.h"
#include "sim/data/engine.h"
#include "sim/data/model_card.h"
#include "sim/data/recipe.h"
#include "sim/perf/op_class.h"

namespace tycoon::perf {

// How a speculative decoder drafts its tokens (data::SpecDecode::method), which decides what the
// drafter costs per step: an EAGLE head (EAGLE-1/-3: one small decoder layer of the target's
// width with its own small vocabulary head, methods "eagle" and "eagle3") or multi-token
// prediction (DeepSeek-style MTP: one full block of the target's own architecture, its MoE
// included, and the target's full-vocabulary LM head, method "mtp").
enum class DraftMethod { kEagle, kMtp };
// Empty for a method the model does not know.
std::optional<DraftMethod> parse_draft_method(std::string_view method);

struct Deployment {
  const data::ModelCard* model = nullptr;
  const data::Accelerator* hardware = nullptr;
  const data::Engine* engine = nullptr;
  Precision precision = Precision::kBf16;  // the recipe's precision
  Precision kv_cache_dtype = Precision::kBf16;
  int tensor_parallel = 1;  // GPUs per replica
  int expert_parallel = 1;  // experts sharded over this many of the replica's GPUs
  bool cuda_graphs = true;
  std::optional<data::SpecDecode> spec_decode;
  int kv_page_tokens = 16;
  // The activations a native 4-bit expert checkpoint is multiplied with, chosen by the operator
  // (vLLM's VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8=1, SGLang's --flashinfer-mxfp4-moe-precision):
  // unset, the engine card's default (Engine::native_fp4_expert_activation_on).
  std::optional<Precision> expert_activation;
  // The W4A16 kernel a native 4-bit expert checkpoint runs through on a chip without 4-bit math,
  // chosen by the operator (vLLM's --mxfp4-backend / VLLM_MXFP4_USE_MARLIN=1): one of the engine
  // card's w4a16_moe_kernels; unset, the engine's default kernel (its published timings where the
  // chip's profile holds them, else the chip's grouped-GEMM curves).
  std::optional<std::string> mxfp4_backend;
  // The engine's KV memory fraction overridden (as --gpu-memory-utilization, --mem-fraction-static
  // or free_gpu_memory_fraction would, of what the engine takes it of); 0: the engine's default.
  double gpu_memory_utilization = 0;
  // Code changes to the engine: each op class's time (compute, memory and total alike) is
  // multiplied by its factor after the roofline (0.8: that class runs 1.25x faster). 1 = stock.
  std::array<double, kNumOpClasses> op_time_scale = uniform_op_time_scale();

  static constexpr std::array<double, kNumOpClasses> uniform_op_time_scale() {
    std::array<double, kNumOpClasses> a{};
    a.fill(1.0);
    return a;
  }

  int gpus_per_replica() const { return tensor_parallel; }
  // Precision the weights of attention / dense FFN / shared experts are stored in.
  Precision dense_weight_precision() const;
  // Precision the routed-expert weights are stored in.
  Precision expert_weight_precision() const;
  // Precision the tensor cores compute in for weights stored as `weights` on this chip.
  Precision math_precision(Precision weights) const;
  // The math of the routed-expert GEMMs with weights in `weights`: math_precision, except where
  // the engine keeps the activations of a native 4-bit expert checkpoint in a wider precision
  // (Engine::native_fp4_expert_activation).
  Precision expert_math_precision(Precision weights) const;
  // The engine's W4A16 kernel chosen by mxfp4_backend; null for the engine's default.
  const data::W4a16MoeKernel* w4a16_moe_kernel() const;
};

// The mechanisms of `d` that the performance model's validation set does not cover, in words
// ("speculative decoding"); empty when none. A prediction of such a deployment is extrapolated
// whatever its chip's curves, and carries the extrapolated class's error.
std::string outside_validation(const Deployment& d);
// Whether outside_validation(d) is non-empty, without building the words (a step's hot path).
bool is_outside_validation(const Deployment& d);

// A deployment from a recipe and overrides: serving::resolve_serving (sim/serving/resolve_config.h).

// Throws std::invalid_argument when the combination cannot run (engine not on this vendor, TP
// larger than the scale-up domain, EP not dividing TP or the expert count).
void check_deployment(const Deployment& d);

}  // namespace tycoon::perf
