// libFuzzer target: hardware cards — accelerators, engines, calibration profiles (the first byte
// picks the loader; the rest is the file). Seeds: hardware_db/.
#include "sim/data/accelerator.h"
#include "sim/data/engine.h"
#include "sim/perf/calibration_profile.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tycoon;
  if (size == 0) return 0;
  const auto text = fuzz::as_text(data + 1, size - 1);
  try {
    switch (data[0] % 3) {
      case 0:
        data::load_accelerator(fuzz::write_input("h200.json", text));
        break;
      case 1:
        data::load_engine(fuzz::write_input("vllm.json", text));
        break;
      case 2:
        perf::load_calibration_profile(fuzz::write_input("h200.cal.json", text));
        break;
    }
  } catch (const data::LoadError&) {
  }
  return 0;
}
