#include "sim/serving/resolve_config.h"

#include <cstdio>

#include "sim/core/input_error.h"

namespace tycoon::serving {

namespace {

void check_at_least(std::string_view field, const std::optional<int>& v, int min) {
  if (v && *v < min) {
    std::string why(field);
    why += " must be at least ";
    why += std::to_string(min);
    why += " (got ";
    why += std::to_string(*v);
    why += ")";
    throw core::InputError(why);
  }
}

}  // namespace

void overlay(ServingOverrides& base, const ServingOverrides& over) {
  auto take = [](auto& field, const auto& set) {
    if (set) field = set;
  };
  take(base.engine, over.engine);
  take(base.precision, over.precision);
  take(base.kv_cache_dtype, over.kv_cache_dtype);
  take(base.expert_activation, over.expert_activation);
  take(base.mxfp4_backend, over.mxfp4_backend);
  take(base.tensor_parallel, over.tensor_parallel);
  take(base.expert_parallel, over.expert_parallel);
  take(base.spec_draft_tokens, over.spec_draft_tokens);
  take(base.spec_method, over.spec_method);
  take(base.spec_acceptance_length, over.spec_acceptance_length);
  take(base.kv_page_tokens, over.kv_page_tokens);
  take(base.cuda_graphs, over.cuda_graphs);
  take(base.max_num_batched_tokens, over.max_num_batched_tokens);
  take(base.max_num_seqs, over.max_num_seqs);
  take(base.prefix_caching, over.prefix_caching);
  take(base.chunked_prefill, over.chunked_prefill);
  take(base.kv_admission, over.kv_admission);
  take(base.batch_wait_iters, over.batch_wait_iters);
  take(base.batch_wait_tokens_ratio, over.batch_wait_tokens_ratio);
  take(base.recv_interval, over.recv_interval);
  take(base.async_scheduling, over.async_scheduling);
  take(base.router, over.router);
}

int expert_parallel_under(int tensor_parallel, int expert_parallel, bool expert_parallel_chosen) {
  if (expert_parallel_chosen) return expert_parallel;  // checked with the rest (perf::check_deployment)
  return expert_parallel > 0 && tensor_parallel % expert_parallel == 0 ? expert_parallel : 1;
}

ResolvedServing resolve_serving(const data::Catalog& catalog, const data::ModelCard& model,
                                const data::Accelerator& chip, const ServingOverrides& o) {
  check_at_least("tensor_parallel", o.tensor_parallel, 1);
  check_at_least("expert_parallel", o.expert_parallel, 1);
  check_at_least("spec_draft_tokens", o.spec_draft_tokens, 0);
  check_at_least("kv_page_tokens", o.kv_page_tokens, 1);
  check_at_least("max_num_batched_tokens", o.max_num_batched_tokens, 1);
  check_at_least("max_num_seqs", o.max_num_seqs, 1);
  check_at_least("batch_wait_iters", o.batch_wait_iters, 0);
  check_at_least("recv_interval", o.recv_interval, 0);
  if (o.batch_wait_tokens_ratio && !(*o.batch_wait_tokens_ratio >= 0 && *o.batch_wait_tokens_ratio <= 1)) {
    throw core::InputError("batch_wait_tokens_ratio must lie in [0, 1] (a share of max_num_batched_tokens)");
  }

  ResolvedServing out;
  const data::Recipe* recipe = catalog.find_recipe(model.id, chip.id);
  out.recipe = recipe;
  const std::string engine_id = o.engine ? *o.engine : recipe ? recipe->engine : std::string("vllm");
  const data::Engine& engine = catalog.engine(engine_id);
  // A recipe written for another engine lends only what belongs to the model and the chip
  // (precision, KV precision, parallelism, batch limits); its engine settings (speculative
  // decoding, CUDA graphs, page size) stay with its engine.
  const bool recipe_engine = recipe && recipe->engine == engine.id;

  auto& d = out.deployment;
  d.model = &model;
  d.hardware = &chip;
  d.engine = &engine;
  d.precision = recipe ? recipe->precision : model.native_precision;
  if (recipe) {
    d.kv_cache_dtype = recipe->kv_cache_dtype;
    d.tensor_parallel = recipe->tensor_parallel;
    d.expert_parallel = recipe->expert_parallel;
  }
  d.cuda_graphs = recipe_engine ? recipe->cuda_graphs : true;
  if (recipe_engine) {
    d.kv_page_tokens = recipe->kv_page_tokens;
    d.spec_decode = recipe->spec_decode;
  }

  if (o.precision) d.precision = *o.precision;
  if (o.kv_cache_dtype) d.kv_cache_dtype = *o.kv_cache_dtype;
  if (o.expert_activation) d.expert_activation = *o.expert_activation;
  if (o.mxfp4_backend) d.mxfp4_backend = *o.mxfp4_backend;
  if (o.tensor_parallel) d.tensor_parallel = *o.tensor_parallel;
  if (o.expert_parallel) d.expert_parallel = *o.expert_parallel;
  d.expert_parallel = expert_parallel_under(d.tensor_parallel, d.expert_parallel, o.expert_parallel.has_value());
  if (o.cuda_graphs) d.cuda_graphs = *o.cuda_graphs;
  d.cuda_graphs = d.cuda_graphs && engine.supports_cuda_graphs;
  if (o.kv_page_tokens) d.kv_page_tokens = *o.kv_page_tokens;

  // Speculative decoding: the recipe's drafter (for its engine) unless the draft count is set; a
  // set count keeps the recipe's method and acceptance as defaults.
  if (o.spec_draft_tokens) {
    if (*o.spec_draft_tokens == 0) {
      d.spec_decode.reset();
    } else {
      const bool known_acceptance = d.spec_decode.has_value();
      data::SpecDecode sd = d.spec_decode.value_or(data::SpecDecode{"eagle3", *o.spec_draft_tokens, 1.0});
      sd.num_draft_tokens = *o.spec_draft_tokens;
      if (!o.spec_acceptance_length && !known_acceptance) {
        throw core::InputError("speculative decoding with " + std::to_string(sd.num_draft_tokens) +
                               " draft tokens needs an acceptance length (no recipe gives one for " + model.id +
                               " on " + chip.id + " with " + engine.id + ")");
      }
      d.spec_decode = sd;
    }
  }
  if (d.spec_decode) {
    if (o.spec_method) d.spec_decode->method = *o.spec_method;
    if (o.spec_acceptance_length) d.spec_decode->acceptance_length = *o.spec_acceptance_length;
    const double al = d.spec_decode->acceptance_length;
    if (!(al >= 1.0 && al <= d.spec_decode->num_draft_tokens + 1.0)) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "acceptance length %g must lie in [1, draft tokens + 1 = %d]", al,
                    d.spec_decode->num_draft_tokens + 1);
      throw core::InputError(buf);
    }
  }

  auto& s = out.scheduler;
  if (recipe) {
    s.max_num_batched_tokens = recipe->max_num_batched_tokens;
    s.max_num_seqs = recipe->max_num_seqs;
    s.prefix_caching = recipe->prefix_caching;
  }
  if (o.max_num_batched_tokens) s.max_num_batched_tokens = *o.max_num_batched_tokens;
  if (o.max_num_seqs) s.max_num_seqs = *o.max_num_seqs;
  // The recipes' max_num_seqs is vLLM's setting; an engine that sizes its own limit from its KV
  // pool (SGLang) runs with that unless the limit is set.
  s.running_limit_from_engine = !o.max_num_seqs && engine.running_limit_from_kv_pool;
  if (o.prefix_caching) s.prefix_caching = *o.prefix_caching;
  s.prefix_caching = s.prefix_caching && engine.supports_prefix_caching;
  s.chunked_prefill = o.chunked_prefill.value_or(true) && engine.supports_chunked_prefill;
  s.kv_admission = o.kv_admission.value_or(engine.kv_admission);
  if ((o.batch_wait_iters.value_or(0) > 0 || o.batch_wait_tokens_ratio.value_or(0) > 0) &&
      !engine.supports_batch_waiting) {
    throw core::InputError("batch waiting: engine '" + engine.id +
                           "' does not hold prompts back to batch them (TensorRT-LLM's batch_wait_timeout_iters; "
                           "hardware_db/engines/" +
                           engine.id + ".json: supports_batch_waiting)");
  }
  // TensorRT-LLM stops holding prompts when either limit is reached: with one of the two at 0 the
  // step never waits (Replica::hold_prompts), so a configuration giving only one holds nothing.
  if ((o.batch_wait_iters.value_or(0) > 0) != (o.batch_wait_tokens_ratio.value_or(0) > 0)) {
    throw core::InputError(
        "batch waiting needs both limits, the steps a prompt may wait (--batch-wait-iters, "
        "batch_wait_timeout_iters) and the share of the token budget that releases it (--batch-wait-tokens-ratio, "
        "batch_wait_max_tokens_ratio): with only one, nothing is held");
  }
  s.batch_wait_iters = o.batch_wait_iters.value_or(0);
  s.batch_wait_tokens_ratio = o.batch_wait_tokens_ratio.value_or(0);
  if (o.recv_interval.value_or(0) > 1 && !engine.supports_recv_interval) {
    throw core::InputError("receive interval: engine '" + engine.id +
                           "' takes new requests in at every step (SGLang's --scheduler-recv-interval; "
                           "hardware_db/engines/" +
                           engine.id + ".json: supports_recv_interval)");
  }
  s.recv_interval = o.recv_interval.value_or(0);
  if (o.async_scheduling.value_or(false) && !engine.supports_async_scheduling) {
    throw core::InputError("asynchronous scheduling: engine '" + engine.id +
                           "' schedules each step after the last one ends (vLLM's --async-scheduling, SGLang's and "
                           "TensorRT-LLM's overlap schedulers; "
                           "hardware_db/engines/" +
                           engine.id + ".json: supports_async_scheduling)");
  }
  s.async_scheduling = o.async_scheduling.value_or(false);
  if (s.async_scheduling && d.spec_decode && !engine.async_scheduling_with_spec_decode) {
    throw core::InputError("asynchronous scheduling: engine '" + engine.id +
                           "' turns its overlap scheduler off with speculative decoding (hardware_db/engines/" +
                           engine.id + ".json: async_scheduling_with_spec_decode)");
  }

  perf::check_deployment(d);
  return out;
}

}  // namespace tycoon::serving
