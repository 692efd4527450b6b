// An advice session, as `tycoon advise` runs it: a scenario played to a given hour with no
// decisions, then the advisor's profile of every deployment, its recipe search on each (every
// candidate, with its spread across seeds) and its proposals ranked by claimed gain. The top ones
// are checked (paid for with CheckAdvice like a player would, the game running on until the
// results are in), so each shows its measured gain next to the claim. Never the hidden truth.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/advisor/advisor.h"

namespace tycoon::advisor {

struct AdviseRequest {
  std::optional<std::uint64_t> seed;  // unset: the scenario's
  double at_day = 0;                  // advise at this game day, no earlier than the first round
  int verify = 3;                     // check the top N proposals
  game::AdviceCheckKind check = game::AdviceCheckKind::kBenchmark;
  AdvisorOptions options;
};

// A deployment's profile with the recipe search on its traffic.
struct SearchedProfile {
  DeploymentProfile profile;
  RecipeSearchResult search;
};

struct AdviseReport {
  std::string scenario_id;
  std::uint64_t seed = 0;
  std::int64_t advised_at_hour = 0;  // when the proposals were ranked and the checks paid for
  std::int64_t hour = 0;             // when the report was made: the checks' results are in
  RecipeSearchOptions search;
  std::vector<SearchedProfile> profiles;
  // What the player sees of each proposal still pending (player_view_json), ranked by claimed
  // gain, with its "rank" (1 first).
  nlohmann::json proposals = nlohmann::json::array();
  std::vector<std::string> checks_refused;  // "id: reason"
  double checks_usd = 0;                    // every check paid for in the game so far
};

// Called with the number of proposals checked so far and the number to check: once with 0 before
// the first check, then after each.
using AdviseProgress = std::function<void(std::size_t done, std::size_t total)>;

// Plays `scenario` with the advisor Chien (with `changes`, its code-change catalog) and reports as
// above. Throws std::invalid_argument for a scenario or request the game refuses.
AdviseReport advise(const data::Catalog& catalog, const game::Scenario& scenario, CodeChangeCatalog changes,
                    const AdviseRequest& request, const AdviseProgress& progress = {});

// The sum of every check's cost on the advice in `state`'s inbox.
double checks_usd(const game::GameState& state);

nlohmann::json to_json(const AdviseReport& report);

}  // namespace tycoon::advisor
