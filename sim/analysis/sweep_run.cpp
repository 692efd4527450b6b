#include "sim/analysis/sweep_run.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

#include "sim/core/version.h"
#include "sim/perf/profile_lookup.h"
#include "sim/serving/benchmark_run.h"
#include "sim/serving/run_budget.h"
#include "sim/serving/steady_state.h"

namespace tycoon::analysis {

SweepFingerprint sweep_fingerprint(const CalibrationSet& calibrations) {
  std::string text;
  for (const auto& [chip, cal] : calibrations) {
    auto j = perf::to_json(cal);
    j.erase("source");
    text += chip + "=" + j.dump() + "\n";
    // The engines' published MoE kernels attached to the chip (not part of its profile file).
    for (const auto& k : cal.engine_moe) {
      text += chip + " " + k.engine + " " + std::string(to_string(k.weights)) + "/" + std::string(to_string(k.math)) +
              " compute " + nlohmann::json(k.compute_eff.knots()).dump() + " memory " +
              nlohmann::json(k.memory_eff.knots()).dump() + "\n";
    }
  }
  return {core::version_line(), stable_hash(text)};
}

std::optional<SweepFingerprint> recorded_fingerprint(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("fingerprint")) return std::nullopt;
  const auto& f = j["fingerprint"];
  if (!f.is_object() || !f.contains("build") || !f.contains("calibration") || !f["build"].is_string() ||
      !f["calibration"].is_string()) {
    return std::nullopt;
  }
  return SweepFingerprint{f["build"].get<std::string>(), f["calibration"].get<std::string>()};
}

CalibrationSet calibrations_for(const ExpandedSweep& sweep, const data::Catalog& catalog) {
  CalibrationSet out;
  for (const auto& c : sweep.configs) {
    const auto& hw = *c.deployment().hardware;
    if (!out.contains(hw.id)) out.emplace(hw.id, perf::calibration_for(catalog, hw));
    if (c.disaggregation()) {
      const auto& dhw = *c.disaggregation()->decode.deployment.hardware;
      if (!out.contains(dhw.id)) out.emplace(dhw.id, perf::calibration_for(catalog, dhw));
    }
  }
  return out;
}

std::optional<std::string> sweep_long_run(const SweepSpec& spec, const ExpandedSweep& sweep, std::size_t num_shards,
                                          int jobs) {
  using serving::run_estimate;
  // A configuration's GPUs, once per series (its first point): the fleet a benchmark refuses.
  for (std::size_t se = 0; se < sweep.series.size(); ++se) {
    const auto first =
        std::find_if(sweep.points.begin(), sweep.points.end(), [&](const SweepPoint& p) { return p.series == se; });
    if (first == sweep.points.end()) continue;
    const auto past = serving::find_long_run(serving_config(sweep, spec, *first));
    if (past &&
        (past->bound == serving::LongRunBound::kReplicaGpus || past->bound == serving::LongRunBound::kAllGpus)) {
      return spec.file + ": series " + sweep.series[se].label + ": " +
             std::to_string(static_cast<long long>(past->amount)) + " GPUs, more than " +
             std::to_string(serving::kMaxRunGpus);
    }
  }
  double start = 0;
  for (const auto& p : sweep.points) {
    const std::string where =
        spec.file + ": point " + sweep.series[p.series].label + " at concurrency " + std::to_string(p.concurrency);
    const auto requests = static_cast<double>(p.num_requests);
    if (requests > static_cast<double>(serving::kMaxRunRequests)) {
      return where + ": " + run_estimate(requests) + ", more than " + std::to_string(serving::kMaxRunRequests) +
             " requests";
    }
    if (p.concurrency > serving::kMaxRunUsers) {
      return where + ": " + std::to_string(p.concurrency) + " users at once, more than " +
             std::to_string(serving::kMaxRunUsers);
    }
    // The least a point simulates: a growing run starts at no fewer than kSteadyMinStartRequests.
    start += std::max(requests, static_cast<double>(serving::kSteadyMinStartRequests));
  }
  const auto shards = static_cast<double>(std::max<std::size_t>(1, num_shards));
  start /= shards;
  if (start / (serving::kSimRequestsPerWallS * std::max(1, jobs)) > serving::kMaxSweepWallS) {
    double most = 0;
    for (const auto& p : sweep.points)
      most += static_cast<double>(serving::steady_requests_bound(serving_config(sweep, spec, p), {}));
    most /= shards;
    return spec.file + ": " + std::to_string(sweep.points.size()) + " points, at least " + run_estimate(start, jobs) +
           " at their starting counts (up to " + run_estimate(most, jobs) +
           " if every point grows to its steady-state cap), more than an hour";
  }
  return std::nullopt;
}

PointPerf run_point(const ExpandedSweep& sweep, const SweepSpec& spec, const SweepPoint& point,
                    const CalibrationSet& calibrations) {
  auto config = serving_config(sweep, spec, point);
  const auto& cal = calibrations.at(config.deployment.hardware->id);
  if (config.disaggregated) {
    const auto& decode_hw = config.disaggregated->decode.deployment.hardware->id;
    if (decode_hw != config.deployment.hardware->id)
      config.disaggregated->decode.calibration = calibrations.at(decode_hw);
  }
  try {
    // Every point follows the steady-state rule (serving/steady_state.h): its request count is
    // where the run starts, and it grows until the P90s' intervals are narrow or the cap is reached.
    return PointPerf::from_steady_run(serving::run_to_steady_state(config, cal));
  } catch (const std::invalid_argument& e) {
    PointPerf p;
    p.error = e.what();
    p.provenance = cal.provenance;
    p.num_gpus = static_cast<int>(serving::num_gpus(config));
    return p;
  }
}

void run_points(const ExpandedSweep& sweep, const SweepSpec& spec, const CalibrationSet& calibrations, int jobs,
                std::vector<std::optional<PointPerf>>& results,
                const std::function<void(std::size_t, const PointPerf&)>& on_done,
                const std::atomic<bool>* stop_requested) {
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < sweep.points.size(); ++i) {
    if (!results[i]) todo.push_back(i);
  }
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex done_mutex;
  std::exception_ptr failure;
  auto work = [&] {
    while (!stop.load() && !(stop_requested && stop_requested->load())) {
      const std::size_t k = next.fetch_add(1);
      if (k >= todo.size()) return;
      const std::size_t i = todo[k];
      try {
        PointPerf p = run_point(sweep, spec, sweep.points[i], calibrations);
        std::lock_guard<std::mutex> lock(done_mutex);
        if (stop.load()) return;
        results[i] = p;
        on_done(i, *results[i]);
      } catch (...) {
        std::lock_guard<std::mutex> lock(done_mutex);
        if (!failure) failure = std::current_exception();
        stop.store(true);
        return;
      }
    }
  };
  const int n = std::max(1, std::min<int>(jobs, static_cast<int>(todo.size())));
  if (n == 1) {
    work();
  } else {
    std::vector<std::thread> pool;
    for (int t = 0; t < n; ++t) pool.emplace_back(work);
    for (auto& t : pool) t.join();
  }
  if (failure) std::rethrow_exception(failure);
}

double point_work(const ExpandedSweep& sweep, const SweepSpec& spec, const SweepPoint& point) {
  const auto& w = spec.workloads[sweep.series[point.series].workload];
  return std::max(
      1.0, static_cast<double>(point.num_requests) * static_cast<double>(std::max<std::int64_t>(1, w.output_tokens)));
}

std::optional<std::size_t> calibration_point(const ExpandedSweep& sweep, const SweepSpec& spec,
                                             const std::vector<std::optional<PointPerf>>& results) {
  std::vector<std::pair<double, std::size_t>> left;  // (work, index)
  for (std::size_t i = 0; i < sweep.points.size(); ++i) {
    if (!results[i]) left.emplace_back(point_work(sweep, spec, sweep.points[i]), i);
  }
  if (left.empty()) return std::nullopt;
  std::stable_sort(left.begin(), left.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return left[(left.size() - 1) / 2].second;
}

SweepEstimate estimate_sweep(const ExpandedSweep& sweep, const SweepSpec& spec,
                             const std::vector<std::optional<PointPerf>>& results, const SweepPoint& measured,
                             double measured_wall_s, int jobs) {
  SweepEstimate e;
  for (std::size_t i = 0; i < sweep.points.size(); ++i) {
    if (results[i]) continue;
    ++e.num_points_left;
    e.work_left += point_work(sweep, spec, sweep.points[i]);
  }
  e.wall_s_per_work = std::max(0.0, measured_wall_s) / point_work(sweep, spec, measured);
  e.workers = static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(std::max(1, jobs), e.num_points_left)));
  e.wall_s = e.wall_s_per_work * e.work_left / e.workers;
  return e;
}

}  // namespace tycoon::analysis
