// Parse time against size: every JSON the project reads goes through
// data::parse_json_text, which must stay linear in the number of objects (an AgentX trace of
// 300,000 requests, a save of 300,000 commands). Time per object should be flat from 10^4 to 10^6.
// Run: build/tycoon_bench --benchmark_filter=Json
// For contrast, nlohmann's callback parser (what the reader used before) at small sizes: its time
// per object grows with the array.
#include <benchmark/benchmark.h>

#include <string>

#include <nlohmann/json.hpp>

#include "sim/data/json_reader.h"

namespace {

// An array of `n` small objects, shaped like a trace row or a logged command.
std::string array_of_objects(std::size_t n) {
  std::string text = "[";
  for (std::size_t i = 0; i < n; ++i) {
    if (i) text += ",\n";
    text += R"({"at_hour": )" + std::to_string(i % 1000) + R"(, "type": "set_prices", "output_usd_per_mtok": 0.17})";
  }
  return text + "]";
}

void BM_JsonParseArrayOfObjects(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const std::string text = array_of_objects(n);
  for (auto _ : state) {
    auto j = tycoon::data::parse_json_text(text, "bench.json");
    benchmark::DoNotOptimize(j.size());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(text.size()));
  // Seconds per object (printed with an SI prefix: "250n" is 250 ns): flat when parsing is linear.
  state.counters["time_per_object"] = benchmark::Counter(
      static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_JsonParseArrayOfObjects)->Arg(10'000)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

void BM_JsonParseWithCallbackOld(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const std::string text = array_of_objects(n);
  for (auto _ : state) {
    auto j = nlohmann::json::parse(text, [](int, nlohmann::json::parse_event_t, nlohmann::json&) { return true; });
    benchmark::DoNotOptimize(j.size());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.counters["time_per_object"] = benchmark::Counter(
      static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_JsonParseWithCallbackOld)->Arg(10'000)->Arg(30'000)->Unit(benchmark::kMillisecond);

}  // namespace
