// Speed of the serving simulator, in simulated seconds per CPU second (the `sim_x_realtime`
// counter; Google Benchmark divides rate counters by CPU time). Target: >= 10,000x
// real time for one saturated H200 replica serving GPT-OSS-120B to 64 users at 1k/1k, and cost
// linear in the number of replicas: with 64 users per replica, `replica_sim_x_realtime`
// (replicas x simulated seconds per CPU second) stays flat from 1 to 8 replicas.
// The target for the game's own windows is >= 100,000x real time for one saturated H200 replica
// of Llama-3.1-8B at 64 users, through the decode fast path (Replica::fast_forward); the `Steps` variants turn it off
// (SchedulerConfig::fast_forward_decode = false) to show the step-by-step cost on the same build.
// `ns_per_engine_step`: CPU nanoseconds per simulated engine step.
// Run: build/tycoon_bench --benchmark_filter=Serving
#include <benchmark/benchmark.h>

#include <exception>
#include <string>

#include "sim/data/catalog.h"
#include "sim/perf/profile_lookup.h"
#include "sim/serving/resolve_config.h"
#include "sim/serving/serving_sim.h"

namespace {

using namespace tycoon;

const data::Catalog& catalog() {
  static const data::Catalog c = data::load_catalog(data::default_data_root());
  return c;
}

// GPT-OSS-120B on H200 with the recipe's settings (FP4 experts, TP1), random 1k/1k traffic
// (InferenceX), `users_per_replica` closed-loop users per replica, 10 requests per user.
serving::ServingConfig gpt_oss_h200(int replicas, int users_per_replica, bool spec_decode) {
  const auto& c = catalog();
  serving::ServingConfig cfg;
  auto resolved = serving::resolve_serving(c, c.model("gpt-oss-120b"), c.accelerator("h200"), {});
  cfg.deployment = resolved.deployment;
  if (!spec_decode) cfg.deployment.spec_decode.reset();
  cfg.scheduler = resolved.scheduler;
  cfg.replicas = replicas;
  cfg.router = serving::RouterKind::kRoundRobin;
  cfg.workload.input_tokens = 1024;
  cfg.workload.output_tokens = 1024;
  // This benchmark's workload is the lock-step one (exact output lengths, no warm-up) whatever
  // the simulator's defaults: its numbers stay comparable from commit to commit.
  cfg.workload.input_range_ratio = 0.8;
  cfg.workload.output_range_ratio = 1.0;
  cfg.arrival.concurrency = users_per_replica * replicas;
  cfg.num_requests = 10 * static_cast<std::int64_t>(cfg.arrival.concurrency);
  cfg.seed = 7;
  return cfg;
}

// Llama-3.1-8B on H200 (vLLM, BF16, TP1, the engine's default scheduler), random 1k/1k traffic
// from `users_per_replica` closed-loop users per replica, `requests` in all.
serving::ServingConfig llama8b_h200(int replicas, int users_per_replica, std::int64_t requests, bool fast) {
  const auto& c = catalog();
  serving::ServingConfig cfg;
  cfg.deployment.model = &c.model("llama-3.1-8b");
  cfg.deployment.hardware = &c.accelerator("h200");
  cfg.deployment.engine = &c.engine("vllm");
  cfg.deployment.precision = Precision::kBf16;
  cfg.replicas = replicas;
  cfg.router = serving::RouterKind::kRoundRobin;
  cfg.workload.input_tokens = 1024;
  cfg.workload.output_tokens = 1024;
  cfg.workload.input_range_ratio = 0.8;  // the lock-step workload, as above
  cfg.workload.output_range_ratio = 1.0;
  cfg.arrival.concurrency = users_per_replica * replicas;
  cfg.num_requests = requests;
  cfg.scheduler.fast_forward_decode = fast;
  cfg.seed = 7;
  return cfg;
}

// The chip's calibration (measured when hardware_db/calibrated/h200.json exists), else the
// datasheet placeholder; the label says which.
perf::CalibrationProfile calibration(const data::Accelerator& chip) {
  try {
    return perf::calibration_for(catalog(), chip);
  } catch (const std::exception&) {
    return perf::CalibrationProfile::datasheet(chip.id);
  }
}

void run(benchmark::State& state, const serving::ServingConfig& cfg) {
  auto cal = calibration(*cfg.deployment.hardware);
  state.SetLabel(std::string(perf::to_string(cal.provenance)));
  double simulated_s = 0;
  std::int64_t iterations = 0;
  for (auto _ : state) {
    auto s = serving::simulate(cfg, cal);
    simulated_s += s.simulated_time_s;
    iterations += s.num_iterations;
    benchmark::DoNotOptimize(s.output_tok_per_s_per_gpu);
  }
  // Simulated seconds per wall second, for the whole deployment (all replicas at once) ...
  state.counters["sim_x_realtime"] = benchmark::Counter(simulated_s, benchmark::Counter::kIsRate);
  // ... and replica-seconds per wall second: constant when cost grows linearly with replicas.
  state.counters["replica_sim_x_realtime"] =
      benchmark::Counter(simulated_s * cfg.replicas, benchmark::Counter::kIsRate);
  state.counters["engine_steps_per_s"] =
      benchmark::Counter(static_cast<double>(iterations), benchmark::Counter::kIsRate);
  // CPU time / steps, in ns: the rate of (steps x 1e-9), inverted.
  state.counters["ns_per_engine_step"] = benchmark::Counter(static_cast<double>(iterations) * 1e-9,
                                                            benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["users"] = cfg.arrival.concurrency;
}

void BM_ServingGptOssH200(benchmark::State& state) {
  run(state, gpt_oss_h200(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)), false));
}

// The 100,000x target: one saturated replica, 64 users, 2k and 16k requests; then 2-8 replicas
// (64 users and 2k requests each).
void BM_ServingLlama8bH200(benchmark::State& state) {
  const auto replicas = static_cast<int>(state.range(0));
  run(state, llama8b_h200(replicas, 64, state.range(1), true));
}
BENCHMARK(BM_ServingLlama8bH200)
    ->ArgNames({"replicas", "requests"})
    ->Args({1, 2048})
    ->Args({1, 16384})
    ->Args({2, 4096})
    ->Args({4, 8192})
    ->Args({8, 16384})
    ->Unit(benchmark::kMillisecond);

// The same, step by step (fast path off).
void BM_ServingLlama8bH200Steps(benchmark::State& state) {
  const auto replicas = static_cast<int>(state.range(0));
  run(state, llama8b_h200(replicas, 64, state.range(1), false));
}
BENCHMARK(BM_ServingLlama8bH200Steps)
    ->ArgNames({"replicas", "requests"})
    ->Args({1, 2048})
    ->Args({1, 16384})
    ->Args({8, 16384})
    ->Unit(benchmark::kMillisecond);

// The same replica and users with completions that do not come in waves. The serving config has
// no staggered starts or length jitter for random traffic (every output is exactly 1,024 tokens,
// so 64 users who start together finish together); these shapes spread completions instead:
// `shape:0` output-heavy (single turns, lognormal output lengths around the mean: completions
// scattered, runs cut short by each), `shape:1` chat (multi-turn sessions with think times and
// prefix-cache hits on the conversation so far: hashed blocks, evictions, the ring of cached
// free blocks). Fast path on and off.
void BM_ServingLlama8bH200Shapes(benchmark::State& state) {
  auto cfg = llama8b_h200(1, 64, state.range(1), state.range(2) != 0);
  cfg.workload.kind = state.range(0) == 0 ? serving::WorkloadKind::kOutputHeavy : serving::WorkloadKind::kChat;
  run(state, cfg);
}
BENCHMARK(BM_ServingLlama8bH200Shapes)
    ->ArgNames({"shape", "requests", "fast"})
    ->Args({0, 16384, 1})
    ->Args({0, 16384, 0})
    ->Args({1, 16384, 1})
    ->Args({1, 16384, 0})
    ->Unit(benchmark::kMillisecond);

// GPT-OSS-120B, 64 users, 2k / 16k requests, with and without EAGLE-3 (7 drafts), fast path on
// and off.
void BM_ServingGptOssH200Requests(benchmark::State& state) {
  auto cfg = gpt_oss_h200(static_cast<int>(state.range(0)), 64, state.range(2) != 0);
  cfg.num_requests = state.range(1) * cfg.replicas;
  cfg.scheduler.fast_forward_decode = state.range(3) != 0;
  run(state, cfg);
}
BENCHMARK(BM_ServingGptOssH200Requests)
    ->ArgNames({"replicas", "requests", "spec", "fast"})
    ->Args({1, 2048, 0, 1})
    ->Args({1, 2048, 0, 0})
    ->Args({1, 16384, 0, 1})
    ->Args({1, 2048, 1, 1})
    ->Args({1, 2048, 1, 0})
    ->Args({2, 2048, 0, 1})
    ->Args({4, 2048, 0, 1})
    ->Args({8, 2048, 0, 1})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ServingGptOssH200)
    ->ArgNames({"replicas", "users_per_replica"})
    ->Args({1, 64})
    ->Args({2, 64})
    ->Args({4, 64})
    ->Args({8, 64})
    ->Unit(benchmark::kMillisecond);

// The same with the recipe's EAGLE-3 speculative decoding (7 drafts): one acceptance draw per
// sequence per step on top.
void BM_ServingGptOssH200Spec(benchmark::State& state) {
  run(state, gpt_oss_h200(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)), true));
}
BENCHMARK(BM_ServingGptOssH200Spec)
    ->ArgNames({"replicas", "users_per_replica"})
    ->Args({1, 64})
    ->Args({8, 64})
    ->Unit(benchmark::kMillisecond);

// Agentic coding (AgentX's conversations, its current replay timing): 20 users on one GPT-OSS-120B
// H200 replica for `hours` simulated hours. Every turn resends its conversation so far (about 60k
// tokens, 96% of it in the prefix cache), so admission walks thousands of cached blocks by their
// chain hashes: the cost of the prefix-cache lookups (Replica::admit_front), which campaign level
// 3 spends most of its time in.
void BM_ServingGptOssH200Agentic(benchmark::State& state) {
  auto cfg = gpt_oss_h200(1, 20, false);
  cfg.num_requests = 0;  // the run lasts duration_s
  cfg.workload.kind = serving::WorkloadKind::kAgenticCoding;
  cfg.workload.max_pause_s = 300;
  cfg.workload.pause_basis = traffic::PauseBasis::kEndToStart;
  cfg.arrival.idle_cap_s = 10;
  cfg.duration_s = 3600.0 * static_cast<double>(state.range(0));
  run(state, cfg);
}
BENCHMARK(BM_ServingGptOssH200Agentic)->ArgNames({"hours"})->Arg(4)->Unit(benchmark::kMillisecond);

}  // namespace
