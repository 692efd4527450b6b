// Restartable game hours, for front ends that must never block a frame on the simulation (the
// browser build is single-threaded).
//
// Everything slow in a game hour is a serving simulation: the hour's serving windows, the
// advisor's profile, recipe search and the truth of its claims, a check's benchmark. The logic
// between them is cheap. So a front end runs the hour (or a command) on a fork of the game
// (Game::fork) with a SimulationTape installed: each simulate() call is answered from the tape in
// call order, and the first call the tape cannot answer stops the fork with a TapeMiss carrying
// that simulation, ready to run in slices (serving::SlicedSimulation). The front end spreads it
// over frames, appends its result to the tape and forks again. Once a fork gets through, the real
// game runs the same hour against the same tape: the hour is a deterministic function of the
// state and of the results, so it makes the same calls in the same order and every one is
// answered — the hour, its news and its advice are the bytes a blocking run produces, posted at
// the same game hour. Each call's configuration is fingerprinted and checked on replay, so a
// divergence is a loud logic_error, never a silently wrong result.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/serving/deployment_plan.h"
#include "sim/serving/serving_sim.h"

namespace tycoon::game {

// Thrown through the game by SimulationTape when a call is not on the tape. Deliberately not a
// std::exception: no `catch (const std::exception&)` in the game or the advisor may swallow it.
struct TapeMiss {
  std::shared_ptr<serving::SlicedSimulation> job;  // the missing simulation, not yet run
  std::string fingerprint;
};

// Identifies a simulate() call by every input that can change its result: the deployment plan's
// identity (sim/serving/deployment_plan.h).
using serving::simulation_fingerprint;

class SimulationTape final : public serving::SimulateInterceptor {
 public:
  // The next recorded result (or rethrows the recorded error); throws TapeMiss past the end.
  serving::ServingSummary simulate(const serving::ServingConfig& config,
                                   const perf::CalibrationProfile& calibration) override;
  // Records a finished job as the answer to the next call.
  void append(const std::string& fingerprint, const serving::SlicedSimulation& job);
  void rewind() { next_ = 0; }
  // Past the end: compute the call in place (blocking) instead of throwing TapeMiss. For the real
  // run after a fork got through, where a miss would mean the fork diverged (a bug): the result
  // stays right, only the frame is slow.
  void set_compute_on_miss(bool on) { compute_on_miss_ = on; }
  void clear() {
    entries_.clear();
    next_ = 0;
  }
  std::size_t size() const { return entries_.size(); }
  std::size_t consumed() const { return next_; }

 private:
  struct Entry {
    std::string fingerprint;
    serving::ServingSummary summary;
    std::exception_ptr error;
  };
  std::vector<Entry> entries_;
  std::size_t next_ = 0;
  bool compute_on_miss_ = false;
};

class Game;

// The protocol above, one slice at a time. A front end calls prepare() until it returns true
// (each call forks the game or advances the missing simulation by at most `max_events` events),
// then runs the work on the real game inside `ScopedSimulateInterceptor guard(&tape())`, then
// calls done().
class TapedWork {
 public:
  using Work = std::function<void(Game&)>;
  TapedWork();
  // True when a fork ran `work` through with every simulation answered from the tape. `work_id`
  // names the work (the hour, or the command and the hour): a different one starts a new tape.
  bool prepare(const Game& game, const std::string& work_id, const Work& work, std::int64_t max_events);
  // The tape, rewound and set to compute (blocking) on a miss, for the real run.
  SimulationTape& tape();
  void done();
  std::int64_t simulations_sliced() const { return simulations_sliced_; }
  std::int64_t forks() const { return forks_; }

 private:
  SimulationTape tape_;
  std::shared_ptr<serving::SlicedSimulation> job_;
  std::string job_fingerprint_;
  std::string work_id_;
  std::int64_t simulations_sliced_ = 0;
  std::int64_t forks_ = 0;
};

}  // namespace tycoon::game
