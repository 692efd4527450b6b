// libFuzzer target: request traces (JSON lines) for `benchmark --trace`. Seeds: a small trace
// scripts/fuzz.sh writes, and the repository's .jsonl files.
#include "sim/traffic/trace.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tycoon;
  try {
    traffic::parse_trace(fuzz::as_text(data, size), "t.jsonl");
  } catch (const data::LoadError&) {
  }
  return 0;
}
