#include "sim/game/lever_limits.h"

namespace tycoon::game {

namespace {

std::optional<std::string> outside(const char* name, int v, IntRange range) {
  if (range.contains(v)) return std::nullopt;
  return std::string(name) + " " + std::to_string(v) + " is outside " + std::to_string(range.min) + ".." +
         std::to_string(range.max);
}

}  // namespace

std::optional<std::string> recipe_limits_refusal(const RecipeSettings& r) {
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
