// The ranges the game accepts for the numbers a player types: replicas per pool, the recipe's
// batch limits and its draft tokens. The commands refuse a number outside them (deploy_checks.h);
// the front ends' inputs clamp to them, so a form never offers what the game would refuse.
#pragma once

#include <algorithm>
#include <optional>
#include <string>

#include "sim/game/recipe_settings.h"

namespace tycoon::game {

// A closed range of integers, [min, max].
struct IntRange {
  int min = 0;
  int max = 0;

  constexpr bool contains(int v) const { return v >= min && v <= max; }
  constexpr int clamp(int v) const { return std::clamp(v, min, max); }
};

inline constexpr IntRange kReplicasRange{1, 256};  // a new pool's replicas; scaling may go down to 0
inline constexpr IntRange kMaxNumSeqsRange{1, 4096};
inline constexpr IntRange kMaxNumBatchedTokensRange{64, 1 << 20};
inline constexpr IntRange kSpecDraftTokensRange{0, 8};  // 0: speculative decoding off

// The first of `r`'s batch limits and draft tokens outside its range, as the game's refusal
// ("max_num_seqs 5000 is outside 1..4096"), or nothing.
std::optional<std::string> recipe_limits_refusal(const RecipeSettings& r);

// `r` with its batch limits and draft tokens clamped into their ranges, and expert parallelism
// as a new tensor-parallel size leaves it (apply_overrides: reset to 1 when TP is no multiple).
RecipeSettings clamp_to_limits(RecipeSettings r);

}  // namespace tycoon::game
