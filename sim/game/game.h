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
#include "sim/game/plan.h"
#include "sim/game/scenario.h"
#include "sim/game/serving_window.h"
#include "sim/game/state.h"
#include "sim/perf/calibration_profile.h"
#include "sim/perf/profile_lookup.h"

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

// Sets `scenario` to last `days` game days (days > 0): Scenario::days, and the reference
// strategy's commands at or past the new end hour dropped (kept, they would never run and would
// make the game's save unloadable: the scenario loader refuses them), and goals on what a game
// accumulates (profit, output tokens, cash above the start) scaled by days / Scenario::days. The
// one rule for a game's length chosen at the start (GameOptions::days) and for a resumed save
// (set_days in save.h).
void set_days(Scenario& scenario, int days);

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

  // Attaches `advisor`; none on a level that does not allow one (Scenario::advisor_allowed).
  void set_advisor(std::shared_ptr<Advisor> advisor) {
    advisor_ = scenario_.advisor_allowed() ? std::move(advisor) : nullptr;
  }
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

  // The hour's phases, in the order step_hour runs them (see game.cpp).
  using SpotReclaims = std::map<std::int64_t, double>;  // contract id -> share of the hour served first
  // What one segment served this hour (requests; for multi-turn workloads a request is a turn).
  struct SegmentHour {
    double requests_offered = 0, requests_completed = 0, requests_within_slo = 0;
    econ::TokenCounts tokens;
  };
  // The hour's totals over all segments, and its costs.
  struct HourTotals {
    double revenue_usd = 0, gpu_cost_usd = 0, fixed_cost_usd = 0;
    double requests_offered = 0, requests_completed = 0, requests_failed = 0, requests_within_slo = 0;
    econ::TokenCounts tokens;
    int gpus_rented = 0, gpus_serving = 0;
  };
  // One deployment's hour: its window results, requests within the SLO, replicas lost to spot.
  struct DeploymentServed {
    HourServing out;
    double in_slo = 0;
    int replicas_lost = 0;
  };
  void step_hour();
  void end_reserved_terms(std::int64_t h);
  // GPUs to deployments for hour `h`; sets each deployment's active replicas.
  std::vector<DeploymentAllocation> assign_replicas(std::int64_t h);
  SpotReclaims draw_spot_interruptions(std::int64_t h);
  // Requests per second segment `si` offers this hour (price, reputation, events, noise).
  double segment_demand_per_s(std::size_t si, std::int64_t h);
  void serve_segment(std::size_t si, std::int64_t h, const std::vector<DeploymentAllocation>& allocation,
                     const SpotReclaims& interrupted, HourTotals& totals);
  DeploymentServed serve_deployment(const SegmentSpec& seg, const DeploymentState& d, const DeploymentAllocation& alloc,
                                    double d_rate, const SpotReclaims& interrupted, std::int64_t h);
  // Replaces the served hour by the part before a spot reclaim plus the rest on fewer replicas;
  // returns the replicas lost (0: nothing reclaimed, `served` unchanged).
  int serve_spot_reclaim(WindowSpec& spec, const SegmentSpec& seg, const DeploymentState& d,
                         const DeploymentAllocation& alloc, const SpotReclaims& interrupted, std::int64_t h,
                         DeploymentServed& served);
  // Revenue, ledger, totals and the per-deployment record of one served deployment.
  void book_deployment_hour(const DeploymentState& d, const DeploymentAllocation& alloc, double d_rate,
                            const DeploymentServed& served, const econ::TokenPrices& prices, std::int64_t h,
                            SegmentHour& sh, HourTotals& totals);
  // Rent (a reclaimed spot contract pays for the part of the hour it ran), reclaimed contracts
  // removed, the fixed cost; cash updated.
  void pay_costs(std::int64_t h, const SpotReclaims& interrupted, HourTotals& totals);
  // Service counters, the history row and its alarms.
  void record_hour(std::int64_t h, const HourTotals& totals);
  // Advances the clock; true when the game ended (bankrupt, or the scenario's last hour).
  bool close_hour();
  void apply_due_events();
  void announce_ready_checks();
  void advisor_tick();
  // Whether an SLO alarm for hour `h` (attainment `slo`) may sound again (hysteresis).
  bool slo_alarm_rearmed(std::int64_t h, double slo) const;
  // Moves past every tutorial step now done and announces the next (an alarm: the clock stops).
  void update_tutorial();
  void announce_tutorial_step();
  void news(std::string text, NewsTone tone = NewsTone::kInfo);
  void alarm(AlarmKind kind, std::string text);
  // Alarms after the hour `h` just simulated: SLO or reputation falling through a threshold,
  // cash running out; `prev` is the history row before it (null at the first hour).
  void raise_alarms(std::int64_t h, const std::array<double, kNumSeries>& row, const double* prev_slo,
                    const double* prev_reputation);
  // "after you accepted Chien-1 (title) at hour 40": the player's latest change within `hours`.
  // `advice_id`: set to the proposal when the cause is an accepted one (the alarm offers to undo it).
  std::string recent_cause(std::int64_t hours, std::optional<std::string>* advice_id = nullptr) const;
  const perf::CalibrationProfile& calibration(const std::string& chip);
  double acceptance_for(const DeploymentState& d) const;

  Scenario scenario_;
  const data::Catalog* catalog_;
  GameState state_;
  perf::CalibrationCache calibrations_;  // the chips' calibrations, each read once
  std::shared_ptr<ServingWindows> windows_;
  std::shared_ptr<Advisor> advisor_;
};

// Whether the tutorial's current step waits for a player action. This is the rule for a clock run
// for a person: the real-time runners (desktop and browser) add no hours while it holds. The game
// itself never refuses Advance for it: the runs the debrief compares with (doing nothing, the
// reference strategy), replays of a command log and scripted players must reach the end, and a
// headless run that skips a step simply never completes it.
bool tutorial_holds_clock(const Scenario& scenario, const GameState& state);

// A command of a replayed log that the game refused (its index in the log, and why).
struct RefusedCommand {
  std::size_t index = 0;
  std::int64_t at_hour = 0;
  std::string message;
};

// The share of deployment `deployment_id`'s answers that are wrong: its accepted, not reverted,
// changes whose outputs drift (their hidden reputation hit each), combined. While it is above
// zero, the segment's reputation tracks its SLO attainment times the share answered right.
double live_quality_drift(const GameState& s, std::int64_t deployment_id);

// The market's list price of `model` now: the scenario's reference price times the competitors'
// moves so far (zero prices for a model the scenario gives none).
econ::TokenPrices market_prices_now(const Scenario& scenario, const GameState& state, const std::string& model);

// What customers of segment `segment_index` compare, per average request (USD): their bill at
// `prices` with the share of input billed as cached last hour, and the market's list price (the
// scenario's reference, times competitors' moves) for the traffic they expect (the scenario's
// cached share). Game::step's demand and the pricing panel's curve both use it.
struct RequestPrices {
  double price_usd = 0;
  double reference_usd = 0;
};
RequestPrices request_prices(const Scenario& scenario, const GameState& state, std::size_t segment_index,
                             const econ::TokenPrices& prices);

// Plays `log` from the game's current hour: before each command the clock advances to its hour;
// then the game runs to its end. Returns every command not applied, with the reason: those the
// game refused (logged, changing nothing, as when a player's command is refused), those after
// the game's end, and — resuming a save — those before its hour (already played).
// `next`: the index of the first command to play (the rest of a log `replay_until` began).
std::vector<RefusedCommand> replay(Game& game, const std::vector<LoggedCommand>& log, std::size_t next = 0);

// Plays `log` from index `next` up to (not including) game hour `hour`: the commands before that
// hour, as `replay` applies them, then the clock to `hour` (or the game's end). `next` moves past
// the commands played, so that a game saved at `hour`, loaded and continued with `replay_until`
// or `replay` from the same `next` plays the log exactly as one uninterrupted replay (the
// refusals of the parts together are the uninterrupted replay's).
std::vector<RefusedCommand> replay_until(Game& game, const std::vector<LoggedCommand>& log, std::size_t& next,
                                         std::int64_t hour);

}  // namespace tycoon::game
