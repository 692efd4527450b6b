#include "sim/game/sim_tape.h"

#include "sim/game/game.h"

#include <cstdio>
#include <limits>
#include <stdexcept>

namespace tycoon::game {

serving::ServingSummary SimulationTape::simulate(const serving::ServingConfig& config,
                                                 const perf::CalibrationProfile& calibration) {
  std::string f = simulation_fingerprint(config, calibration);
  if (next_ < entries_.size()) {
    const Entry& e = entries_[next_++];
    if (e.fingerprint != f) {
      throw std::logic_error("the simulation tape diverged at call " + std::to_string(next_) +
                             ": the game asked for another simulation than when it was recorded");
    }
    if (e.error) std::rethrow_exception(e.error);
    return e.summary;
  }
  auto job = std::make_shared<serving::SlicedSimulation>(config, calibration);
  if (!compute_on_miss_) throw TapeMiss{std::move(job), std::move(f)};
  while (!job->advance(std::numeric_limits<std::int64_t>::max())) {
  }
  append(f, *job);
  ++next_;
  return job->result();
}

void SimulationTape::append(const std::string& fingerprint, const serving::SlicedSimulation& job) {
  if (!job.done()) throw std::logic_error("SimulationTape::append: the simulation has not finished");
  Entry e;
  e.fingerprint = fingerprint;
  e.error = job.error();
  if (!e.error) e.summary = job.result();
  entries_.push_back(std::move(e));
}

TapedWork::TapedWork() = default;

bool TapedWork::prepare(const Game& game, const std::string& work_id, const Work& work, std::int64_t max_events) {
  if (work_id != work_id_) {
    done();
    work_id_ = work_id;
  }
  if (job_) {
    if (!job_->advance(max_events)) return false;
    tape_.append(job_fingerprint_, *job_);
    job_.reset();
    ++simulations_sliced_;
  }
  auto fork = game.fork();
  tape_.rewind();
  tape_.set_compute_on_miss(false);
  ++forks_;
  try {
    serving::ScopedSimulateInterceptor guard(&tape_);
    work(*fork);
  } catch (TapeMiss& miss) {
    job_ = std::move(miss.job);
    job_fingerprint_ = std::move(miss.fingerprint);
    return false;
  } catch (const std::exception&) {
    // The real run meets the same error and reports it.
  }
  return true;
}

SimulationTape& TapedWork::tape() {
  tape_.rewind();
  tape_.set_compute_on_miss(true);
  return tape_;
}

void TapedWork::done() {
  work_id_.clear();
  tape_.clear();
  tape_.set_compute_on_miss(false);
  job_.reset();
}

}  // namespace tycoon::game
