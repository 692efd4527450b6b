// libFuzzer target: command logs (JSON lines, `run --commands`, class submissions). A log that
// parses is replayed on a one-day game of the default scenario: every command is applied or
// refused with a reason, and the game runs to its end. Seeds: scenarios/strategies/*/*.jsonl.
#include "sim/game/command.h"
#include "sim/game/game.h"
#include "sim/game/scenario.h"
#include "sim/game/serving_window.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tycoon;
  const auto& catalog = fuzz::catalog();
  static const game::Scenario scenario =
      game::load_scenario(std::filesystem::path(TYCOON_SOURCE_DIR) / "scenarios/default.json", catalog);
  // One window cache for every execution: the same loads are simulated once.
  static const game::GameOptions options{std::nullopt, 1, std::nullopt, std::make_shared<game::ServingWindows>()};
  std::vector<game::LoggedCommand> log;
  try {
    log = game::parse_command_log(fuzz::as_text(data, size), "c.jsonl");
  } catch (const data::LoadError&) {
    return 0;
  }
  game::Game g(scenario, catalog, options);
  const auto refused = game::replay(g, log);
  if (refused.size() > log.size() || !g.finished()) std::abort();
  return 0;
}
