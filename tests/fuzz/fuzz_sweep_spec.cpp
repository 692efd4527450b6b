// libFuzzer target: sweep specs. A spec that parses is expanded against the catalog (every
// configuration resolved, the grid and its point hashes built) — all `sweep` does before it
// simulates. Seeds: scenarios/analyst/*.sweep.json.
#include "sim/analysis/sweep_spec.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tycoon;
  try {
    auto j = data::parse_json_text(fuzz::as_text(data, size), "s.sweep.json");
    auto spec = analysis::parse_sweep_spec(j, "s.sweep.json");
    analysis::expand_sweep(spec, fuzz::catalog());
  } catch (const data::LoadError&) {
  } catch (const data::UnknownIdError&) {
  }
  return 0;
}
