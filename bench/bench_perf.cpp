// Cost of one performance-model call: the serving simulator calls it once per engine iteration.
// Run: build/tycoon_bench --benchmark_filter=Predict
#include <benchmark/benchmark.h>

#include "sim/data/catalog.h"
#include "sim/perf/iteration_cost.h"
#include "sim/perf/profile_lookup.h"

namespace {

using namespace tycoon;

const data::Catalog& catalog() {
  static const data::Catalog c = data::load_catalog(data::default_data_root());
  return c;
}

perf::Deployment deployment(const char* model, const char* chip, int tp) {
  const auto& c = catalog();
  perf::Deployment d;
  d.model = &c.model(model);
  d.hardware = &c.accelerator(chip);
  d.engine = &c.engine("vllm");
  d.precision = Precision::kFp8;
  d.tensor_parallel = tp;
  return d;
}

// Nemotron 3 Ultra: 108 layers (mamba2, MoE, attention), a 256-sequence decode batch with mixed
// contexts plus two prefill chunks — the "100-layer model, 256-sequence batch".
void BM_PredictNemotronUltra256(benchmark::State& state) {
  auto d = deployment("nemotron-3-ultra", "b200", 4);
  auto cal = perf::calibration_for(catalog(), *d.hardware);
  std::vector<std::int64_t> decodes(256);
  for (std::size_t i = 0; i < decodes.size(); ++i) decodes[i] = 500 + 37 * static_cast<std::int64_t>(i);
  std::vector<perf::PrefillChunk> prefills = {{2048, 0, false}, {512, 4096, true}};
  for (auto _ : state) {
    auto cost = perf::predict_iteration(perf::BatchShape{prefills, decodes}, d, cal);
    benchmark::DoNotOptimize(cost.total_s);
  }
}
BENCHMARK(BM_PredictNemotronUltra256);

void BM_PredictLlama8bDecode64(benchmark::State& state) {
  auto d = deployment("llama-3.1-8b", "h200", 1);
  auto cal = perf::calibration_for(catalog(), *d.hardware);
  std::vector<std::int64_t> decodes(64, 1024);
  for (auto _ : state) {
    auto cost = perf::predict_iteration(perf::BatchShape{{}, decodes}, d, cal);
    benchmark::DoNotOptimize(cost.total_s);
  }
}
BENCHMARK(BM_PredictLlama8bDecode64);

}  // namespace

BENCHMARK_MAIN();
