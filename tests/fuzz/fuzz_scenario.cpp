// libFuzzer target: scenario files. A scenario that loads must also write the resolved form that
// loads back to the same thing (scenario.h), and set up its first hour (Game's constructor).
// Seeds: scenarios/.
#include <cstdio>
#include <cstdlib>

#include "sim/game/game.h"
#include "sim/game/scenario.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tycoon;
  const auto& catalog = fuzz::catalog();
  try {
    auto j = data::parse_json_text(fuzz::as_text(data, size), "s.json");
    auto scenario = game::scenario_from_json(j, "s.json", catalog);
    auto written = game::to_json(scenario);
    auto again = game::to_json(game::scenario_from_json(written, "resolved", catalog));
    if (again != written) {
      std::fprintf(stderr, "scenario does not round-trip:\n%s\n%s\n", written.dump().c_str(), again.dump().c_str());
      std::abort();
    }
    game::Game g(std::move(scenario), catalog);
  } catch (const data::LoadError&) {
  } catch (const data::UnknownIdError&) {
  }
  return 0;
}
