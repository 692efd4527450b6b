#include <memory>

#include "cli/common.h"
#include "sim/core/input_error.h"
#include "sim/game/lever_limits.h"
#include "sim/perf/memory_plan.h"
#include "sim/serving/benchmark_run.h"

namespace tycoon::cli {

namespace {

// The KV-cache precisions the game's recipes store (game::kKvCacheDtypeChoices), by name.
CLI::IsMember kv_dtype_names() {
  std::vector<std::string> names;
  for (Precision p : game::kKvCacheDtypeChoices) names.emplace_back(to_string(p));
  return CLI::IsMember(names);
}

}  // namespace

void add_deployment_options(CLI::App& sub, DeploymentOptions& o) {
  sub.add_option("--hardware", o.hardware, "Accelerator id (tycoon list hardware)")->required();
  auto* model = sub.add_option("--model", o.model, "Model id (tycoon list models)");
  auto* file = sub.add_option("--model-file", o.model_file, "A model card JSON file instead of --model");
  model->excludes(file);
  file->excludes(model);
  sub.add_option("--engine", o.engine, "Engine id (default: the recipe's, else vllm)");
  sub.add_option("--precision", o.precision, "Weight precision")->check(one_of(kPrecisionNames));
  sub.add_option("--kv-dtype", o.kv_dtype, "KV-cache precision")->check(kv_dtype_names());
  sub.add_option("--expert-activation", o.expert_activation,
                 "Activations of a native 4-bit expert checkpoint's GEMMs (GPT-OSS, Kimi K3) where the chip has "
                 "4-bit math: bf16, fp8 (vLLM's VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8=1) or fp4 (default: the engine's)")
      ->check(CLI::IsMember({"bf16", "fp8", "fp4"}));
  sub.add_option("--mxfp4-backend", o.mxfp4_backend,
                 "The W4A16 kernel a native 4-bit expert checkpoint (GPT-OSS, Kimi K3) runs through on a chip without "
                 "4-bit math, one the engine card names: marlin (vLLM's VLLM_MXFP4_USE_MARLIN=1; default: the "
                 "engine's own kernel, its published timings where the chip has them, else the chip's curves)");
  sub.add_option("--tp", o.tp, "Tensor-parallel GPUs per replica")
      ->check(CLI::Range(1, serving::kMaxBenchmarkParallel));
  sub.add_option("--ep", o.ep, "Expert-parallel degree (divides --tp)")
      ->check(CLI::Range(1, serving::kMaxBenchmarkParallel));
  sub.add_option("--spec-tokens", o.spec_tokens,
                 "Speculative draft tokens per step (default " + std::to_string(serving::kBenchmarkDefaultDraftTokens) +
                     ": off, the engine as it ships; the recipe's acceptance is used when it has one)")
      ->check(CLI::Range(0, serving::kMaxBenchmarkDraftTokens));
  sub.add_option("--acceptance", o.acceptance, "Mean accepted tokens per step, bonus included")
      ->check(finite_range(1.0, serving::kMaxBenchmarkDraftTokens + 1.0));
  sub.add_option("--spec-method", o.spec_method,
                 "How the drafts are made: eagle3 (EAGLE-3 heads), eagle, or mtp (the model's own multi-token "
                 "prediction block, DeepSeek-style: one full layer of the target's architecture; default: the "
                 "recipe's, else eagle3)")
      ->check(CLI::IsMember({"eagle3", "eagle", "mtp"}));
  sub.add_flag("--no-cuda-graphs", o.no_cuda_graphs, "Run decode steps eagerly");
}

const data::ModelCard& model_of(const data::Catalog& catalog, const DeploymentOptions& o,
                                std::unique_ptr<data::ModelCard>& own_model) {
  if (!o.model_file.empty()) {
    own_model = std::make_unique<data::ModelCard>(data::load_model_card(o.model_file, false));
    return *own_model;
  }
  if (!o.model.empty()) return catalog.model(o.model);
  throw core::InputError("give --model ID or --model-file PATH");
}

serving::ServingOverrides deployment_overrides(const DeploymentOptions& o, const serving::ServingOverrides& scheduler) {
  // An acceptance beyond the drafts + 1 is refused where it is resolved (serving::resolve_serving).
  serving::ServingOverrides x;
  if (!o.engine.empty()) x.engine = o.engine;
  if (!o.precision.empty()) x.precision = *parse_enum<Precision>(o.precision, kPrecisionNames);
  if (!o.kv_dtype.empty()) x.kv_cache_dtype = *parse_enum<Precision>(o.kv_dtype, kPrecisionNames);
  if (!o.expert_activation.empty()) x.expert_activation = *parse_enum<Precision>(o.expert_activation, kPrecisionNames);
  if (!o.mxfp4_backend.empty()) x.mxfp4_backend = o.mxfp4_backend;
  if (o.tp > 0) x.tensor_parallel = o.tp;
  if (o.ep > 0) x.expert_parallel = o.ep;
  if (o.no_cuda_graphs) x.cuda_graphs = false;
  // serving::kBenchmarkDefaultDraftTokens unless --spec-tokens says otherwise (the recipe's
  // acceptance is then the default, when the recipe is this engine's).
  x.spec_draft_tokens = o.spec_tokens;
  if (o.acceptance > 0 && o.spec_tokens <= 0) {
    // Without drafts there is nothing to accept: the value would be dropped without a word.
    throw core::InputError("--acceptance " + format_fixed(o.acceptance, 2) + ": needs --spec-tokens N (N > 0)");
  }
  if (o.spec_tokens > 0 && o.acceptance > 0) x.spec_acceptance_length = o.acceptance;
  if (!o.spec_method.empty()) {
    if (o.spec_tokens <= 0)
      throw core::InputError("--spec-method " + o.spec_method + ": needs --spec-tokens N (N > 0)");
    x.spec_method = o.spec_method;
  }
  x.max_num_batched_tokens = scheduler.max_num_batched_tokens;
  x.max_num_seqs = scheduler.max_num_seqs;
  x.prefix_caching = scheduler.prefix_caching;
  x.chunked_prefill = scheduler.chunked_prefill;
  x.kv_admission = scheduler.kv_admission;
  x.batch_wait_iters = scheduler.batch_wait_iters;
  x.batch_wait_tokens_ratio = scheduler.batch_wait_tokens_ratio;
  x.recv_interval = scheduler.recv_interval;
  x.async_scheduling = scheduler.async_scheduling;
  return x;
}

ResolvedDeployment resolve_deployment(const data::Catalog& catalog, const DeploymentOptions& o,
                                      const serving::ServingOverrides& scheduler) {
  ResolvedDeployment rd;
  const data::ModelCard& model = model_of(catalog, o, rd.own_model);
  const auto& hw = catalog.accelerator(o.hardware);
  auto r = serving::resolve_serving(catalog, model, hw, deployment_overrides(o, scheduler));
  rd.deployment = r.deployment;
  rd.scheduler = r.scheduler;
  return rd;
}

}  // namespace tycoon::cli
