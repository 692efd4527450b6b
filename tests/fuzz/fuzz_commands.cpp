// libFuzzer target: command logs (JSON lines, `run --commands`, class submissions). A log that
// parses is replayed on a short game of the default scenario: every command is applied or
// refused with a reason, and the game runs to its end. Seeds: scenarios/strategies/*/*.jsonl.
//
// Cost per input (it was ~160 executions/s, each input replaying a whole game day): the game's
// hour 0 (scenario loaded, starting fleet deployed) is prepared once and each input resumes a
// copy of that state, the way a save resumes; the game lasts kHorizonHours, and the log's hours
// are folded into [0, kHorizonHours] in order (the k-th distinct hour becomes hour k, capped at
// the end), so a log stays one the parser accepts (hours never go back), every command is still
// applied or refused, commands sharing an hour still share it, and a log of more than
// kHorizonHours distinct hours still reaches the end, where its last commands must be refused.
#include <algorithm>

#include "sim/game/command.h"
#include "sim/game/game.h"
#include "sim/game/scenario.h"
#include "sim/game/serving_window.h"
#include "tests/fuzz/fuzz_common.h"

namespace {

constexpr std::int64_t kHorizonHours = 4;

struct Prepared {
  tycoon::game::Scenario scenario;
  tycoon::game::GameState start;  // hour 0, ending at kHorizonHours
  // One window cache for every execution: the same loads are simulated once.
  std::shared_ptr<tycoon::game::ServingWindows> windows = std::make_shared<tycoon::game::ServingWindows>();
};

const Prepared& prepared() {
  using namespace tycoon;
  static const Prepared p = [] {
    Prepared q;
    q.scenario =
        game::load_scenario(std::filesystem::path(TYCOON_SOURCE_DIR) / "scenarios/default.json", fuzz::catalog());
    game::Game g(q.scenario, fuzz::catalog(), game::GameOptions{std::nullopt, 1, std::nullopt, q.windows});
    q.start = g.state();
    q.start.end_hour = kHorizonHours;
    // The empty log's game, played once: its windows are cached before the first input.
    game::Game warm(q.scenario, q.start, fuzz::catalog(),
                    game::GameOptions{std::nullopt, std::nullopt, std::nullopt, q.windows});
    warm.run_to_end();
    return q;
  }();
  return p;
}

}  // namespace

// Preparing (the catalog, the scenario, the first hours' serving windows) takes seconds under the
// sanitizers: done here, before libFuzzer's per-input timeout runs, it is not taken for a hang.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  prepared();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tycoon;
  const Prepared& p = prepared();
  std::vector<game::LoggedCommand> log;
  try {
    log = game::parse_command_log(fuzz::as_text(data, size), "c.jsonl");
  } catch (const data::LoadError&) {
    return 0;
  }
  std::int64_t folded = -1, last = -1;
  for (auto& c : log) {  // the parser gives hours >= 0 that never go back
    if (c.at_hour != last) folded = std::min(folded + 1, kHorizonHours);
    last = c.at_hour;
    c.at_hour = folded;
  }
  game::Game g(p.scenario, p.start, fuzz::catalog(),
               game::GameOptions{std::nullopt, std::nullopt, std::nullopt, p.windows});
  const auto refused = game::replay(g, log);
  // It ends at its last hour, or earlier only when bankrupt.
  const auto& st = g.state();
  if (refused.size() > log.size() || !g.finished() || (st.hour != kHorizonHours && !st.company.bankrupt)) std::abort();
  return 0;
}
