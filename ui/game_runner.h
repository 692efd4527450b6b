// Drives a Game for a front end without ever blocking a frame on the simulation.
//
// The game (and its serving windows) lives on a worker thread when `threaded`: the UI submits
// Command values, sets a speed, and each frame reads the newest published snapshot of the state
// (an immutable copy made after every simulated hour). Without threads (the browser build) the
// same interface works inside tick() within a frame budget: each hour or command first runs on a
// fork of the game against a SimulationTape (sim/game/sim_tape.h); a simulation it needs runs in
// slices of events across frames; once the fork gets through, the real game runs the hour on the
// tape. No frame waits for a whole simulation, and the game reaches the same states (the advisor
// posts the same advice at the same hour) as a blocking run: the clock waits for the work instead.
//
// Commands apply at the next hour boundary, in the order submitted; `Advance{n}` is not applied
// as a command but queues n hours for the stepper, so time moves an hour at a time and every
// hour is published.
#pragma once

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <variant>
#include <vector>

#include "sim/game/counterfactual.h"
#include "sim/game/game.h"
#include "sim/game/sim_tape.h"
#include "sim/game/summary.h"

namespace tycoon::ui {

enum class Speed { kPaused, k1x, k4x, k16x };
inline constexpr std::array<std::string_view, 4> kSpeedNames = {"paused", "1x", "4x", "16x"};
// Game hours per wall second at each speed.
double hours_per_second(Speed s);

// What became of a submitted command (or a save).
struct CommandOutcome {
  std::int64_t at_hour = 0;
  std::string what;  // command name, or "save"
  game::CommandResult result;
};

// Timing of the simulation itself, for --frame-stats.
struct RunnerStats {
  std::int64_t hours_simulated = 0;
  std::int64_t simulations_sliced = 0;  // non-threaded: simulations run across frames
  std::int64_t forks = 0;               // non-threaded: hours and commands tried on a fork
  double tick_ms_max = 0;               // non-threaded: the longest tick() (simulation work in a frame)
  std::string tick_max_what;            // non-threaded: what that tick did, and where its time went
  double step_ms_last = 0;
  double step_ms_max = 0;
  double step_ms_total = 0;
  std::vector<double> step_ms;  // every step, in order
};

class GameRunner {
 public:
  // `frame_budget_ms`: without threads, the simulation work tick() may do in one frame.
  GameRunner(std::unique_ptr<game::Game> game, bool threaded, double frame_budget_ms = 20);
  ~GameRunner();
  GameRunner(const GameRunner&) = delete;
  GameRunner& operator=(const GameRunner&) = delete;

  // Fixed for the runner's life; safe to read from the UI thread.
  const game::Scenario& scenario() const { return scenario_; }
  // The advisor attached to the game (null: none). Set before the runner starts and never changed,
  // so the UI thread may read its settings (not call its checks: those run on the game's thread).
  const game::Advisor* advisor() const { return advisor_; }
  // The newest published state (never null).
  std::shared_ptr<const game::GameState> snapshot() const;

  void submit(game::Command c);
  // Saves the game as it stands after the commands submitted before; the outcome is reported.
  void request_save(std::filesystem::path path);
  void set_speed(Speed s);
  Speed speed() const { return speed_; }

  // Once per frame with the frame's wall time: turns the speed into hours for the stepper.
  void tick(double dt_s);

  std::vector<CommandOutcome> take_outcomes();
  // The advisor's debrief with each proposal's truth, once the game has finished (else null).
  std::shared_ptr<const nlohmann::json> revealed_debrief() const;
  // Once the game has finished and its counterfactual runs (doing nothing, the reference strategy:
  // sim/game/counterfactual.h) have been played on the same seed: the final summary with the
  // complete score and the comparison (else null). Threaded: the worker plays them; without
  // threads: tick() plays them in slices, like game hours.
  std::shared_ptr<const game::GameSummary> final_summary() const;
  // Hours queued or running, or commands not yet applied.
  bool busy() const;
  RunnerStats stats() const;
  // Blocks until the worker is idle (tests and shutdown only, never from draw code).
  void wait_idle();

 private:
  struct SaveRequest {
    std::filesystem::path path;
  };
  using Task = std::variant<game::Command, SaveRequest>;

  void worker_loop();
  // Runs one task or one hour; returns false when there was nothing to do. Called with the lock
  // released; takes it to pick work and to publish.
  bool run_one();
  // Non-threaded: works within the frame budget (forks, slices, at most one real hour).
  void tick_sliced();
  void publish_locked(std::shared_ptr<const game::GameState> s);
  // Plays the counterfactual runs once the game has finished: blocking (`deadline` null), or in
  // taped slices until the deadline. Returns true when the final summary is published.
  bool play_counterfactuals(const std::chrono::steady_clock::time_point* deadline);

  std::unique_ptr<game::Game> game_;
  const game::Scenario scenario_;
  const game::Advisor* advisor_ = nullptr;
  const bool threaded_;
  const double frame_budget_ms_;
  // Non-threaded only: the tape of the hour or command being prepared, and the simulation it
  // waits for.
  std::unique_ptr<game::TapedWork> taped_;
  // The counterfactual runs being played (worker or tick only) and their tapes (non-threaded).
  std::vector<game::ScriptedPlay> plays_;
  std::vector<std::unique_ptr<game::TapedWork>> play_tapes_;
  bool plays_started_ = false;

  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::condition_variable idle_cv_;
  std::deque<Task> tasks_;
  int hours_due_ = 0;  // hours the stepper owes
  bool working_ = false;
  bool stop_ = false;
  std::shared_ptr<const game::GameState> snapshot_;
  std::shared_ptr<const nlohmann::json> revealed_;
  std::shared_ptr<const game::GameSummary> final_;
  std::vector<CommandOutcome> outcomes_;
  RunnerStats stats_;
  bool finished_ = false;

  Speed speed_ = Speed::kPaused;
  double owed_hours_ = 0;  // UI thread only: fractional hours earned by the clock
  std::thread worker_;
};

}  // namespace tycoon::ui
