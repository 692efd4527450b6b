#include "sim/game/recipe_settings.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "sim/core/input_error.h"
#include "sim/game/lever_limits.h"
#include "sim/perf/memory_plan.h"

namespace tycoon::game {

std::vector<std::string_view> recipe_fields_set(const serving::ServingOverrides& o) {
  std::vector<std::string_view> out;
  const bool set[] = {o.engine.has_value(),
                      o.precision.has_value(),
                      o.kv_cache_dtype.has_value(),
                      o.tensor_parallel.has_value(),
                      o.expert_parallel.has_value(),
                      o.spec_draft_tokens.has_value(),
                      o.spec_acceptance_length.has_value(),
                      o.max_num_batched_tokens.has_value(),
                      o.max_num_seqs.has_value(),
                      o.prefix_caching.has_value(),
                      o.cuda_graphs.has_value(),
                      o.router.has_value()};
  for (std::size_t i = 0; i < kRecipeFieldNames.size(); ++i) {
    if (set[i]) out.push_back(kRecipeFieldNames[i]);
  }
  return out;
}

RecipeSettings default_recipe(const data::Catalog& catalog, const data::ModelCard& model,
                              const data::Accelerator& chip) {
  RecipeSettings r;
  if (const data::Recipe* rec = catalog.find_recipe(model.id, chip.id)) {
    r.engine = rec->engine;
    r.precision = rec->precision;
    r.kv_cache_dtype = rec->kv_cache_dtype;
    r.tensor_parallel = rec->tensor_parallel;
    r.expert_parallel = rec->expert_parallel;
    if (rec->spec_decode) {
      r.spec_draft_tokens = rec->spec_decode->num_draft_tokens;
      r.spec_method = rec->spec_decode->method;
    }
    r.kv_page_tokens = rec->kv_page_tokens;
    r.max_num_batched_tokens = rec->max_num_batched_tokens;
    r.max_num_seqs = rec->max_num_seqs;
    r.prefix_caching = rec->prefix_caching;
    r.cuda_graphs = rec->cuda_graphs;
    return r;
  }
  r.precision = model.native_precision;
  const data::Engine* engine = catalog.find_engine("vllm");
  if (engine) r.cuda_graphs = engine->supports_cuda_graphs;
  // The fewest GPUs per replica that hold the model and a batch (tensor_parallel_choices).
  for (int tp : tensor_parallel_choices(chip)) {
    r.tensor_parallel = tp;
    try {
      auto d = to_perf_deployment(catalog, model.id, chip.id, r, 1.0);
      if (perf::plan_memory(d, r.max_num_batched_tokens, r.max_num_seqs).fits) break;
    } catch (const std::invalid_argument&) {
      // e.g. the engine does not run on this vendor: keep TP 1 and let deploy report it
      r.tensor_parallel = 1;
      break;
    }
  }
  return r;
}

RecipeSettings apply_overrides(RecipeSettings r, const serving::ServingOverrides& o) {
  if (o.engine) r.engine = *o.engine;
  if (o.precision) r.precision = *o.precision;
  if (o.kv_cache_dtype) r.kv_cache_dtype = *o.kv_cache_dtype;
  if (o.tensor_parallel) r.tensor_parallel = *o.tensor_parallel;
  if (o.expert_parallel) r.expert_parallel = *o.expert_parallel;
  if (o.spec_draft_tokens) r.spec_draft_tokens = *o.spec_draft_tokens;
  if (o.spec_acceptance_length) r.spec_acceptance_length = *o.spec_acceptance_length;
  if (o.max_num_batched_tokens) r.max_num_batched_tokens = *o.max_num_batched_tokens;
  if (o.max_num_seqs) r.max_num_seqs = *o.max_num_seqs;
  if (o.prefix_caching) r.prefix_caching = *o.prefix_caching;
  if (o.cuda_graphs) r.cuda_graphs = *o.cuda_graphs;
  if (o.router) r.router = *o.router;
  // A new TP that the recipe's EP does not divide falls back to experts sharded by TP, as the
  // resolver does for every caller.
  r.expert_parallel =
      serving::expert_parallel_under(r.tensor_parallel, r.expert_parallel, o.expert_parallel.has_value());
  // A new draft count invalidates an acceptance set for the old one unless both were given.
  if (o.spec_draft_tokens && !o.spec_acceptance_length) r.spec_acceptance_length.reset();
  return r;
}

serving::ServingOverrides overrides_between(const RecipeSettings& base, const RecipeSettings& r) {
  serving::ServingOverrides o;
  if (r.engine != base.engine) o.engine = r.engine;
  if (r.precision != base.precision) o.precision = r.precision;
  if (r.kv_cache_dtype != base.kv_cache_dtype) o.kv_cache_dtype = r.kv_cache_dtype;
  if (r.tensor_parallel != base.tensor_parallel) o.tensor_parallel = r.tensor_parallel;
  if (r.expert_parallel != base.expert_parallel) o.expert_parallel = r.expert_parallel;
  if (r.spec_draft_tokens != base.spec_draft_tokens) o.spec_draft_tokens = r.spec_draft_tokens;
  if (r.spec_acceptance_length != base.spec_acceptance_length && r.spec_acceptance_length) {
    o.spec_acceptance_length = r.spec_acceptance_length;
  }
  if (r.max_num_batched_tokens != base.max_num_batched_tokens) o.max_num_batched_tokens = r.max_num_batched_tokens;
  if (r.max_num_seqs != base.max_num_seqs) o.max_num_seqs = r.max_num_seqs;
  if (r.prefix_caching != base.prefix_caching) o.prefix_caching = r.prefix_caching;
  if (r.cuda_graphs != base.cuda_graphs) o.cuda_graphs = r.cuda_graphs;
  if (r.router != base.router) o.router = r.router;
  return o;
}

double acceptance_length(double alpha, int k) {
  if (k <= 0) return 1.0;
  if (alpha >= 1.0) return k + 1.0;
  return (1.0 - std::pow(alpha, k + 1)) / (1.0 - alpha);
}

serving::ServingOverrides serving_overrides(const data::Catalog& catalog, const std::string& model,
                                            const std::string& chip, const RecipeSettings& r, double accepted) {
  serving::ServingOverrides o;
  o.engine = r.engine;
  o.precision = r.precision;
  o.kv_cache_dtype = r.kv_cache_dtype;
  o.tensor_parallel = r.tensor_parallel;
  o.expert_parallel = r.expert_parallel;
  o.spec_draft_tokens = r.spec_draft_tokens;
  o.spec_method = r.spec_method;
  o.spec_acceptance_length = r.spec_acceptance_length.value_or(accepted);
  o.kv_page_tokens = r.kv_page_tokens;
  o.cuda_graphs = r.cuda_graphs;
  o.max_num_batched_tokens = r.max_num_batched_tokens;
  // The recipe's max_num_seqs is vLLM's setting. An engine that sizes its running limit from its
  // KV pool (SGLang) runs with its own unless the player moved the lever off the recipe's value
  // (then it is SGLang's --max-running-requests); the resolver decides, as for the benchmark.
  const data::Recipe* rec = catalog.find_recipe(model, chip);
  const int recipe_seqs = rec ? rec->max_num_seqs : RecipeSettings{}.max_num_seqs;
  const data::Engine* engine = catalog.find_engine(r.engine);
  if (!(engine && engine->running_limit_from_kv_pool && r.max_num_seqs == recipe_seqs)) o.max_num_seqs = r.max_num_seqs;
  o.prefix_caching = r.prefix_caching;
  o.router = r.router;
  return o;
}

serving::ResolvedServing resolve_recipe(const data::Catalog& catalog, const std::string& model, const std::string& chip,
                                        const RecipeSettings& r, double accepted) {
  return serving::resolve_serving(catalog, catalog.model(model), catalog.accelerator(chip),
                                  serving_overrides(catalog, model, chip, r, accepted));
}

perf::Deployment to_perf_deployment(const data::Catalog& catalog, const std::string& model, const std::string& chip,
                                    const RecipeSettings& r, double accepted) {
  return resolve_recipe(catalog, model, chip, r, accepted).deployment;
}

std::string describe(const RecipeSettings& r) {
  std::ostringstream os;
  os << r.engine << " " << to_string(r.precision) << " TP" << r.tensor_parallel;
  if (r.expert_parallel > 1) os << " EP" << r.expert_parallel;
  if (r.spec_draft_tokens > 0) os << " spec " << r.spec_draft_tokens;
  if (!r.prefix_caching) os << " no-prefix-cache";
  if (!r.cuda_graphs) os << " eager";
  return os.str();
}

nlohmann::json to_json(const RecipeSettings& r) {
  nlohmann::json j = {{"engine", r.engine},
                      {"precision", to_string(r.precision)},
                      {"kv_cache_dtype", to_string(r.kv_cache_dtype)},
                      {"tensor_parallel", r.tensor_parallel},
                      {"expert_parallel", r.expert_parallel},
                      {"spec_draft_tokens", r.spec_draft_tokens},
                      {"spec_method", r.spec_method},
                      {"kv_page_tokens", r.kv_page_tokens},
                      {"max_num_batched_tokens", r.max_num_batched_tokens},
                      {"max_num_seqs", r.max_num_seqs},
                      {"prefix_caching", r.prefix_caching},
                      {"cuda_graphs", r.cuda_graphs},
                      {"router", serving::kRouterNames[static_cast<std::size_t>(r.router)]}};
  j["spec_acceptance_length"] = r.spec_acceptance_length ? nlohmann::json(*r.spec_acceptance_length) : nullptr;
  return j;
}

namespace {

Precision read_precision(data::ObjectReader& in, std::string_view key) {
  return static_cast<Precision>(in.choice(key, kPrecisionNames));
}

int read_int(data::ObjectReader& in, std::string_view key, data::Bound bound) {
  auto v = in.integer(key, bound);
  if (v > 1'000'000'000) in.fail(key, "too large");
  return static_cast<int>(v);
}

}  // namespace

RecipeSettings recipe_settings_from_json(data::ObjectReader& in) {
  RecipeSettings r;
  r.engine = in.string("engine");
  r.precision = read_precision(in, "precision");
  r.kv_cache_dtype = read_precision(in, "kv_cache_dtype");
  r.tensor_parallel = read_int(in, "tensor_parallel", data::Bound::kPositive);
  r.expert_parallel = read_int(in, "expert_parallel", data::Bound::kPositive);
  r.spec_draft_tokens = read_int(in, "spec_draft_tokens", data::Bound::kNonNegative);
  r.spec_method = in.string("spec_method");
  r.spec_acceptance_length = in.optional_number("spec_acceptance_length", data::Bound::kPositive);
  r.kv_page_tokens = read_int(in, "kv_page_tokens", data::Bound::kPositive);
  r.max_num_batched_tokens = read_int(in, "max_num_batched_tokens", data::Bound::kPositive);
  r.max_num_seqs = read_int(in, "max_num_seqs", data::Bound::kPositive);
  r.prefix_caching = in.boolean("prefix_caching");
  r.cuda_graphs = in.boolean("cuda_graphs");
  r.router = static_cast<serving::RouterKind>(in.choice("router", serving::kRouterNames));
  return r;
}

nlohmann::json to_json(const serving::ServingOverrides& o) {
  nlohmann::json j = nlohmann::json::object();
  if (o.engine) j["engine"] = *o.engine;
  if (o.precision) j["precision"] = to_string(*o.precision);
  if (o.kv_cache_dtype) j["kv_cache_dtype"] = to_string(*o.kv_cache_dtype);
  if (o.tensor_parallel) j["tensor_parallel"] = *o.tensor_parallel;
  if (o.expert_parallel) j["expert_parallel"] = *o.expert_parallel;
  if (o.spec_draft_tokens) j["spec_draft_tokens"] = *o.spec_draft_tokens;
  if (o.spec_acceptance_length) j["spec_acceptance_length"] = *o.spec_acceptance_length;
  if (o.max_num_batched_tokens) j["max_num_batched_tokens"] = *o.max_num_batched_tokens;
  if (o.max_num_seqs) j["max_num_seqs"] = *o.max_num_seqs;
  if (o.prefix_caching) j["prefix_caching"] = *o.prefix_caching;
  if (o.cuda_graphs) j["cuda_graphs"] = *o.cuda_graphs;
  if (o.router) j["router"] = serving::kRouterNames[static_cast<std::size_t>(*o.router)];
  return j;
}

serving::ServingOverrides read_overrides(data::ObjectReader& in) {
  serving::ServingOverrides o;
  if (in.has("engine")) o.engine = in.string("engine");
  if (in.has("precision")) o.precision = read_precision(in, "precision");
  if (in.has("kv_cache_dtype")) o.kv_cache_dtype = read_precision(in, "kv_cache_dtype");
  if (in.has("tensor_parallel")) o.tensor_parallel = read_int(in, "tensor_parallel", data::Bound::kPositive);
  if (in.has("expert_parallel")) o.expert_parallel = read_int(in, "expert_parallel", data::Bound::kPositive);
  if (in.has("spec_draft_tokens")) o.spec_draft_tokens = read_int(in, "spec_draft_tokens", data::Bound::kNonNegative);
  if (in.has("spec_acceptance_length")) {
    o.spec_acceptance_length = in.number("spec_acceptance_length", data::Bound::kPositive);
  }
  if (in.has("max_num_batched_tokens")) {
    o.max_num_batched_tokens = read_int(in, "max_num_batched_tokens", data::Bound::kPositive);
  }
  if (in.has("max_num_seqs")) o.max_num_seqs = read_int(in, "max_num_seqs", data::Bound::kPositive);
  if (in.has("prefix_caching")) o.prefix_caching = in.boolean("prefix_caching");
  if (in.has("cuda_graphs")) o.cuda_graphs = in.boolean("cuda_graphs");
  if (in.has("router")) o.router = static_cast<serving::RouterKind>(in.choice("router", serving::kRouterNames));
  return o;
}

}  // namespace tycoon::game
