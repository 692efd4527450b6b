// The extension point for the advisor (sim/advisor, a separate issue): proposals the player
// accepts or rejects. The game stores the inbox and applies accepted effects; it proposes nothing
// itself. An Advisor plugged into the Game posts proposals at the end of each hour.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/game/recipe_settings.h"

namespace tycoon::game {

struct GameState;

// What accepting a proposal changes on its deployment.
struct AdviceEffect {
  RecipeOverrides recipe;  // recipe fields to change (as ChangeRecipe)
  double speedup = 1.0;    // code change: every GPU op and engine step runs this many times faster
  // Share of the deployment's segment reputation lost when accepted, in [0, 1]: outputs that
  // drift beyond tolerance, or a change that games the benchmark by rejecting requests.
  double reputation_hit = 0.0;
};

enum class AdviceStatus { kPending, kAccepted, kRejected };
inline constexpr std::array<std::string_view, 3> kAdviceStatusNames = {"pending", "accepted", "rejected"};

struct Advice {
  std::string id;
  std::int64_t deployment_id = 0;
  std::string title;
  std::string rationale;
  double claimed_speedup = 1.0;  // what the advisor claims; the simulator decides what is true
  AdviceEffect effect;
  AdviceStatus status = AdviceStatus::kPending;
  std::int64_t posted_at_hour = 0;
  std::optional<std::int64_t> decided_at_hour;
};

class Advisor {
 public:
  virtual ~Advisor() = default;
  // Called after every simulated hour. Must be a deterministic function of the state so that a
  // command log replays the same game. Returned proposals are appended to the inbox.
  virtual std::vector<Advice> propose(const GameState& state) = 0;
};

}  // namespace tycoon::game
