// Speed of `tycoon sweep`: the issue asks that a sweep of 1,000 points over 8 configurations
// finishes in minutes on the development machine (2 shared cores). The grid: GPT-OSS-120B on the
// seven chips with a recipe plus H200 with a smaller token budget (8 configurations), 5
// concurrencies (4 .. 64 users), 25 seeds, random 1k/256 traffic, 64 .. 256 requests per point.
// Counters: points, s_per_point (wall time per point with the given jobs), cpu_s_per_point.
// Run: build/tycoon_bench --benchmark_filter=Sweep
#include <benchmark/benchmark.h>

#include <thread>

#include "sim/analysis/sweep_run.h"
#include "sim/analysis/sweep_spec.h"
#include "sim/data/catalog.h"
#include "sim/serving/serving_sim.h"

namespace {

using namespace tycoon;
using namespace tycoon::analysis;

const data::Catalog& catalog() {
  static const data::Catalog c = data::load_catalog(data::default_data_root());
  return c;
}

nlohmann::json bench_spec(bool default_counts = false) {
  nlohmann::json seeds = nlohmann::json::array();
  for (int s = 1; s <= 25; ++s) seeds.push_back(s);
  nlohmann::json configs = nlohmann::json::array();
  for (const char* chip : {"h100", "h200", "b200", "mi300x", "mi325x", "mi355x", "tpu-v7"}) {
    configs.push_back({{"label", chip}, {"hardware", chip}});
  }
  configs.push_back({{"label", "h200 mbt=2048"}, {"hardware", "h200"}, {"max_num_batched_tokens", 2048}});
  return {
      {"format_version", 1},
      {"name", "bench-1000"},
      {"base", {{"model", "gpt-oss-120b"}}},
      {"configurations", configs},
      {"workloads", {{{"name", "random 1k/256"}, {"kind", "random"}, {"input_tokens", 1024}, {"output_tokens", 256}}}},
      {"concurrency", {4, 8, 16, 32, 64}},
      {"seeds", seeds},
      {"requests_per_user", default_counts ? 10 : 4},
      {"min_requests", default_counts ? 0 : 64},
      {"max_requests", default_counts ? 0 : 256}};
}

struct Prepared {
  SweepSpec spec;
  ExpandedSweep sweep;
  CalibrationSet calibrations;
};

// The grid above (`default_counts`: with the benchmark's 10 requests per user, no floor or cap).
const Prepared& prepared(bool default_counts = false) {
  auto make = [](bool d) {
    Prepared q;
    q.spec = parse_sweep_spec(bench_spec(d), "bench_sweep.cpp");
    q.sweep = expand_sweep(q.spec, catalog());
    q.calibrations = calibrations_for(q.sweep, catalog());
    return q;
  };
  static const Prepared short_counts = make(false);
  static const Prepared defaults = make(true);
  return default_counts ? defaults : short_counts;
}

// One point at a time, cycling through the grid: the per-point cost on one core. Arg 1: the grid
// at the default 10 requests per user.
void BM_SweepPoint(benchmark::State& state) {
  const auto& p = prepared(state.range(0) == 1);
  std::size_t i = 0;
  for (auto _ : state) {
    auto r = run_point(p.sweep, p.spec, p.sweep.points[i], p.calibrations);
    benchmark::DoNotOptimize(r);
    i = (i + 37) % p.sweep.points.size();  // a stride that visits every configuration and concurrency
  }
  state.counters["grid_points"] = static_cast<double>(p.sweep.points.size());
}
BENCHMARK(BM_SweepPoint)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// The same points run once at their spec's request count, without the steady-state rule
// (serving/steady_state.h): what a point cost before the rule; BM_SweepPoint over this is its price.
void BM_SweepPointFixedCount(benchmark::State& state) {
  const auto& p = prepared(state.range(0) == 1);
  std::size_t i = 0;
  for (auto _ : state) {
    const auto& pt = p.sweep.points[i];
    auto config = serving_config(p.sweep, p.spec, pt);
    auto r = serving::simulate(config, p.calibrations.at(config.deployment.hardware->id));
    benchmark::DoNotOptimize(r);
    i = (i + 37) % p.sweep.points.size();
  }
}
BENCHMARK(BM_SweepPointFixedCount)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// The whole 1,000-point sweep on `jobs` worker threads (0: all cores).
void BM_Sweep1000(benchmark::State& state) {
  const auto& p = prepared();
  const int jobs = state.range(0) > 0 ? static_cast<int>(state.range(0))
                                      : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  for (auto _ : state) {
    std::vector<std::optional<PointPerf>> results(p.sweep.points.size());
    run_points(p.sweep, p.spec, p.calibrations, jobs, results, [](std::size_t, const PointPerf&) {});
    benchmark::DoNotOptimize(results);
  }
  const double n = static_cast<double>(p.sweep.points.size());
  state.counters["points"] = n;
  state.counters["jobs"] = jobs;
  state.counters["s_per_point"] = benchmark::Counter(n * static_cast<double>(state.iterations()),
                                                     benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_Sweep1000)->Arg(0)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

}  // namespace
