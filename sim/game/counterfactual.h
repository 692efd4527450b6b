// Counterfactual runs for the debrief and the score: the same scenario, seed and length as the
// player's game (so the same customers arrive: common random numbers), played "doing nothing"
// and by the level's reference strategy (Scenario::reference_strategy), without an advisor. The
// player's result is then read against both, and the gap to the reference is split into where the
// money went: pricing, customers served, idle GPU-hours, other GPU spend, the advisor's checks.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/data/catalog.h"
#include "sim/game/game.h"
#include "sim/game/scoring.h"

namespace tycoon::game {

// Applies every command of `commands` logged for the game's current hour (the first step also
// applies any logged before it), then simulates the hour. A pure function of the game's hour, so
// it may run on a fork first (sim/game/sim_tape.h). Refused commands are logged by the game, as
// a player's would be; returns how many were refused.
// `take_good_advice`: then decides every pending proposal by its truth first (accepts the good
// ones that are not minor, rejects the rest), as the advised reference does.
std::size_t step_scripted(Game& game, const std::vector<LoggedCommand>& commands, bool take_good_advice = false);

// The figures of a finished (or running) game that the comparison needs.
struct OutcomeFigures {
  double profit_usd = 0;
  double revenue_usd = 0;
  double gpu_cost_usd = 0;
  double fixed_cost_usd = 0;
  double output_tokens = 0;
  double requests_offered = 0;
  double requests_completed = 0;
  double slo_attainment = 1;
  double gpu_hours_rented = 0;
  double gpu_hours_serving = 0;
  double checks_usd = 0;  // paid for checks of advice (benchmarks are in the GPU bill, the rest in fixed costs)
  double benchmark_checks_usd = 0;
  bool bankrupt = false;
  double idle_gpu_hours() const {
    return gpu_hours_rented > gpu_hours_serving ? gpu_hours_rented - gpu_hours_serving : 0;
  }
  // Revenue per million output tokens: the price customers paid per answer (their input included).
  double revenue_per_output_mtok() const { return output_tokens > 0 ? revenue_usd / output_tokens * 1e6 : 0; }
  double gpu_usd_per_hour() const { return gpu_hours_rented > 0 ? gpu_cost_usd / gpu_hours_rented : 0; }
};
OutcomeFigures figures_of(const GameState& state);

struct CounterfactualRun {
  std::string id;  // "do_nothing" | "reference"
  std::string name;
  std::string description;
  OutcomeFigures figures;
  std::size_t commands_refused = 0;
  // The run's own score by the game's rules (its profit measured against both runs, as the
  // player's is): what the debrief compares the player with. Set by collect.
  std::optional<Score> score;
};

// One line of the gap between the player and the reference: positive `usd` is profit the player
// left on the table there, negative is where the player did better.
struct GapItem {
  std::string id;  // pricing | customers_served | idle_gpu_hours | gpu_spend | checks | fixed_costs
  std::string name;
  double usd = 0;
  std::string detail;
};

// Two profits closer than half a dollar are the same (shown to the dollar): the debrief's
// sentence and its gap rows use this one cut.
inline constexpr double kSameProfitUsd = 0.5;
// +1: `more_usd` is more than the same profit, −1: less, 0: the same.
inline int profit_difference_sign(double more_usd) {
  return more_usd >= kSameProfitUsd ? 1 : more_usd <= -kSameProfitUsd ? -1 : 0;
}

struct Counterfactuals {
  CounterfactualRun do_nothing;
  std::optional<CounterfactualRun> reference;  // absent when the scenario has none
};

// A counterfactual game being played, one hour at a time (front ends step it in slices).
struct ScriptedPlay {
  std::string id, name, description;
  std::unique_ptr<Game> game;
  std::vector<LoggedCommand> commands;
  std::size_t refused = 0;
  bool take_good_advice = false;  // the advised reference (counterfactual_plays)
  void step() { refused += step_scripted(*game, commands, take_good_advice); }
  CounterfactualRun result() const;
};

// The games to play for `scenario` at `state`'s seed and length: do nothing, then the reference.
// With `advisor` (the player's game has one), the reference plays with a copy of it and takes
// advice as a player who knew the truth would: every good proposal (ProposalRecord::good, not a
// minor one) accepted the hour it is posted, every other one rejected. The reference then holds
// what good advice was worth, and a player who rejects everything falls short of it.
std::vector<ScriptedPlay> counterfactual_plays(const Scenario& scenario, const GameState& state,
                                               const data::Catalog& catalog,
                                               std::shared_ptr<ServingWindows> windows = nullptr,
                                               const Advisor* advisor = nullptr);
// Collects finished plays (in counterfactual_plays' order), each scored (CounterfactualRun::score).
Counterfactuals collect(const std::vector<ScriptedPlay>& plays);
// Plays both to the end (blocking).
Counterfactuals run_counterfactuals(const Scenario& scenario, const GameState& state, const data::Catalog& catalog,
                                    std::shared_ptr<ServingWindows> windows = nullptr,
                                    const Advisor* advisor = nullptr);
// A headless run's comparison runs (tycoon run, the browser's tycoon_run): played once the game
// has finished and when `wanted`; none for a game stopped before its end (nothing to compare).
std::optional<Counterfactuals> end_of_run_counterfactuals(const Game& game, const data::Catalog& catalog,
                                                          bool wanted = true);

// The gap to `reference`, itemized so the items add up to reference profit − player profit:
//   pricing           (reference's revenue per output Mtok − yours) × your output tokens
//   customers_served  reference's revenue per output Mtok × (its output tokens − yours)
//   idle_gpu_hours    (your idle GPU-hours − its) × your GPU cost per hour
//   gpu_spend         the rest of the GPU bill (more GPU-hours in use, dearer contracts), checks out
//   checks            what you paid to check the advisor's proposals
//   fixed_costs       the rest of the fixed costs
std::vector<GapItem> explain_gap(const OutcomeFigures& you, const OutcomeFigures& reference);

// The debrief's comparison with the reference, in one sentence, by the score (what the standings
// rank by), with the profit beside it: "The reference scored 88.1 points to your 66.0: you
// earned $143 more, but it scored 23.1 more on service; yours: SLO attainment 51.9% (...)".
// Without both scores final it compares profits.
std::string reference_comparison(const Score& you, double your_profit_usd, const CounterfactualRun& reference);

// What to try next: a sentence for matching or beating the reference's score; where the
// reference scored more but earned no more, one for the part of the score it won most; else one
// sentence per gap item that cost more than a small share of the reference's profit, largest
// first (at most three).
std::vector<std::string> what_to_try(const std::vector<GapItem>& gap, const Score& you,
                                     const CounterfactualRun& reference);

nlohmann::json to_json(const OutcomeFigures& f);
nlohmann::json to_json(const Counterfactuals& c);
nlohmann::json to_json(const GapItem& g);

}  // namespace tycoon::game
