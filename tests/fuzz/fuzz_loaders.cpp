// libFuzzer target: arbitrary bytes through every catalog loader and the trace parser must give
// a value or a LoadError — never a crash, hang or other exception. The strict JSON parser under
// them all (duplicate keys, nesting deeper than kMaxJsonDepth) is fuzzed through each.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/data/accelerator.h"
#include "sim/data/engine.h"
#include "sim/data/json_reader.h"
#include "sim/data/model_card.h"
#include "sim/data/recipe.h"
#include "sim/perf/calibration_profile.h"
#include "sim/traffic/trace.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  // The first byte picks the loader; the rest is the file.
  static const std::filesystem::path dir = std::filesystem::temp_directory_path() / "tycoon-fuzz";
  static const bool made = std::filesystem::create_directories(dir) || true;
  (void)made;
  constexpr int kNumInputs = 6;
  const char* names[kNumInputs] = {"h200.json", "vllm.json", "llama.json", "m__h200.json", "h200.cal.json", "t.jsonl"};
  auto path = dir / names[data[0] % kNumInputs];
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data + 1), static_cast<std::streamsize>(size - 1));
  }
  try {
    switch (data[0] % kNumInputs) {
      case 0:
        tycoon::data::load_accelerator(path);
        break;
      case 1:
        tycoon::data::load_engine(path);
        break;
      case 2:
        tycoon::data::load_model_card(path, false);
        break;
      case 3:
        tycoon::data::load_recipe(path);
        break;
      case 4:
        tycoon::perf::load_calibration_profile(path);
        break;
      case 5:
        tycoon::traffic::load_trace(path);
        break;
    }
  } catch (const tycoon::data::LoadError&) {
  }
  return 0;
}
