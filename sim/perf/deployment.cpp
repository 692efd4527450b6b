#include "sim/perf/deployment.h"
#include "sim/core/input_error.h"

#include <algorithm>

#include <stdexcept>

namespace tycoon::perf {

Precision Deployment::dense_weight_precision() const {
  switch (precision) {
    case Precision::kBf16:
      return Precision::kBf16;
    case Precision::kFp8:
      return Precision::kFp8;
    case Precision::kFp4:
      // NVFP4/MXFP4 checkpoints of MoE models quantise the experts; attention stays at the native
      // precision (bf16 or fp8). Dense models quantise every linear layer.
      return model->is_moe() ? (model->native_precision == Precision::kFp8 ? Precision::kFp8 : Precision::kBf16)
                             : Precision::kFp4;
    case Precision::kInt4:
      return model->is_moe() ? Precision::kBf16 : Precision::kInt4;
  }
  return Precision::kBf16;
}

Precision Deployment::expert_weight_precision() const {
  // Routed experts are stored in the recipe's precision (gpt-oss "fp4" = MXFP4 experts).
  return precision;
}

Precision Deployment::math_precision(Precision weights) const {
  switch (weights) {
    case Precision::kFp4:
      if (hardware->supports(Precision::kFp4)) return Precision::kFp4;
      // Hopper and CDNA3 dequantise fp4 weights in the kernel and multiply in bf16 (Marlin/triton style).
      return Precision::kBf16;
    case Precision::kFp8:
      return hardware->supports(Precision::kFp8) ? Precision::kFp8 : Precision::kBf16;
    case Precision::kBf16:
    case Precision::kInt4:
      return Precision::kBf16;
  }
  return Precision::kBf16;
}

Precision Deployment::expert_math_precision(Precision weights) const {
  const Precision math = math_precision(weights);
  if (weights != Precision::kFp4 || math != Precision::kFp4 || model->expert_precision != Precision::kFp4) return math;
  const Precision act =
      expert_activation ? *expert_activation : engine->native_fp4_expert_activation_on(hardware->vendor);
  return hardware->supports(act) ? act : math;
}

const data::W4a16MoeKernel* Deployment::w4a16_moe_kernel() const {
  return mxfp4_backend ? engine->w4a16_moe_kernel(*mxfp4_backend) : nullptr;
}

std::optional<DraftMethod> parse_draft_method(std::string_view method) {
  if (method == "eagle" || method == "eagle3") return DraftMethod::kEagle;
  if (method == "mtp") return DraftMethod::kMtp;
  return std::nullopt;
}

std::string outside_validation(const Deployment& d) {
  // The H200 validation (build/tycoon validate) measures plain decode and prefill steps only,
  // with the engines' default kernels.
  std::string out;
  if (d.spec_decode && d.spec_decode->num_draft_tokens > 0) out = "speculative decoding";
  if (d.w4a16_moe_kernel()) {
    out += (out.empty() ? "" : " and ") + d.engine->name + "'s " + *d.mxfp4_backend +
           " W4A16 expert kernel (its speed fitted to published serving runs)";
  }
  return out;
}

bool is_outside_validation(const Deployment& d) {
  return (d.spec_decode && d.spec_decode->num_draft_tokens > 0) || d.w4a16_moe_kernel();
}

void check_deployment(const Deployment& d) {
  if (!d.model || !d.hardware || !d.engine) throw core::InputError("deployment is missing model, chip or engine");
  if (!d.engine->runs_on(d.hardware->vendor)) {
    throw core::InputError("engine '" + d.engine->id + "' does not run on " + d.hardware->name);
  }
  if (d.tensor_parallel < 1 || d.expert_parallel < 1) {
    throw core::InputError("parallel sizes must be at least 1");
  }
  if (d.tensor_parallel > d.hardware->scale_up.domain_size && d.hardware->scale_out_bandwidth_bytes_per_s <= 0) {
    throw core::InputError("tensor parallel " + std::to_string(d.tensor_parallel) + " exceeds the " + d.hardware->name +
                           " scale-up domain of " + std::to_string(d.hardware->scale_up.domain_size) +
                           " GPUs and no scale-out network is listed");
  }
  if (d.tensor_parallel % d.expert_parallel != 0) {
    throw core::InputError("expert parallel must divide tensor parallel (experts shard over the replica's GPUs)");
  }
  // Attention shards its query heads over the replica's GPUs (KV heads are replicated when there
  // are fewer than GPUs): a tensor-parallel size that does not divide them does not run.
  for (const auto& g : d.model->layer_groups) {
    if (!g.mixer) continue;
    const auto& m = *g.mixer;
    if ((m.kind == data::MixerKind::kAttention || m.kind == data::MixerKind::kMla) && m.num_q_heads > 0 &&
        m.num_q_heads % d.tensor_parallel != 0) {
      throw core::InputError("tensor parallel " + std::to_string(d.tensor_parallel) + " does not divide the " +
                             std::to_string(m.num_q_heads) + " attention heads of " + d.model->name);
    }
  }
  if (d.spec_decode && d.spec_decode->num_draft_tokens > 0 &&
      parse_draft_method(d.spec_decode->method) == DraftMethod::kMtp && d.model->mtp_modules == 0) {
    throw core::InputError(
        "speculative decoding by mtp drafts with the model's own multi-token-prediction module, and " + d.model->name +
        " ships none (its card's mtp_modules is 0): draft with eagle3");
  }
  if (d.expert_activation) {
    // The operator's choice of activations acts only on a native 4-bit expert checkpoint served
    // at 4 bits (expert_math_precision); anywhere else it would be ignored without a word.
    const std::string act(to_string(*d.expert_activation));
    if (d.model->expert_precision != Precision::kFp4 || d.expert_weight_precision() != Precision::kFp4) {
      throw core::InputError("--expert-activation " + act +
                             " applies to a native 4-bit expert checkpoint served in fp4 "
                             "(GPT-OSS, Kimi K3); " +
                             d.model->name + " at " + std::string(to_string(d.precision)) + " has none");
    }
    if (!d.hardware->supports(*d.expert_activation)) {
      throw core::InputError("--expert-activation " + act + ": the " + d.hardware->name + " has no " + act + " math");
    }
  }
  if (d.mxfp4_backend) {
    // A W4A16 kernel prices only the 4-bit experts of a native 4-bit checkpoint multiplied in
    // bf16 (a chip without 4-bit math); anywhere else the choice would be ignored without a word.
    const std::string& name = *d.mxfp4_backend;
    if (!d.w4a16_moe_kernel()) {
      std::string names;
      for (const auto& [n, k] : d.engine->w4a16_moe_kernels) names += (names.empty() ? "" : ", ") + n;
      throw core::InputError("--mxfp4-backend " + name + ": " + d.engine->name + " has no such MXFP4 MoE kernel (" +
                             (names.empty() ? std::string("it has none to choose") : "it has: " + names) +
                             "; leave the option out for the engine's default kernel)");
    }
    const auto& vendors = d.w4a16_moe_kernel()->vendors;
    if (std::find(vendors.begin(), vendors.end(), d.hardware->vendor) == vendors.end()) {
      throw core::InputError("--mxfp4-backend " + name + ": " + d.engine->name + "'s " + name +
                             " kernel does not run on the " + d.hardware->name);
    }
    if (d.model->expert_precision != Precision::kFp4 || d.expert_weight_precision() != Precision::kFp4) {
      throw core::InputError("--mxfp4-backend " + name +
                             " applies to a native 4-bit expert checkpoint served in fp4 (GPT-OSS, Kimi K3); " +
                             d.model->name + " at " + std::string(to_string(d.precision)) + " has none");
    }
    if (d.expert_math_precision(Precision::kFp4) != Precision::kBf16 || d.hardware->supports(Precision::kFp4)) {
      throw core::InputError("--mxfp4-backend " + name + ": the " + d.hardware->name +
                             " has 4-bit math: its 4-bit experts run the engine's own kernels for it, not a W4A16 "
                             "kernel (--expert-activation chooses their activations)");
    }
  }
  if (d.expert_parallel > 1) {
    const bool moe = std::any_of(d.model->layer_groups.begin(), d.model->layer_groups.end(),
                                 [](const auto& g) { return g.ffn && g.ffn->kind == data::FfnKind::kMoe; });
    if (!moe) {
      throw core::InputError("expert parallel " + std::to_string(d.expert_parallel) +
                             " needs a mixture-of-experts "
                             "model; " +
                             d.model->name + " is dense");
    }
    for (const auto& g : d.model->layer_groups) {
      if (g.ffn && g.ffn->kind == data::FfnKind::kMoe && g.ffn->num_experts % d.expert_parallel != 0) {
        throw core::InputError("expert parallel " + std::to_string(d.expert_parallel) + " does not divide " +
                               std::to_string(g.ffn->num_experts) + " experts");
      }
    }
  }
  if (!(d.gpu_memory_utilization >= 0 && d.gpu_memory_utilization <= 1)) {
    throw core::InputError("GPU memory utilization must be in (0, 1] (0: the engine's default)");
  }
  if (d.spec_decode && !d.engine->supports_spec_decode) {
    throw core::InputError("engine '" + d.engine->id + "' has no speculative decoding");
  }
  if (d.spec_decode && !parse_draft_method(d.spec_decode->method)) {
    throw core::InputError("speculative decoding method '" + d.spec_decode->method +
                           "' is not one of eagle, eagle3, mtp");
  }
  if (d.kv_cache_dtype == Precision::kFp8 && !d.hardware->supports(Precision::kFp8)) {
    // fp8 KV is stored as bytes and upcast in the kernel; allowed everywhere.
  }
}

}  // namespace tycoon::perf
