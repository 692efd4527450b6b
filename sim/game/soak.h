// The soak: many random games and serving runs, checking after every step that nothing is
// created or lost. Each run draws from its own seed (soak seed, run index), so a violation names
// the run that reproduces it alone (`tycoon soak --seed S --first R --runs 1`).
//
// Game runs: a random scenario of the repository, a random game seed and length, then a random
// sequence of actions — commands (valid ones, and bad ones: unknown ids, negative or huge counts,
// broken JSON), clock advances, and save → load mid-run (in memory, and through a file written
// with save_game) — with these checked after every action:
//   money     cash = starting cash + revenue − GPU rent − fixed costs, to the cent; the ledger's
//             totals equal the sums of its per-model and per-contract parts, to the cent
//   requests  offered = completed + failed; within SLO <= completed; all finite and >= 0
//   tokens    the ledger's per-model token counts add up to the service totals; cached <= input
//   GPUs      GPU-hours serving <= GPU-hours rented
//   saves     a save loads back to a game whose save is the same bytes (no state lost)
// and at the end, the game's own command log replayed on a fresh game gives the same final save.
//
// Serving runs: a random catalog recipe (model x chip), workload, arrival process, cache size,
// queue limits and replicas on the discrete-event simulator, advanced in random slices, with:
//   requests  arrived = completed + failed + in flight at every slice, every request ends once
//   tokens    the summary's input / cached / output tokens = the sums over counted completed requests
//   KV blocks reference counts = the blocks in live block tables at every slice (allocated =
//             freed + held), and none held once every request has ended
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "sim/data/catalog.h"

namespace tycoon::game {

struct SoakOptions {
  std::int64_t runs = 20;
  std::int64_t first_run = 0;  // run indices first_run .. first_run + runs - 1
  std::uint64_t seed = 1;
  int max_days = 2;                 // game runs last 1..max_days days
  std::filesystem::path data_root;  // every scenario under <data_root>/scenarios is played
  std::filesystem::path scratch;    // folder for the file saves (must exist)
  // Called after each run (index, runs done so far).
  std::function<void(std::int64_t run, std::int64_t done)> on_run;
};

struct SoakReport {
  std::int64_t runs = 0;
  std::int64_t game_runs = 0;
  std::int64_t serving_runs = 0;
  std::int64_t game_hours = 0;
  std::int64_t commands_applied = 0;
  std::int64_t commands_refused = 0;    // refused by the game, with a reason
  std::int64_t commands_malformed = 0;  // refused by the command parser (bad JSON, bad fields)
  std::int64_t save_loads = 0;          // save -> load round trips (memory and file)
  std::int64_t saves_lost = 0;          // a save that did not load back to the same game
  std::int64_t replays = 0;
  std::int64_t requests_simulated = 0;
  std::int64_t invariant_checks = 0;
  std::vector<std::string> violations;  // "run R (seed S): what"
};

// The game-state checks above (money, requests, tokens, GPUs) on one state: what is wrong, one
// line each, empty when all hold. kNumConservationChecks of them.
inline constexpr int kNumConservationChecks = 8;
struct GameState;
struct Scenario;
std::vector<std::string> conservation_violations(const GameState& s, const Scenario& sc);

SoakReport run_soak(const SoakOptions& options, const data::Catalog& catalog);

}  // namespace tycoon::game
