// The balance table: six ways to play a level, each scored by the game's own rules on the same
// seed, so a designer (and the README) can see that the score orders them as the lesson intends.
//   do-nothing          no command at all, no advisor
//   naive               the level's naive script (<strategies>/<id>/naive.jsonl), no advisor
//   accept-all          the reference strategy with the advisor attached, every proposal accepted
//                       unchecked
//   reject-all          the same, every proposal rejected
//   verify-then-decide  the same, each proposal checked (the cheaper of a benchmark and a canary)
//                       and decided on its verdict (game::evidence_call); minor ones rejected
//   reference           the level's reference strategy (Scenario::reference_strategy) with the
//                       advisor, taking its good proposals and rejecting the rest by the truth (the
//                       game's own comparison: game::counterfactual_plays)
// (The bots play on top of the reference so that every level, even one that starts with nothing
// deployed, has advice to judge: what differs between them is only how advice is handled.) In a
// level with an advisor, do-nothing and naive are scored as a player who ignores it:
// advice calls 0 of 10.
// The advisor bots need the advisor's levers: a level that locks accept_advice has no advisor and
// shows them as not applicable.
#pragma once

#include <array>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/advisor/code_change_catalog.h"
#include "sim/game/counterfactual.h"
#include "sim/game/scoring.h"

namespace tycoon::advisor {

inline constexpr std::array<std::string_view, 6> kBalanceStrategies = {
    "do-nothing", "naive", "accept-all", "reject-all", "verify-then-decide", "reference"};

struct BalanceRow {
  std::string strategy;
  bool applicable = true;
  std::string why_not;  // when not applicable
  double profit_usd = 0;
  double slo_attainment = 0;
  bool bankrupt = false;
  game::Score score;
};

struct BalanceTable {
  std::string scenario_id;
  std::string scenario_name;
  std::vector<BalanceRow> rows;  // in kBalanceStrategies order
  const BalanceRow* find(std::string_view strategy) const;
};

// Plays every strategy on `scenario` (its own seed and length). Throws data::LoadError for a
// naive script that cannot be read; a missing one makes the row not applicable.
BalanceTable balance_table(const game::Scenario& scenario, const data::Catalog& catalog,
                           const CodeChangeCatalog& changes, const std::filesystem::path& strategies_dir);

// One markdown table: a row per level, a column per strategy, "score ★★☆ ($profit)".
std::string balance_markdown(const std::vector<BalanceTable>& tables);
// The levels the balance tables cover (docs/playing.md's, the balance test's): every campaign and
// classroom scenario under `data_root`, campaign levels first, each kind in level order.
std::vector<game::Scenario> balanced_levels(const std::filesystem::path& data_root, const data::Catalog& catalog);
nlohmann::json to_json(const BalanceTable& t);

}  // namespace tycoon::advisor
