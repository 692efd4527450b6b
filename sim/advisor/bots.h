// Scripted players for the advisor: accept everything, reject everything, or pay for an
// end-to-end check (a CheckAdvice command, charged to cash and logged: the cheaper of a benchmark
// and a canary) and decide on its verdict (minor proposals rejected unchecked: not worth a check).
// Used by the tests, the balance table and analysts to show that checking pays.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string_view>

#include "sim/advisor/advisor.h"
#include "sim/game/game.h"

namespace tycoon::advisor {

enum class BotPolicy { kAcceptAll, kRejectAll, kVerifyThenDecide };
inline constexpr std::array<std::string_view, 3> kBotPolicyNames = {"accept-all", "reject-all", "verify-then-decide"};
inline std::string_view to_string(BotPolicy p) { return kBotPolicyNames[static_cast<std::size_t>(p)]; }

struct BotOptions {
  // verify-then-decide decides by the game's one rule (game::evidence_call on the check's
  // verdict). A benchmark whose interval holds both "no gain" and a material gain is repeated
  // once with this many paired runs, a canary with this many hours in all, when what the change
  // is most likely worth pays for the longer check.
  int more_repetitions = kLongerBenchmarkRepetitions;
  int more_canary_hours = kLongerCanaryHours;
  // A scripted player the bot plays on top of (commands applied at their hours before the bot
  // decides): the level's reference strategy in the balance table. Null: the bot does nothing else.
  const std::vector<game::LoggedCommand>* script = nullptr;
};

struct BotResult {
  double profit_usd = 0;  // the game's: final cash − starting cash (checks were paid from cash)
  double checks_usd = 0;  // of which paid for checks
  double net_profit_usd() const { return profit_usd; }
  Debrief debrief;
  std::shared_ptr<Chien> advisor;
  game::GameState final_state;
};

// Plays `game` to its end with `policy`, deciding every pending proposal at each hour boundary.
BotResult play_bot(game::Game& game, const std::shared_ptr<Chien>& advisor, BotPolicy policy,
                   const BotOptions& options = {});

}  // namespace tycoon::advisor
