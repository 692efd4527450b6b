#include "sim/game/tallies.h"

namespace tycoon::game {

ClaimedChanges claimed_code_changes(const std::vector<Advice>& inbox, std::int64_t deployment_id) {
  ClaimedChanges out;
  for (const auto& a : inbox) {
    if (a.deployment_id != deployment_id || a.status != AdviceStatus::kAccepted || a.reverted_at_hour) continue;
    if (!recipe_fields_set(a.effect.recipe).empty() || a.effect.replicas) continue;
    ++out.num_changes;
    out.claimed_speedup *= a.claimed_speedup;
  }
  return out;
}

AdviceTally advice_tally(const std::vector<Advice>& inbox) {
  AdviceTally out;
  for (const auto& a : inbox) {
    switch (a.status) {
      case AdviceStatus::kAccepted:
        ++out.num_accepted;
        out.claimed_speedup *= a.claimed_speedup;
        break;
      case AdviceStatus::kRejected:
        ++out.num_rejected;
        break;
      case AdviceStatus::kPending:
        ++out.num_pending;
        break;
    }
  }
  return out;
}

double gap_usd(const std::vector<GapItem>& gap) {
  double total = 0;
  for (const auto& g : gap) total += g.usd;
  return total;
}

}  // namespace tycoon::game
