// Cost of a whole headless game: the 30-day, 8-deployment analyst scenario (the issue's "a
// 30-game-day scenario with 8 deployments runs headless in under 10 s"), and a week of campaign
// level 1. Each iteration starts with an empty serving-window cache.
// With the advisor attached: the same games with Chien posting (campaign level 1 for 30 days; the
// sandbox with two deployments for 7 days), the worst game hour when each hour runs blocking (what
// the native worker thread waits), and the worst slice of frame time when the same hours run as
// the browser runs them (TapedWork: forks, a tape, simulations in slices of 256 events).
// Run: build/tycoon_bench --benchmark_filter=Game
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "sim/advisor/advisor.h"
#include "sim/data/catalog.h"
#include "sim/game/game.h"
#include "sim/game/scenario.h"
#include "sim/game/sim_tape.h"
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

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// A game of `name` with Chien attached and `setup` applied at hour 0.
std::unique_ptr<game::Game> advised_game(const char* name, const std::vector<game::Command>& setup, int days) {
  auto scenario = game::load_scenario(game::find_scenario(name, data::default_data_root()), catalog());
  game::GameOptions o;
  o.days = days;
  auto g = std::make_unique<game::Game>(scenario, catalog(), o);
  g->set_advisor(std::make_shared<advisor::Chien>(
      catalog(), g->scenario(), advisor::load_code_change_catalog_from_root(data::default_data_root())));
  for (const auto& c : setup) g->apply(c);
  return g;
}

std::vector<game::Command> sandbox_setup() {
  return {game::RentGpus{"h200", Contract::kOnDemand, 8}, game::Deploy{"gpt-oss-120b", "h200", "chat", 4, {}, {}},
          game::RentGpus{"mi300x", Contract::kOnDemand, 8},
          game::Deploy{"qwen3-coder-480b", "mi300x", "coding", 1, {}, {}}};
}

// Every hour blocking: the worst hour and the median (milliseconds of CPU on this machine).
void run_advised_blocking(benchmark::State& state, const char* name, const std::vector<game::Command>& setup,
                          int days) {
  for (auto _ : state) {
    auto g = advised_game(name, setup, days);
    std::vector<double> hour_ms;
    while (!g->finished()) {
      auto t0 = Clock::now();
      g->step();
      hour_ms.push_back(ms_since(t0));
    }
    std::sort(hour_ms.begin(), hour_ms.end());
    state.counters["game_days"] = days;
    state.counters["proposals"] = static_cast<double>(g->state().inbox.size());
    state.counters["worst_hour_ms"] = hour_ms.back();
    state.counters["median_hour_ms"] = hour_ms[hour_ms.size() / 2];
  }
}

// The same hours as the browser runs them: the worst uninterrupted piece of work (one prepare()
// call of at most 256 events, a fork, or the real hour on its tape) is the floor of a frame.
void run_advised_sliced(benchmark::State& state, const char* name, const std::vector<game::Command>& setup, int days) {
  for (auto _ : state) {
    auto g = advised_game(name, setup, days);
    game::TapedWork taped;
    const game::TapedWork::Work step = [](game::Game& x) { x.step(); };
    double worst_piece_ms = 0;
    while (!g->finished()) {
      const std::string id = std::to_string(g->state().hour) + "|step";
      for (;;) {
        auto t0 = Clock::now();
        const bool ready = taped.prepare(*g, id, step, 64);
        worst_piece_ms = std::max(worst_piece_ms, ms_since(t0));
        if (ready) break;
      }
      auto t0 = Clock::now();
      {
        serving::ScopedSimulateInterceptor guard(&taped.tape());
        g->step();
      }
      taped.done();
      worst_piece_ms = std::max(worst_piece_ms, ms_since(t0));
    }
    state.counters["game_days"] = days;
    state.counters["proposals"] = static_cast<double>(g->state().inbox.size());
    state.counters["simulations_sliced"] = static_cast<double>(taped.simulations_sliced());
    state.counters["worst_piece_ms"] = worst_piece_ms;
  }
}

void BM_GameCampaignLevel1Advisor(benchmark::State& state) {
  run_advised_blocking(state, "campaign-01-thin-margin", {}, 30);
}
BENCHMARK(BM_GameCampaignLevel1Advisor)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

void BM_GameSandboxAdvisor(benchmark::State& state) { run_advised_blocking(state, "sandbox", sandbox_setup(), 7); }
BENCHMARK(BM_GameSandboxAdvisor)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

void BM_GameCampaignLevel1AdvisorSliced(benchmark::State& state) {
  run_advised_sliced(state, "campaign-01-thin-margin", {}, 30);
}
BENCHMARK(BM_GameCampaignLevel1AdvisorSliced)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

void BM_GameSandboxAdvisorSliced(benchmark::State& state) { run_advised_sliced(state, "sandbox", sandbox_setup(), 7); }
BENCHMARK(BM_GameSandboxAdvisorSliced)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

}  // namespace
