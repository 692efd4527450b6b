// The end-of-game (or so-far) summary, its JSON, and the CSV time series written by `tycoon run`.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/game/counterfactual.h"
#include "sim/game/game.h"
#include "sim/game/scoring.h"

namespace tycoon::game {

struct GameSummary {
  std::string scenario_id;
  std::string scenario_name;
  std::uint64_t seed = 0;
  std::int64_t hours = 0;
  double simulated_days = 0;
  double starting_cash_usd = 0;
  double cash_usd = 0;
  double revenue_usd = 0;
  double gpu_cost_usd = 0;
  double fixed_cost_usd = 0;
  double profit_usd = 0;
  std::optional<double> gross_margin;
  econ::TokenCounts tokens;
  double requests_offered = 0;
  double requests_completed = 0;
  double requests_failed = 0;
  double slo_attainment = 1;
  double reputation = 1;
  double gpu_hours_rented = 0;
  double gpu_hours_serving = 0;
  // The share of rented GPU-hours that served (0 with none rented).
  double serving_share() const { return gpu_hours_rented > 0 ? gpu_hours_serving / gpu_hours_rented : 0.0; }
  int spot_interruptions = 0;
  bool bankrupt = false;
  std::optional<std::int64_t> bankrupt_at_hour;
  std::vector<GoalResult> goals;
  Score score;
  std::optional<Counterfactuals> counterfactuals;
  std::vector<GapItem> gap_to_reference;  // with a reference run
  std::string reference_comparison;       // the debrief's sentence (counterfactual.h), with a reference run
  std::vector<std::string> what_to_try;   // from the scores and the gap (counterfactual.h)
  // The answer key (the reference's description, the gap to it, what to try next) was taken out:
  // a student's debrief in a class before its deadline (classroom/answer_key.h).
  bool answer_key_hidden = false;
  std::map<std::string, double> revenue_by_model_usd;
  std::map<std::string, double> gpu_cost_by_contract_usd;
  std::int64_t windows_simulated = 0;
  std::int64_t window_cache_hits = 0;
};

// `counterfactuals` (run_counterfactuals on the finished game) complete the score and add the
// comparison; without them the score's profit component is unknown. `stopped_at_hour`: the hour a
// game handed in unfinished had reached (ScoreInputs::stopped_at_hour): its score, the gap to the
// reference and the comparison are the replay run to the end (× the share played, for the score);
// its money, service and hours are `at_stop`'s, the game's state at that hour, when given (the
// hours after it, played by nobody, are no one's profit: classroom::state_at_stop).
GameSummary summarize(const Game& game, const Counterfactuals* counterfactuals = nullptr,
                      std::optional<std::int64_t> stopped_at_hour = std::nullopt, const GameState* at_stop = nullptr);
// What the score needs beyond the state: the counterfactual profits (a scenario without a
// reference strategy is measured against its profit goal) and the advisor calls once finished.
ScoreInputs score_inputs(const Game& game, const Counterfactuals* counterfactuals,
                         std::optional<std::int64_t> stopped_at_hour = std::nullopt);
// The summary as JSON; `wall_time_s` is added by the caller (it is not deterministic).
nlohmann::json to_json(const GameSummary& s);

// hour,<series names...> — one row per simulated hour.
std::string history_csv(const GameState& state);
// hour,deployment_id,... — one row per deployment-hour.
std::string deployments_csv(const GameState& state);

}  // namespace tycoon::game
