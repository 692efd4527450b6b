// The advisor's memory, kept in the GameState so that a save holds it and a loaded game continues
// exactly as the uninterrupted one: its random streams, the proposal counter, what it already
// proposed, what it charged for checks, and the record of every proposal — hidden truth included.
// The advisor (sim/advisor) reads and writes it through game::Advisor; the game only stores it.
//
// Hidden truths: `records` (true speedups, traits, reputation hits) and the streams (they tell the
// coming check noise). player_view_json (sim/game/state_json.h) drops this whole section from every
// client view, and a save stores it sealed (sim/game/save.h), not as readable JSON.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/random/mersenne_twister.hpp>

#include "sim/game/advice.h"
#include "sim/game/recipe_settings.h"
#include "sim/perf/deployment.h"
#include "sim/perf/op_class.h"
#include "sim/serving/serving_sim.h"

namespace tycoon::game {

// What a code change really does on the player's traffic (the advisor's catalog,
// hardware_db/advisor_catalog.json, gives each change one).
enum class Trait {
  kRealWin,                // the component speedup holds on real traffic
  kShrinksOnOtherTraffic,  // holds on the traffic it was tuned for, shrinks elsewhere
  kIsolationOnly,          // fast_mode: fast on the test's shapes, slower on real ones
  kQualityDrift,           // fast, but outputs drift beyond tolerance (reputation incident)
  kScorerGaming,           // wins only on the benchmark (caches it, borrows GPUs, refuses requests)
};
inline constexpr std::array<std::string_view, 5> kTraitNames = {"real_win", "shrinks_on_other_traffic",
                                                                "isolation_only", "quality_drift", "scorer_gaming"};
inline std::string_view to_string(Trait t) { return kTraitNames[static_cast<std::size_t>(t)]; }

// Per-op-class time factors (1 = unchanged), indexed by perf::OpClass.
using OpTimes = std::array<double, perf::kNumOpClasses>;

enum class ProposalKind { kCodeChange, kRecipe };
inline constexpr std::array<std::string_view, 2> kProposalKindNames = {"code_change", "recipe"};

// Everything the advisor knows about one proposal, hidden truth included.
struct ProposalRecord {
  std::string advice_id;
  std::int64_t deployment_id = 0;
  ProposalKind kind = ProposalKind::kCodeChange;
  std::string change_id;  // catalog id, or the recipe change's label
  std::string title;
  std::int64_t posted_at_hour = 0;
  serving::WorkloadKind workload = serving::WorkloadKind::kRandom;
  // Code changes.
  std::optional<Trait> trait;
  std::optional<perf::OpClass> op_class;
  double op_share = 0;
  double component_speedup = 1;
  OpTimes true_op_time_scale = perf::Deployment::uniform_op_time_scale();
  // Both.
  double claimed_speedup = 1;
  double true_speedup = 1;  // end to end on the player's traffic
  double reputation_hit = 0;
  serving::ServingOverrides recipe;
  std::optional<int> replicas;  // a tensor-parallel move: replicas on the same GPUs
  double claimed_spread = 0;    // recipe: the search's standard deviation of the gain across seeds
  std::vector<AdviceCheck> checks;

  // A proposal worth accepting: a real end-to-end gain with no incident.
  bool good() const { return true_speedup >= 1.0 + kMaterialGain && reputation_hit == 0; }
  bool operator==(const ProposalRecord&) const = default;
};

struct AdvisorState {
  bool seeded = false;                    // the streams are seeded at the advisor's first round
  boost::random::mt19937_64 propose_rng;  // which proposals, recipe-search seeds
  boost::random::mt19937_64 check_rng;    // check noise (a separate stream: checking changes no proposal)
  std::int64_t next_id = 1;               // the next proposal is "<persona>-<next_id>"
  std::set<std::pair<std::int64_t, std::string>> proposed;  // (deployment, change id): never proposed twice
  std::vector<ProposalRecord> records;                      // in posting order
  double check_spend_usd = 0;

  const ProposalRecord* find(std::string_view advice_id) const {
    for (const auto& r : records) {
      if (r.advice_id == advice_id) return &r;
    }
    return nullptr;
  }
  ProposalRecord* find(std::string_view advice_id) {
    return const_cast<ProposalRecord*>(static_cast<const AdvisorState&>(*this).find(advice_id));
  }
};

}  // namespace tycoon::game
