// Speed of the disaggregated serving simulation (sim/serving/disaggregated.h) against the
// aggregated one on the same GPUs and traffic: GPT-OSS-120B on H200, random 1k/1k, 64 closed-loop
// users per decode replica, 10 requests per user. `sim_x_realtime` = simulated seconds per CPU
// second; `ns_per_engine_step` = CPU time per engine step (both pools' steps counted).
// Run: build/tycoon_bench --benchmark_filter=Disaggregated
#include <benchmark/benchmark.h>

#include <exception>
#include <string>

#include "sim/data/catalog.h"
#include "sim/perf/profile_lookup.h"
#include "sim/serving/disaggregated.h"
#include "sim/serving/resolve_config.h"
#include "sim/serving/serving_sim.h"

namespace {

using namespace tycoon;

const data::Catalog& catalog() {
  static const data::Catalog c = data::load_catalog(data::default_data_root());
  return c;
}

// `prefill` H200 replicas feeding `decode` H200 replicas over InfiniBand (0 prefill: aggregated
// on `decode` replicas).
serving::ServingConfig gpt_oss_h200(int prefill, int decode) {
  const auto& c = catalog();
  serving::ServingConfig cfg;
  auto resolved = serving::resolve_serving(c, c.model("gpt-oss-120b"), c.accelerator("h200"), {});
  cfg.deployment = resolved.deployment;
  cfg.deployment.spec_decode.reset();
  cfg.scheduler = resolved.scheduler;
  cfg.workload.input_tokens = 1024;
  cfg.workload.output_tokens = 1024;
  cfg.arrival.concurrency = 64 * decode;
  cfg.num_requests = 10 * static_cast<std::int64_t>(cfg.arrival.concurrency);
  cfg.seed = 7;
  if (prefill == 0) {
    cfg.replicas = decode;
    return cfg;
  }
  cfg.replicas = prefill;
  serving::Disaggregation d;
  d.decode.deployment = cfg.deployment;
  d.decode.scheduler = cfg.scheduler;
  d.decode.replicas = decode;
  d.link = serving::resolve_kv_link(serving::KvLinkKind::kInfiniband, c.accelerator("h200"), c.accelerator("h200"),
                                    c.kv_links);
  cfg.disaggregated = d;
  return cfg;
}

void BM_ServingDisaggregatedGptOssH200(benchmark::State& state) {
  const auto cfg = gpt_oss_h200(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  perf::CalibrationProfile cal = perf::CalibrationProfile::datasheet("h200");
  try {
    cal = perf::calibration_for(catalog(), *cfg.deployment.hardware);
  } catch (const std::exception&) {
  }
  state.SetLabel(std::string(perf::to_string(cal.provenance)));
  double simulated_s = 0;
  std::int64_t steps = 0;
  for (auto _ : state) {
    auto s = serving::simulate(cfg, cal);
    simulated_s += s.simulated_time_s;
    steps += s.num_iterations;
    benchmark::DoNotOptimize(s.output_tok_per_s_per_gpu);
  }
  state.counters["sim_x_realtime"] = benchmark::Counter(simulated_s, benchmark::Counter::kIsRate);
  state.counters["ns_per_engine_step"] =
      benchmark::Counter(static_cast<double>(steps) * 1e-9, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_ServingDisaggregatedGptOssH200)
    ->ArgNames({"prefill", "decode"})
    ->Args({0, 2})  // aggregated, 2 replicas
    ->Args({1, 1})
    ->Args({1, 2})
    ->Args({2, 4})
    ->Unit(benchmark::kMillisecond);

}  // namespace
