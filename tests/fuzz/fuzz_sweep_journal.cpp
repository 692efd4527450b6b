// libFuzzer target: a sweep's resume journal (`<out>/points.jsonl`), read against the expanded
// grid of scenarios/analyst/price-for-40pct-margin.sweep.json. Seeds: the journal of the grid's
// first two points, simulated by this target (TYCOON_FUZZ_WRITE_SEEDS below).
#include <cstdlib>

#include "sim/analysis/sweep_journal.h"
#include "sim/analysis/sweep_run.h"
#include "tests/fuzz/fuzz_common.h"

namespace {
const tycoon::analysis::SweepSpec& spec() {
  static const auto s = tycoon::analysis::load_sweep_spec(std::filesystem::path(TYCOON_SOURCE_DIR) /
                                                          "scenarios/analyst/price-for-40pct-margin.sweep.json");
  return s;
}
const tycoon::analysis::ExpandedSweep& sweep() {
  static const auto s = tycoon::analysis::expand_sweep(spec(), tycoon::fuzz::catalog());
  return s;
}
}  // namespace

// TYCOON_FUZZ_WRITE_SEEDS=DIR: simulates the sweep's first two points, writes their journal (and
// one cut off mid-line) and exits.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  using namespace tycoon;
  const char* dir = std::getenv("TYCOON_FUZZ_WRITE_SEEDS");
  if (dir == nullptr) return 0;
  const auto calibrations = analysis::calibrations_for(sweep(), fuzz::catalog());
  std::string text;
  for (std::size_t i = 0; i < 2; ++i) {
    const auto perf = analysis::run_point(sweep(), spec(), sweep().points[i], calibrations);
    text += nlohmann::json{{"hash", sweep().points[i].hash}, {"perf", perf.to_json()}}.dump() + "\n";
  }
  std::ofstream(std::filesystem::path(dir) / "journal", std::ios::binary) << text;
  std::ofstream(std::filesystem::path(dir) / "journal-torn", std::ios::binary) << text.substr(0, text.size() - 30);
  std::exit(0);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tycoon;
  try {
    analysis::parse_sweep_journal(fuzz::as_text(data, size), "points.jsonl", sweep(), spec());
  } catch (const data::LoadError&) {
  }
  return 0;
}
