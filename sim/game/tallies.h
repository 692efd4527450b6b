// Counts and products the front ends show over the inbox and the gap to the reference: the
// advisor's claims for what the player accepted, the player's decisions, the gap's total.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/game/advice.h"
#include "sim/game/counterfactual.h"

namespace tycoon::game {

// The code changes accepted on deployment `deployment_id` and still in force (accepted proposals,
// not reverted, that change no recipe field and no replicas), and the speedup the advisor claimed
// for them together (their claims multiplied): what the player was promised. What they really
// do is the simulator's secret (AdviceEffect::speedup, DeploymentState::speedup).
struct ClaimedChanges {
  int num_changes = 0;
  double claimed_speedup = 1.0;
};
ClaimedChanges claimed_code_changes(const std::vector<Advice>& inbox, std::int64_t deployment_id);

// The player's decisions on the inbox: proposals accepted (reverted ones included), rejected and
// undecided, and the claimed speedup of everything accepted, multiplied together.
struct AdviceTally {
  int num_accepted = 0;
  int num_rejected = 0;
  int num_pending = 0;
  double claimed_speedup = 1.0;
};
AdviceTally advice_tally(const std::vector<Advice>& inbox);

// The whole gap to the reference (USD): its items added up, the reference's profit less yours
// (explain_gap's items add up to it).
double gap_usd(const std::vector<GapItem>& gap);

}  // namespace tycoon::game
