// `tycoon soak`: random games and serving runs checking conservation after every step (requests,
// tokens, money to the cent, KV blocks, saves that load back whole); see sim/game/soak.h.
// Exit 0: no violation; 1: violations (listed on stderr, each with the run that reproduces it).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <unistd.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/progress.h"
#include "sim/game/soak.h"

namespace tycoon::cli {

namespace {
struct SoakCliOptions {
  std::int64_t runs = 20;
  std::int64_t first = 0;
  std::string seed = "1";
  int max_days = 2;
};
}  // namespace

CommandRunner add_soak_command(CLI::App& app, const GlobalOptions& global) {
  auto o = std::make_shared<SoakCliOptions>();
  auto* sub = app.add_subcommand(
      "soak",
      "Random games (commands, bad commands, save/load mid-run) and serving runs, checking that requests, "
      "tokens, money and KV blocks are conserved");
  sub->add_option("--runs", o->runs, "Number of runs (half games, half serving runs)")->check(CLI::Range(1, 1000000));
  sub->add_option("--first", o->first, "Index of the first run (to rerun one reported run alone)")
      ->check(CLI::Range(0, 1000000000));
  sub->add_option("--seed", o->seed, "Soak seed: run i draws from (seed, i)")->check(seed_digits());
  sub->add_option("--max-days", o->max_days, "Games last 1 to this many days")->check(CLI::Range(1, 30));
  return [o, &global]() {
    auto catalog = load_catalog_for(global);
    const auto scratch = std::filesystem::temp_directory_path() / ("tycoon-soak-" + std::to_string(::getpid()));
    std::filesystem::create_directories(scratch);
    game::SoakOptions so;
    so.runs = o->runs;
    so.first_run = o->first;
    so.seed = std::stoull(o->seed);
    so.max_days = o->max_days;
    so.data_root = global.data_root.empty() ? data::default_data_root() : std::filesystem::path(global.data_root);
    so.scratch = scratch;
    ProgressMeter progress("soak", static_cast<double>(o->runs), "runs");
    so.on_run = [&](std::int64_t, std::int64_t done) { progress.update(static_cast<double>(done)); };
    const auto start = std::chrono::steady_clock::now();
    const auto r = game::run_soak(so, catalog);
    progress.finish(static_cast<double>(r.runs));
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::filesystem::remove_all(scratch);
    std::printf("soak seed %s, runs %lld..%lld: %lld runs (%lld games, %lld serving runs) in %.1f s\n", o->seed.c_str(),
                static_cast<long long>(o->first), static_cast<long long>(o->first + o->runs - 1),
                static_cast<long long>(r.runs), static_cast<long long>(r.game_runs),
                static_cast<long long>(r.serving_runs), wall);
    std::printf(
        "  games: %lld hours, %lld commands applied, %lld refused by the game, %lld refused by the parser, "
        "%lld save/load round trips (%lld lost), %lld log replays\n",
        static_cast<long long>(r.game_hours), static_cast<long long>(r.commands_applied),
        static_cast<long long>(r.commands_refused), static_cast<long long>(r.commands_malformed),
        static_cast<long long>(r.save_loads), static_cast<long long>(r.saves_lost), static_cast<long long>(r.replays));
    std::printf("  serving: %lld requests simulated\n", static_cast<long long>(r.requests_simulated));
    std::printf("  invariant checks: %lld, violations: %zu\n", static_cast<long long>(r.invariant_checks),
                r.violations.size());
    for (const auto& v : r.violations) std::cerr << "soak: violation: " << v << "\n";
    return r.violations.empty() ? kExitOk : kExitFailure;
  };
}

}  // namespace tycoon::cli
