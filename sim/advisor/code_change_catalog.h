// The advisor's catalog of code changes (hardware_db/advisor_catalog.json): each targets one op
// class with a component speedup, and carries a hidden trait that decides what it really does on
// the player's traffic (the seed's blooper reel, section 10).
#pragma once

#include <array>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/game/advisor_state.h"
#include "sim/perf/op_class.h"
#include "sim/serving/serving_sim.h"

namespace tycoon::advisor {

// The traits live with the advisor's records in the game state (sim/game/advisor_state.h).
using Trait = game::Trait;
using game::kTraitNames;
using game::to_string;

struct CodeChange {
  std::string id;
  std::string title;
  perf::OpClass op_class = perf::OpClass::kMoeExperts;
  double component_speedup = 1.0;  // the op class's speedup on the component test's shapes (> 1)
  Trait trait = Trait::kRealWin;
  // kShrinksOnOtherTraffic: full gain on this workload kind, `gain_kept_on_other_traffic` of it elsewhere.
  std::optional<serving::WorkloadKind> tuned_for_workload;
  double gain_kept_on_other_traffic = 1.0;  // in [0, 1]
  double real_traffic_op_time_scale = 1.0;  // kIsolationOnly: the op class's time factor on real shapes (> 1)
  double reputation_hit = 0.0;              // kQualityDrift / kScorerGaming: share of reputation lost
  std::string source;

  // The op class's time factor on `workload` traffic (what really happens; 1/speedup for a win).
  double true_op_time_scale(serving::WorkloadKind workload) const;
  // The factor the advisor believes in (its component test): 1 / component_speedup.
  double claimed_op_time_scale() const { return 1.0 / component_speedup; }
};

struct CodeChangeCatalog {
  std::vector<CodeChange> changes;
  const CodeChange* find(std::string_view id) const;
};

// Strict load: unknown keys, missing trait parameters, or parameters that do not belong to the
// trait are errors naming the file and JSON pointer (data::LoadError).
CodeChangeCatalog load_code_change_catalog(const std::filesystem::path& path);
// `<data_root>/hardware_db/advisor_catalog.json`.
CodeChangeCatalog load_code_change_catalog_from_root(const std::filesystem::path& data_root);

}  // namespace tycoon::advisor
