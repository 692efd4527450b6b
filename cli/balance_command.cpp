// `tycoon balance [SCENARIO...]`: six ways to play each level (do nothing, naive, the three advisor
// bots, the reference strategy), scored by the game's own rules on the level's seed. With no
// scenario: every campaign level and classroom scenario. The balance table of docs/playing.md comes from
// `tycoon balance --markdown`.
#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "cli/common.h"
#include "sim/advisor/balance.h"
#include "sim/game/rng.h"
#include "sim/game/scenario.h"

namespace tycoon::cli {

namespace {
struct BalanceOptions {
  std::vector<std::string> scenarios;
  bool markdown = false;
  bool json = false;
  std::optional<std::uint64_t> seed;
};
}  // namespace

CommandRunner add_balance_command(CLI::App& app, const GlobalOptions& global) {
  auto o = std::make_shared<BalanceOptions>();
  auto* sub = app.add_subcommand(
      "balance",
      "Score six strategies (do-nothing, naive, accept-all, reject-all, verify-then-decide, reference) on "
      "levels: every campaign level and classroom scenario by default");
  sub->add_option("scenario", o->scenarios, "Scenarios (names or .json files)");
  sub->add_flag("--markdown", o->markdown, "One markdown table (as in docs/playing.md)");
  sub->add_flag("--json", o->json, "JSON on stdout");
  sub->add_option("--seed", o->seed,
                  "Play every level on this seed instead of its own (a seed the table in docs/playing.md does not use)")
      ->check(seed_digits())
      ->check(CLI::Range(std::uint64_t{0}, game::kMaxGameSeed));
  return [o, &global]() {
    auto catalog = load_catalog_for(global);
    auto root = global.data_root.empty() ? data::default_data_root() : std::filesystem::path(global.data_root);
    std::vector<game::Scenario> levels;
    if (o->scenarios.empty()) {
      levels = advisor::balanced_levels(root, catalog);
    } else {
      for (const auto& n : o->scenarios) levels.push_back(game::load_scenario(game::find_scenario(n, root), catalog));
    }
    if (o->seed) {
      for (auto& s : levels) s.seed = *o->seed;
    }
    const auto changes = advisor::load_code_change_catalog_from_root(root);
    std::vector<advisor::BalanceTable> tables;
    nlohmann::json all = nlohmann::json::array();
    for (const auto& s : levels) {
      tables.push_back(advisor::balance_table(s, catalog, changes, root / "scenarios" / "strategies"));
      const auto& t = tables.back();
      all.push_back(advisor::to_json(t));
      if (o->json || o->markdown) continue;
      std::printf("%s (%s)\n", t.scenario_name.c_str(), t.scenario_id.c_str());
      for (const auto& r : t.rows) {
        if (!r.applicable) {
          std::printf("  %-20s —  (%s)\n", r.strategy.c_str(), r.why_not.c_str());
          continue;
        }
        std::printf("  %-20s score %5.1f  %d star%s  profit %10.0f  SLO %5.1f%%%s\n", r.strategy.c_str(),
                    r.score.points, r.score.stars, r.score.stars == 1 ? " " : "s", r.profit_usd, 100 * r.slo_attainment,
                    r.bankrupt ? "  bankrupt" : "");
      }
      std::fflush(stdout);
    }
    if (o->json) std::cout << all.dump(2) << "\n";
    if (o->markdown) std::cout << advisor::balance_markdown(tables);
    return kExitOk;
  };
}

}  // namespace tycoon::cli
