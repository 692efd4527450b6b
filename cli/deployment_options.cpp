#include <memory>

#include "cli/common.h"
#include "sim/perf/memory_plan.h"
#include "sim/core/input_error.h"

namespace tycoon::cli {

void add_deployment_options(CLI::App& sub, DeploymentOptions& o) {
  sub.add_option("--hardware", o.hardware, "Accelerator id (tycoon list hardware)")->required();
  auto* model = sub.add_option("--model", o.model, "Model id (tycoon list models)");
  auto* file = sub.add_option("--model-file", o.model_file, "A model card JSON file instead of --model");
  model->excludes(file);
  file->excludes(model);
  sub.add_option("--engine", o.engine, "Engine id (default: the recipe's, else vllm)");
  sub.add_option("--precision", o.precision, "Weight precision")->check(CLI::IsMember({"bf16", "fp8", "fp4", "int4"}));
  sub.add_option("--kv-dtype", o.kv_dtype, "KV-cache precision")->check(CLI::IsMember({"bf16", "fp8"}));
  sub.add_option("--tp", o.tp, "Tensor-parallel GPUs per replica")->check(CLI::Range(1, 1024));
  sub.add_option("--ep", o.ep, "Expert-parallel degree (divides --tp)")->check(CLI::Range(1, 1024));
  sub.add_option("--spec-tokens", o.spec_tokens,
                 "Speculative draft tokens per step (default 0: off, a stock engine; the recipe's acceptance is "
                 "used when it has one)")
      ->check(CLI::Range(0, 64));
  sub.add_option("--acceptance", o.acceptance, "Mean accepted tokens per step, bonus included")
      ->check(finite_range(1.0, 65.0));
  sub.add_flag("--no-cuda-graphs", o.no_cuda_graphs, "Run decode steps eagerly");
}

ResolvedDeployment resolve_deployment(const data::Catalog& catalog, const DeploymentOptions& o) {
  ResolvedDeployment rd;
  const data::ModelCard* model = nullptr;
  if (!o.model_file.empty()) {
    rd.own_model = std::make_unique<data::ModelCard>(data::load_model_card(o.model_file, false));
    model = rd.own_model.get();
  } else if (!o.model.empty()) {
    model = &catalog.model(o.model);
  } else {
    throw core::InputError("give --model ID or --model-file PATH");
  }
  const auto& hw = catalog.accelerator(o.hardware);
  const data::Recipe* recipe = catalog.find_recipe(model->id, hw.id);
  std::string engine_id = !o.engine.empty() ? o.engine : recipe ? recipe->engine : "vllm";
  const auto& engine = catalog.engine(engine_id);

  auto& d = rd.deployment;
  // A recipe written for another engine lends only what belongs to the model and the chip
  // (precision, KV precision, parallelism); its engine settings (speculative decoding, CUDA
  // graphs, page size) stay with its engine.
  const bool recipe_engine = recipe && recipe->engine == engine.id;
  if (recipe) {
    d = perf::deployment_from_recipe(*recipe, *model, hw, engine);
    if (!recipe_engine) {
      d.cuda_graphs = engine.supports_cuda_graphs;
      d.kv_page_tokens = perf::Deployment{}.kv_page_tokens;
    }
  } else {
    d.model = model;
    d.hardware = &hw;
    d.engine = &engine;
    d.precision = model->native_precision;
    d.cuda_graphs = engine.supports_cuda_graphs;
  }
  if (!o.precision.empty()) d.precision = *parse_enum<Precision>(o.precision, kPrecisionNames);
  if (!o.kv_dtype.empty()) d.kv_cache_dtype = *parse_enum<Precision>(o.kv_dtype, kPrecisionNames);
  if (o.tp > 0) d.tensor_parallel = o.tp;
  if (o.ep > 0) d.expert_parallel = o.ep;
  if (o.ep == 0 && d.tensor_parallel % d.expert_parallel != 0) d.expert_parallel = 1;
  if (o.no_cuda_graphs || !engine.supports_cuda_graphs) d.cuda_graphs = false;
  // A benchmark is a stock configuration unless a flag says otherwise: speculative decoding only
  // with --spec-tokens N > 0 (the recipe's drafter and acceptance are its defaults, when the recipe
  // is this engine's).
  const auto recipe_spec = recipe_engine ? d.spec_decode : std::nullopt;
  d.spec_decode.reset();
  if (o.spec_tokens > 0) {
    data::SpecDecode sd = recipe_spec.value_or(data::SpecDecode{"eagle3", o.spec_tokens, 1.0});
    sd.num_draft_tokens = o.spec_tokens;
    if (o.acceptance > 0) sd.acceptance_length = o.acceptance;
    if (sd.acceptance_length > sd.num_draft_tokens + 1) {
      throw core::InputError("--acceptance cannot exceed --spec-tokens + 1");
    }
    if (o.acceptance == 0 && sd.acceptance_length == 1.0) {
      throw core::InputError("--spec-tokens needs --acceptance (no recipe gives one for this pair)");
    }
    d.spec_decode = sd;
  }
  perf::check_deployment(d);
  return rd;
}

}  // namespace tycoon::cli
