// The ranges the game accepts for the numbers a player types or picks: replicas per pool, GPUs
// per replica and expert parallelism, the recipe's batch limits and draft tokens, and prices. The commands refuse a
// number outside them (deploy_checks.h); the front ends' inputs clamp to them, so a form never offers what the game
// would refuse.
#pragma once

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "sim/data/catalog.h"
#include "sim/game/command.h"
#include "sim/game/recipe_settings.h"

namespace tycoon::game {

// A closed range of integers, [min, max].
struct IntRange {
  int min = 0;
  int max = 0;

  constexpr bool contains(int v) const { return v >= min && v <= max; }
  constexpr int clamp(int v) const { return std::clamp(v, min, max); }
};

inline constexpr IntRange kReplicasRange{1, 256};                      // a new pool's replicas
inline constexpr IntRange kScaleReplicasRange{0, kReplicasRange.max};  // a running pool's: down to 0, no GPUs
inline constexpr IntRange kMaxNumSeqsRange{1, 4096};
inline constexpr IntRange kMaxNumBatchedTokensRange{64, 1 << 20};
inline constexpr IntRange kSpecDraftTokensRange{0, 8};  // 0: speculative decoding off

// A closed range of prices, USD per million tokens.
struct PriceRange {
  double min = 0;
  double max = 0;

  constexpr bool contains(double v) const { return v >= min && v <= max; }
  constexpr double clamp(double v) const { return std::clamp(v, min, max); }
};
// Free to $1,000 per million tokens: two orders of magnitude over the dearest list price in
// reference/prices (a price there is no customer left at; the limit only stops a typo's extra zeros).
inline constexpr PriceRange kPriceUsdPerMtokRange{0.0, 1000.0};

// The largest tensor-parallel size the game offers: 64 GPUs per replica (an NVL72 rack's or a TPU
// slice's share; a larger domain still stops here).
inline constexpr int kMaxTensorParallel = 64;

// The tensor-parallel sizes a replica can have on `chip`: the powers of two within its scale-up
// domain, or, where the chip lists a scale-out network, within two domains (two 8-GPU nodes: the
// catalog's Kimi K3 recipes run TP16 on H200 and B200), at most kMaxTensorParallel. 1, 2, 4, 8, 16
// on an H200.
std::vector<int> tensor_parallel_choices(const data::Accelerator& chip);

// The KV-cache precisions a recipe may store: bf16 and fp8 (every engine in the catalog keeps one
// of these; fp8 is stored as bytes and upcast in the kernel on any chip).
inline constexpr std::array<Precision, 2> kKvCacheDtypeChoices = {Precision::kBf16, Precision::kFp8};

// The engines a recipe on `chip` can name: those that run on its vendor (perf::Deployment refuses
// the others) and serve production (recipe_refusal refuses a research engine), in catalog order.
// Without a chip, every production engine.
std::vector<const data::Engine*> engine_choices(const data::Catalog& catalog, const data::Accelerator* chip);

// The expert-parallel sizes under `tensor_parallel` GPUs per replica: the powers of two that divide
// it (apply_overrides resets any other to 1).
std::vector<int> expert_parallel_choices(int tensor_parallel);

// The draft tokens `engine` can run: kSpecDraftTokensRange, or only 0 (off) for an engine without
// speculative decoding (perf::Deployment refuses drafts there), and for an unknown engine.
IntRange spec_draft_tokens_range(const data::Engine* engine);

// Whether the recipe's prefix-caching and CUDA-graph switches mean anything on `engine`: the
// serving configuration turns each off on an engine without it (resolve_config), so a form offers
// the switch only where the engine has the feature (false for an unknown engine).
inline bool prefix_caching_choosable(const data::Engine* engine) { return engine && engine->supports_prefix_caching; }
inline bool cuda_graphs_choosable(const data::Engine* engine) { return engine && engine->supports_cuda_graphs; }

// The first of `c`'s prices outside kPriceUsdPerMtokRange, as the game's refusal, or nothing.
std::optional<std::string> price_refusal(const SetPrices& c);

// The first of `r`'s batch limits and draft tokens outside its range, as the game's refusal
// ("max_num_seqs 5000 is outside 1..4096"), or nothing; with `chip`, also a tensor-parallel size
// that is not one of tensor_parallel_choices.
std::optional<std::string> recipe_limits_refusal(const RecipeSettings& r, const data::Accelerator* chip = nullptr);

// `r` with its batch limits and draft tokens clamped into their ranges, and expert parallelism
// as a new tensor-parallel size leaves it (apply_overrides: reset to 1 when TP is no multiple).
RecipeSettings clamp_to_limits(RecipeSettings r);

}  // namespace tycoon::game
