// Cost of a whole headless game: the 30-day, 8-deployment analyst scenario (the issue's "a
// 30-game-day scenario with 8 deployments runs headless in under 10 s"), and a week of campaign
// level 1. Each iteration starts with an empty serving-window cache.
// Run: build/tycoon_bench --benchmark_filter=Game
#include <benchmark/benchmark.h>

#include "sim/data/catalog.h"
#include "sim/game/game.h"
#include "sim/game/scenario.h"
#include "sim/game/summary.h"

namespace {

using namespace tycoon;

const data::Catalog& catalog() {
  static const data::Catalog c = data::load_catalog(data::default_data_root());
  return c;
}

void run_scenario(benchmark::State& state, const char* name) {
  auto scenario = game::load_scenario(game::find_scenario(name, data::default_data_root()), catalog());
  for (auto _ : state) {
    game::Game g(scenario, catalog());
    g.run_to_end();
    auto s = game::summarize(g);
    benchmark::DoNotOptimize(s.cash_usd);
    state.counters["game_days"] = s.simulated_days;
    state.counters["deployments"] = static_cast<double>(g.state().company.deployments.size());
    state.counters["windows"] = static_cast<double>(s.windows_simulated);
    state.counters["window_reuses"] = static_cast<double>(s.window_cache_hits);
  }
}

void BM_GameEightDeployments30Days(benchmark::State& state) {
  run_scenario(state, "analyst-eight-deployments-30-days");
}
BENCHMARK(BM_GameEightDeployments30Days)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

void BM_GameCampaignLevel1(benchmark::State& state) { run_scenario(state, "campaign-01-thin-margin"); }
BENCHMARK(BM_GameCampaignLevel1)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

}  // namespace
