// Running a sweep's points: each an independent, deterministic serving simulation, spread over a
// pool of worker threads. Results land by point index, so their order never depends on the
// number of workers or on which finishes first.
#pragma once

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

// Simulates one point. A point the simulator refuses (every request fails, say) comes back with
// `error` set instead of throwing, so one bad corner does not sink a sweep.
PointPerf run_point(const ExpandedSweep& sweep, const SweepSpec& spec, const SweepPoint& point,
                    const CalibrationSet& calibrations);

// Runs every point whose slot in `results` is empty, on `jobs` threads (1: on the calling thread),
// and fills the slot. `on_done(index, perf)` is called once per finished point, serialised (never
// two at once), in completion order — the place to journal and report progress. An exception
// thrown by `on_done` or by the simulator's internals stops the pool and is rethrown here.
void run_points(const ExpandedSweep& sweep, const SweepSpec& spec, const CalibrationSet& calibrations, int jobs,
                std::vector<std::optional<PointPerf>>& results,
                const std::function<void(std::size_t, const PointPerf&)>& on_done);

}  // namespace tycoon::analysis
