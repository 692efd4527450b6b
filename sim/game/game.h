// The game loop: a scenario, its state, and the hour-by-hour simulation. Only the loop advances
// time; front ends push Command values and read `const GameState&`.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/data/catalog.h"
#include "sim/game/advice.h"
#include "sim/game/command.h"
#include "sim/game/fleet.h"
#include "sim/game/scenario.h"
#include "sim/game/serving_window.h"
#include "sim/game/state.h"
#include "sim/perf/calibration_profile.h"

namespace tycoon::game {

struct GameOptions {
  std::optional<std::uint64_t> seed;  // overrides the scenario's seed
  std::optional<int> days;            // overrides the scenario's length
  std::optional<int> history_days;    // overrides the scenario's history_days
  // Sample-window runner and cache; games of the same scenario may share one. Default: a fresh
  // one on the serving simulator.
  std::shared_ptr<ServingWindows> windows;
};

// The days before hour 0 of `scenario` (Scenario::history_days of them; empty for none): the
// scenario's world played with its starting company, prices and market and no player — no
// commands, no scheduled events, hints or tutorial — on a demand stream of its own (the seed
// derived from the scenario's for "history", so the past is not a copy of the days to come). A
// pure function of the scenario and its seed. The past company cannot go bankrupt (the chart shows
// its trade, not its survival); its cash is shifted to end at the starting cash, so the line
// joins hour 0.
PastHistory make_past(const Scenario& scenario, const data::Catalog& catalog,
                      std::shared_ptr<ServingWindows> windows = nullptr);

class Game {
 public:
  // A new game at hour 0: the scenario's starting fleet, deployments and prices in place.
  // Throws data::LoadError when the scenario's start cannot be set up (naming /start/...).
  Game(Scenario scenario, const data::Catalog& catalog, GameOptions options = {});
  // A saved game, resumed (see save.h).
  Game(Scenario scenario, GameState state, const data::Catalog& catalog, GameOptions options = {});

  const Scenario& scenario() const { return scenario_; }
  const GameState& state() const { return state_; }
  bool finished() const { return state_.finished; }
  const ServingWindows& windows() const { return *windows_; }
  const data::Catalog& catalog() const { return *catalog_; }

  // Applies a command at the current hour boundary and logs it. Refusals (locked lever, not
  // enough GPUs, does not fit, ...) change nothing but are logged too, so replays match.
  CommandResult apply(const Command& command);
  // Simulates one game hour.
  void step();
  // Simulates up to `hours` hours (fewer if the game ends).
  void advance(std::int64_t hours);
  void run_to_end();

  void set_advisor(std::shared_ptr<Advisor> advisor) { advisor_ = std::move(advisor); }
  const Advisor* advisor() const { return advisor_.get(); }
  // The advisor's debrief with the truth of every proposal, only once the game has finished
  // (null before, and without an advisor): hidden truths never reach a client during play.
  nlohmann::json revealed_debrief() const;
  // The player's calls against the advisor's truth for the score, only once finished (nothing to
  // judge without an advisor).
  std::optional<AdviceJudgement> revealed_judgement() const;

  // A deep copy (state, serving-window cache and advisor included) to run an hour or a command on
  // first, against a SimulationTape (sim/game/sim_tape.h): the copy and the original make the same
  // simulate() calls in the same order.
  std::unique_ptr<Game> fork() const;

 private:
  friend struct CommandApplier;
  Game(const Game&) = default;

  void apply_due_events();
  void step_hour();
  // Moves past every tutorial step now done and announces the next (an alarm: the clock stops).
  void update_tutorial();
  void announce_tutorial_step();
  void news(std::string text);
  void alarm(AlarmKind kind, std::string text);
  // Alarms after the hour `h` just simulated: SLO or reputation falling through a threshold,
  // cash running out; `prev` is the history row before it (null at the first hour).
  void raise_alarms(std::int64_t h, const std::array<double, kNumSeries>& row, const double* prev_slo,
                    const double* prev_reputation);
  // "after you accepted Chien-1 (title) at hour 40": the player's latest change within `hours`.
  std::string recent_cause(std::int64_t hours) const;
  const perf::CalibrationProfile& calibration(const std::string& chip);
  double acceptance_for(const DeploymentState& d) const;
  // What an average request of `seg` costs at `prices` with `cached_share` of its input cached.
  double segment_price_usd(const SegmentSpec& seg, const econ::TokenPrices& prices, double cached_share) const;

  Scenario scenario_;
  const data::Catalog* catalog_;
  GameState state_;
  std::shared_ptr<ServingWindows> windows_;
  std::shared_ptr<Advisor> advisor_;
  std::map<std::string, perf::CalibrationProfile> calibrations_;
};

// Whether the tutorial's current step waits for a player action: front ends do not run the clock
// while it does (the game itself can still be stepped: a headless run just never completes it).
bool tutorial_holds_clock(const Scenario& scenario, const GameState& state);

// A command of a replayed log that the game refused (its index in the log, and why).
struct RefusedCommand {
  std::size_t index = 0;
  std::int64_t at_hour = 0;
  std::string message;
};

// Mean tokens per target forward of `d`'s recipe on its segment's traffic (the segment's
// acceptance curve, else the catalog recipe's acceptance capped at draft tokens + 1).
double acceptance_for(const data::Catalog& catalog, const Scenario& scenario, const DeploymentState& d);

// Plays `log` from the game's current hour: before each command the clock advances to its hour;
// then the game runs to its end. Returns every command not applied, with the reason: those the
// game refused (logged, changing nothing, as when a player's command is refused), those after
// the game's end, and — resuming a save — those before its hour (already played).
std::vector<RefusedCommand> replay(Game& game, const std::vector<LoggedCommand>& log);

}  // namespace tycoon::game
