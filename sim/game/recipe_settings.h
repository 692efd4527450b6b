// How a deployment runs its model: engine, precision, parallelism, speculative decoding, batch
// limits. A player's command names only the fields it changes (a serving::ServingOverrides); the rest come
// from the catalog recipe for the (model, chip) pair, else from the engine's defaults.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sim/core/types.h"
#include "sim/data/catalog.h"
#include "sim/data/json_reader.h"
#include "sim/perf/deployment.h"
#include "sim/serving/resolve_config.h"
#include "sim/serving/serving_sim.h"

namespace tycoon::game {

struct RecipeSettings {
  std::string engine = "vllm";
  Precision precision = Precision::kBf16;
  Precision kv_cache_dtype = Precision::kBf16;
  int tensor_parallel = 1;  // GPUs per replica
  int expert_parallel = 1;
  int spec_draft_tokens = 0;  // 0: speculative decoding off
  std::string spec_method = "eagle3";
  std::optional<double> spec_acceptance_length;  // nullopt: what the segment's traffic gives
  int kv_page_tokens = 16;
  int max_num_batched_tokens = 8192;
  int max_num_seqs = 256;
  bool prefix_caching = true;
  bool cuda_graphs = true;
  serving::RouterKind router = serving::RouterKind::kLeastOutstanding;  // across the replicas

  bool operator==(const RecipeSettings&) const = default;
};

// Names of the fields a command may set; also the `recipe.<field>` levers a scenario can lock.
inline constexpr std::array<std::string_view, 12> kRecipeFieldNames = {"engine",
                                                                       "precision",
                                                                       "kv_cache_dtype",
                                                                       "tensor_parallel",
                                                                       "expert_parallel",
                                                                       "spec_draft_tokens",
                                                                       "spec_acceptance_length",
                                                                       "max_num_batched_tokens",
                                                                       "max_num_seqs",
                                                                       "prefix_caching",
                                                                       "cuda_graphs",
                                                                       "router"};

// The starting recipe for `model` on `chip`: the catalog recipe if one exists, else the model's
// native precision on the fewest GPUs of one scale-up domain whose weights fit, with vLLM.
RecipeSettings default_recipe(const data::Catalog& catalog, const data::ModelCard& model,
                              const data::Accelerator& chip);

// Names (from kRecipeFieldNames) of the fields of `o` that are set: a command's change to a recipe
// is a serving::ServingOverrides with some of those fields set (read_overrides reads no others).
std::vector<std::string_view> recipe_fields_set(const serving::ServingOverrides& o);

// `base` with the set fields of `o` applied. A new tensor-parallel size that the old expert-
// parallel size does not divide resets expert parallelism to 1, unless `o` sets it too.
RecipeSettings apply_overrides(RecipeSettings base, const serving::ServingOverrides& o);

// The command fields (kRecipeFieldNames) in which `r` differs from `base`, as overrides:
// apply_overrides(base, overrides_between(base, r)) is `r` wherever a command can say it (an
// acceptance `r` leaves unset while `base` sets one cannot be said; a changed draft count resets it).
serving::ServingOverrides overrides_between(const RecipeSettings& base, const RecipeSettings& r);

// Mean tokens emitted per target forward with `k` draft tokens when each draft token is accepted
// with probability `alpha` given the previous one was: (1 − alpha^(k+1)) / (1 − alpha).
double acceptance_length(double alpha, int k);

// The recipe as the resolver's overlay, every field set; `acceptance_length` where speculative
// decoding is on and `r` sets none.
serving::ServingOverrides serving_overrides(const data::Catalog& catalog, const std::string& model,
                                            const std::string& chip, const RecipeSettings& r, double acceptance_length);

// The serving configuration a recipe runs with (pointers into `catalog`): serving::resolve_serving
// with every field of `r` set, so the game, the advisor and the UI's previews resolve a recipe as
// `tycoon benchmark` and sweeps do (KV admission from the engine card). `acceptance_length` is
// used when speculative decoding is on and `r` sets none. The queue timeout and limit are the
// scenario's, set by the caller. Throws std::invalid_argument when the combination cannot run.
serving::ResolvedServing resolve_recipe(const data::Catalog& catalog, const std::string& model, const std::string& chip,
                                        const RecipeSettings& r, double acceptance_length);

// resolve_recipe's deployment.
perf::Deployment to_perf_deployment(const data::Catalog& catalog, const std::string& model, const std::string& chip,
                                    const RecipeSettings& r, double acceptance_length);

// A one-line description for news and errors: "vllm fp4 TP1 spec 3".
std::string describe(const RecipeSettings& r);

nlohmann::json to_json(const RecipeSettings& r);
RecipeSettings recipe_settings_from_json(data::ObjectReader& in);
// The set fields of a command's change (recipe_fields_set's).
nlohmann::json to_json(const serving::ServingOverrides& o);
// Reads the override fields present in `in` (other keys are left for the caller).
serving::ServingOverrides read_overrides(data::ObjectReader& in);

}  // namespace tycoon::game
