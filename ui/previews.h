// What-if previews: serving simulations the UI asks for (deployment previews, traffic, profiler,
// Pareto sweeps), run off the frame and cached by the identity of the run. Derived view data, not game state:
// dropping the cache only costs recomputation. Threaded: a worker thread runs them. Without
// threads (the browser): run_pending() runs them in slices of events within a frame budget; a job
// starts only once its key has been asked for during `kDebounce` (a form being edited asks for a
// new key every change), and a queued or running job that no frame asked for lately is dropped
// (the form moved on).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "sim/data/catalog.h"
#include "sim/perf/calibration_profile.h"
#include "sim/perf/profile_lookup.h"
#include "sim/serving/deployment_plan.h"
#include "sim/serving/serving_sim.h"

namespace tycoon::ui {

// One simulation to run: a deployment plan (which keeps a sped-up chip alive) and the run.
struct ServingJob {
  serving::DeploymentPlan plan;
  serving::ServingConfig config;  // plan.config with the run's workload, arrivals and span
  const perf::CalibrationProfile& calibration() const { return plan.calibration; }
};

struct PreviewResult {
  std::optional<serving::ServingSummary> summary;
  std::string error;  // the simulator refused or failed
  double wall_ms = 0;
};

class Previews {
 public:
  // Without `threaded`, jobs run in run_pending() (one per call).
  explicit Previews(const data::Catalog& catalog, bool threaded);
  ~Previews();
  Previews(const Previews&) = delete;
  Previews& operator=(const Previews&) = delete;

  // The result of the simulation `make()` describes when done, else queues it (once) and returns
  // null; a `make` that throws gives its reason as the result's error. Results are keyed by the
  // plan's identity of the run (serving::DeploymentPlan::identity), so two panels asking for the
  // same simulation share it. Newer requests run first: the panel on screen is served before
  // older ones.
  std::shared_ptr<const PreviewResult> get(const std::function<ServingJob()>& make);
  std::size_t pending() const;
  // Non-threaded mode: works on the queued jobs for at most `budget_ms` of wall time.
  void run_pending(double budget_ms = 8);
  // Blocks until no job is queued or running (tests only).
  void wait_idle();

  // A chip's calibration profile, loaded once (UI thread).
  const perf::CalibrationProfile& calibration(const std::string& chip);

 private:
  void worker_loop();
  bool run_one();
  void store_current();  // the finished sliced job's result into done_

  const bool threaded_;
  perf::CalibrationCache calibrations_;

  mutable std::mutex mutex_;
  std::condition_variable cv_, idle_cv_;
  std::deque<std::pair<std::string, ServingJob>> queue_;
  std::map<std::string, std::shared_ptr<const PreviewResult>> done_;
  std::map<std::string, bool> queued_;
  // Non-threaded: when each key was first and last asked for, and the job in slices.
  struct Wanted {
    std::chrono::steady_clock::time_point first, last;
  };
  std::map<std::string, Wanted> wanted_;
  std::string current_key_;
  std::unique_ptr<serving::SlicedSimulation> current_;
  std::chrono::steady_clock::time_point current_started_;
  bool running_ = false;
  bool stop_ = false;
  std::thread worker_;
};

}  // namespace tycoon::ui
