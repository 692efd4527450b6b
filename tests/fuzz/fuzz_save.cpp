// libFuzzer target: saved games. The first byte picks the mode: odd, the bytes are a save file as
// is (most mutations then fail the checksum, as they should); even, the bytes are a payload that
// gets a correct checksum — what a tamperer who recomputes it hands in, so that the semantic
// checks after the checksum are what is fuzzed. A save that loads must resume (Game's constructor)
// and write a save that loads again. Seeds: written by this target (TYCOON_FUZZ_WRITE_SEEDS below).
#include <cstdlib>

#include "sim/game/command.h"
#include "sim/game/game.h"
#include "sim/game/save.h"
#include "sim/game/scenario.h"
#include "tests/fuzz/fuzz_common.h"

// TYCOON_FUZZ_WRITE_SEEDS=DIR: writes the seeds (a two-day default game after a few commands,
// saved at its end, in both modes) and exits.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  using namespace tycoon;
  const char* dir = std::getenv("TYCOON_FUZZ_WRITE_SEEDS");
  if (dir == nullptr) return 0;
  const auto& catalog = fuzz::catalog();
  auto scenario = game::load_scenario(std::filesystem::path(TYCOON_SOURCE_DIR) / "scenarios/default.json", catalog);
  game::Game g(scenario, catalog, game::GameOptions{std::nullopt, 2, std::nullopt, nullptr});
  game::replay(
      g, game::parse_command_log(
             "{\"at_hour\": 1, \"type\": \"rent_gpus\", \"chip\": \"h200\", \"contract\": \"on_demand\", \"num_gpus\": "
             "2}\n"
             "{\"at_hour\": 2, \"type\": \"set_prices\", \"model\": \"gpt-oss-120b\", \"output_usd_per_mtok\": 0.5}\n",
             "seed"));
  const std::string text = game::save_text(g);
  std::ofstream(std::filesystem::path(dir) / "save-file", std::ios::binary) << '\x01' << text;
  const auto j = data::parse_json_text(text, "seed");
  std::ofstream(std::filesystem::path(dir) / "save-payload", std::ios::binary) << '\x00' << j["payload"].dump(1);
  std::exit(0);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tycoon;
  if (size == 0) return 0;
  const auto& catalog = fuzz::catalog();
  std::string text(fuzz::as_text(data + 1, size - 1));
  try {
    if (data[0] % 2 == 0) {
      nlohmann::json payload;
      try {
        payload = data::parse_json_text(text, "payload");
      } catch (const data::LoadError&) {
        return 0;
      }
      text = nlohmann::json{{"format", "inference-tycoon-save"},
                            {"version", 1},
                            {"checksum", game::checksum_of(payload.dump())},
                            {"payload", payload}}
                 .dump();
    }
    auto save = game::load_save_text(text, "s.json", catalog);
    game::Game g(std::move(save.scenario), std::move(save.state), catalog);
    game::load_save_text(game::save_text(g), "resaved.json", catalog);
  } catch (const game::SaveError&) {
  } catch (const data::LoadError&) {
  }
  return 0;
}
