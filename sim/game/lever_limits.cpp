#include "sim/game/lever_limits.h"

#include <algorithm>

#include "sim/econ/prices.h"

namespace tycoon::game {

namespace {

std::optional<std::string> outside(const char* name, int v, IntRange range) {
  if (range.contains(v)) return std::nullopt;
  return std::string(name) + " " + std::to_string(v) + " is outside " + std::to_string(range.min) + ".." +
         std::to_string(range.max);
}

std::string list_of(const std::vector<int>& v) {
  std::string out;
  for (int x : v) out += (out.empty() ? "" : ", ") + std::to_string(x);
  return out;
}

}  // namespace

std::vector<int> tensor_parallel_choices(const data::Accelerator& chip) {
  std::vector<int> out;
  const int domains = chip.scale_out_bandwidth_bytes_per_s > 0 ? 2 : 1;
  for (int tp = 1; tp <= kMaxTensorParallel && tp <= domains * chip.scale_up.domain_size; tp *= 2) out.push_back(tp);
  return out;
}

std::vector<const data::Engine*> engine_choices(const data::Catalog& catalog, const data::Accelerator* chip) {
  std::vector<const data::Engine*> out;
  for (const auto& e : catalog.engines) {
    if (e.serves_production && (!chip || e.runs_on(chip->vendor))) out.push_back(&e);
  }
  return out;
}

std::vector<int> expert_parallel_choices(int tensor_parallel) {
  std::vector<int> out;
  for (int ep = 1; ep <= tensor_parallel; ep *= 2) {
    if (tensor_parallel % ep == 0) out.push_back(ep);
  }
  return out;
}

IntRange spec_draft_tokens_range(const data::Engine* engine) {
  if (!engine || !engine->supports_spec_decode) return {0, 0};
  return kSpecDraftTokensRange;
}

std::optional<std::string> price_refusal(const SetPrices& c) {
  for (const auto& [name, v] : {std::pair{"input_usd_per_mtok", c.input_usd_per_mtok},
                                std::pair{"cached_input_usd_per_mtok", c.cached_input_usd_per_mtok},
                                std::pair{"output_usd_per_mtok", c.output_usd_per_mtok}}) {
    if (v && !kPriceUsdPerMtokRange.contains(*v)) {
      return std::string(name) + " " + econ::usd_text(*v) + " is outside " + econ::usd_text(kPriceUsdPerMtokRange.min) +
             ".." + econ::usd_text(kPriceUsdPerMtokRange.max) + " per million tokens";
    }
  }
  return std::nullopt;
}

std::optional<std::string> recipe_limits_refusal(const RecipeSettings& r, const data::Accelerator* chip) {
  if (chip) {
    const auto choices = tensor_parallel_choices(*chip);
    if (std::find(choices.begin(), choices.end(), r.tensor_parallel) == choices.end()) {
      return "tensor_parallel " + std::to_string(r.tensor_parallel) + " is not one of " + list_of(choices) + " on " +
             chip->name;
    }
  }
  if (auto why = outside("max_num_seqs", r.max_num_seqs, kMaxNumSeqsRange)) return why;
  if (auto why = outside("max_num_batched_tokens", r.max_num_batched_tokens, kMaxNumBatchedTokensRange)) return why;
  return outside("spec_draft_tokens", r.spec_draft_tokens, kSpecDraftTokensRange);
}

RecipeSettings clamp_to_limits(RecipeSettings r) {
  r.max_num_seqs = kMaxNumSeqsRange.clamp(r.max_num_seqs);
  r.max_num_batched_tokens = kMaxNumBatchedTokensRange.clamp(r.max_num_batched_tokens);
  r.spec_draft_tokens = kSpecDraftTokensRange.clamp(r.spec_draft_tokens);
  serving::ServingOverrides tp;
  tp.tensor_parallel = r.tensor_parallel;
  return apply_overrides(r, tp);
}

}  // namespace tycoon::game
