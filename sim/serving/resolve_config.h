// The one place a (model, chip) pair plus a caller's choices becomes one pool's serving
// configuration: the perf-model deployment and the scheduler config, KV admission and speculative
// decoding included. `tycoon predict` calls it directly; everything that runs a deployment calls
// it through the deployment plan (sim/serving/deployment_plan.h), so one recipe runs the same way
// everywhere.
#pragma once

#include <optional>
#include <string>

#include "sim/core/types.h"
#include "sim/data/catalog.h"
#include "sim/perf/deployment.h"
#include "sim/serving/serving_sim.h"

namespace tycoon::serving {

// What a caller chooses. Every unset field comes from the catalog recipe for (model, chip) — its
// engine settings (CUDA graphs, page size, speculative decoding) only when the recipe is written
// for the resolved engine — else from the model card and the engine card.
struct ServingOverrides {
  std::optional<std::string> engine;   // unset: the recipe's, else vllm
  std::optional<Precision> precision;  // unset: the recipe's, else the model's native precision
  std::optional<Precision> kv_cache_dtype;
  // The activations of a native 4-bit expert checkpoint's GEMMs (perf::Deployment::expert_activation).
  std::optional<Precision> expert_activation;
  // The W4A16 kernel of a native 4-bit expert checkpoint (perf::Deployment::mxfp4_backend).
  std::optional<std::string> mxfp4_backend;
  std::optional<int> tensor_parallel;  // unset: the recipe's, else 1
  // Unset: the recipe's, reset to 1 when a set tensor_parallel is not a multiple of it.
  std::optional<int> expert_parallel;
  std::optional<int> spec_draft_tokens;    // 0: speculative decoding off; unset: the recipe's
  std::optional<std::string> spec_method;  // unset: the recipe's, else eagle3
  // Mean tokens per target forward, bonus token included; applies when speculative decoding is on.
  std::optional<double> spec_acceptance_length;
  std::optional<int> kv_page_tokens;
  std::optional<bool> cuda_graphs;  // on only where the engine captures graphs
  std::optional<int> max_num_batched_tokens;
  std::optional<int> max_num_seqs;
  std::optional<bool> prefix_caching;       // on only where the engine has a prefix cache
  std::optional<bool> chunked_prefill;      // unset: on; on only where the engine chunks prefills
  std::optional<KvAdmission> kv_admission;  // unset: the engine card's policy
  // Batch waiting (SchedulerConfig::batch_wait_iters / batch_wait_tokens_ratio); only where the
  // engine has it (data::Engine::supports_batch_waiting). Unset: off.
  std::optional<int> batch_wait_iters;
  std::optional<double> batch_wait_tokens_ratio;
  // Receive interval (SchedulerConfig::recv_interval); only where the engine has it
  // (data::Engine::supports_recv_interval). Unset: every step takes new requests in.
  std::optional<int> recv_interval;
  // Asynchronous scheduling (SchedulerConfig::async_scheduling); only where the engine has it
  // (data::Engine::supports_async_scheduling). Unset: synchronous.
  std::optional<bool> async_scheduling;
  // How requests are spread over the deployment's replicas: the deployment plan reads the
  // (prefill) pool's; resolve_serving, which resolves one replica, does not. Unset: round robin.
  std::optional<RouterKind> router;

  bool operator==(const ServingOverrides&) const = default;
};

struct ResolvedServing {
  perf::Deployment deployment;           // pointers into the catalog (and to `model`)
  SchedulerConfig scheduler;             // queue timeout, queue limit and KV capacity: SchedulerConfig's defaults
  const data::Recipe* recipe = nullptr;  // the catalog recipe for (model, chip), if any
};

// `base` with every field set in `over` replaced by it.
void overlay(ServingOverrides& base, const ServingOverrides& over);

// The expert-parallel size a replica of `tensor_parallel` GPUs runs with: `expert_parallel` when
// the caller chose it or it divides the tensor-parallel size, else 1 (experts sharded by tensor
// parallelism), so a new TP alone never leaves an EP that does not divide it.
int expert_parallel_under(int tensor_parallel, int expert_parallel, bool expert_parallel_chosen);

// The serving configuration of `model` on `chip`. Throws core::InputError naming the field when
// an override is out of range or the combination cannot run (perf::check_deployment).
ResolvedServing resolve_serving(const data::Catalog& catalog, const data::ModelCard& model,
                                const data::Accelerator& chip, const ServingOverrides& overrides);

}  // namespace tycoon::serving
