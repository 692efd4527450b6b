// Running a sweep's points: each an independent, deterministic serving simulation, spread over a
// pool of worker threads. Results land by point index, so their order never depends on the
// number of workers or on which finishes first.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/analysis/point_result.h"
#include "sim/analysis/sweep_spec.h"
#include "sim/data/catalog.h"

namespace tycoon::analysis {

// One calibration profile per chip of the sweep (loaded once, shared read-only by the workers).
using CalibrationSet = std::map<std::string, perf::CalibrationProfile, std::less<>>;
CalibrationSet calibrations_for(const ExpandedSweep& sweep, const data::Catalog& catalog);

// What a point's figures depend on beyond its resolved inputs (which its hash keys): the build that
// simulated it (core::version_line) and the calibration curves of every chip the sweep uses (a
// hash of their values; the sources' wording left out). Journaled points of another fingerprint
// are not resumed into a sweep, nor shards of different ones merged: they would mix two models.
struct SweepFingerprint {
  std::string build;
  std::string calibration;  // 16 hex digits
  nlohmann::json to_json() const { return {{"build", build}, {"calibration", calibration}}; }
  bool operator==(const SweepFingerprint&) const = default;
  // "build X, calibration Y"
  std::string describe() const { return "build " + build + ", calibration " + calibration; }
};
SweepFingerprint sweep_fingerprint(const CalibrationSet& calibrations);
// The fingerprint a sweep.json, part or journal recorded; nullopt when it records none (written
// before fingerprints, resumed as before) or when it is malformed.
std::optional<SweepFingerprint> recorded_fingerprint(const nlohmann::json& j);

// Simulates one point. A point the simulator refuses (every request fails, say) comes back with
// `error` set instead of throwing, so one bad corner does not sink a sweep.
PointPerf run_point(const ExpandedSweep& sweep, const SweepSpec& spec, const SweepPoint& point,
                    const CalibrationSet& calibrations);

// Runs every point whose slot in `results` is empty, on `jobs` threads (1: on the calling thread),
// and fills the slot. `on_done(index, perf)` is called once per finished point, serialised (never
// two at once), in completion order — the place to journal and report progress. An exception
// thrown by `on_done` or by the simulator's internals stops the pool and is rethrown here.
// `stop`, when given and set (by a SIGINT handler, say), makes the workers take no new point: the
// points in flight finish and are handed to `on_done`, the others' slots stay empty.
void run_points(const ExpandedSweep& sweep, const SweepSpec& spec, const CalibrationSet& calibrations, int jobs,
                std::vector<std::optional<PointPerf>>& results,
                const std::function<void(std::size_t, const PointPerf&)>& on_done,
                const std::atomic<bool>* stop = nullptr);

// Why a sweep is long, if it is (serving/run_budget.h): a configuration above a benchmark's GPU
// bound, a point above its request or user bound (its starting count: it may grow, see
// steady_state.h), or the points this run simulates (a shard's share of them) above
// kMaxSweepWallS of wall time on `jobs` at their starting counts (no fewer than a growing run's
// least). The message gives that estimate and the most the points may grow to. A whole sweep's
// timed estimate (estimate_sweep), which times a point as it grows, asks again before the run; a
// shard has only this guard.
std::optional<std::string> sweep_long_run(const SweepSpec& spec, const ExpandedSweep& sweep, std::size_t num_shards,
                                          int jobs);

// A sweep above this estimated wall time asks for confirmation before it runs (`sweep --yes`).
inline constexpr double kConfirmSweepAboveS = 30 * 60;

// The simulation work of a point, the unit the estimate scales by: its requests times the
// workload's output tokens (decode iterations dominate a point's cost; docs/analysts.md,
// "Simulator speed"). At least 1.
double point_work(const ExpandedSweep& sweep, const SweepSpec& spec, const SweepPoint& point);

// The point to time first for the estimate: of the points whose slots in `results` are empty, the
// one of median work (the lower median; the first in grid order among equals), so that neither the
// cheapest point (whose seconds per unit of work are the highest: few sequences share each step)
// nor the dearest (a long wait before any estimate) sets it. None when every point is done.
std::optional<std::size_t> calibration_point(const ExpandedSweep& sweep, const SweepSpec& spec,
                                             const std::vector<std::optional<PointPerf>>& results);

// The wall time the points whose slots in `results` are still empty should take on `jobs`
// workers, from one point measured on its own (`measured`, which took `measured_wall_s`): its
// seconds per unit of work times the work left, over min(jobs, points left) workers.
struct SweepEstimate {
  std::size_t num_points_left = 0;
  double work_left = 0;        // point_work summed over the points left
  double wall_s_per_work = 0;  // measured: the calibration point's wall seconds per unit of work
  double wall_s = 0;           // the estimate
  int workers = 1;
};
SweepEstimate estimate_sweep(const ExpandedSweep& sweep, const SweepSpec& spec,
                             const std::vector<std::optional<PointPerf>>& results, const SweepPoint& measured,
                             double measured_wall_s, int jobs);

}  // namespace tycoon::analysis
