// libFuzzer target: model cards and recipes (the first byte picks the loader; the rest is the
// file). Seeds: models/, models/recipes/.
#include "sim/data/model_card.h"
#include "sim/data/recipe.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tycoon;
  if (size == 0) return 0;
  const auto text = fuzz::as_text(data + 1, size - 1);
  try {
    if (data[0] % 2 == 0) {
      data::load_model_card(fuzz::write_input("llama.json", text), false);
    } else {
      data::load_recipe(fuzz::write_input("m__h200.json", text));
    }
  } catch (const data::LoadError&) {
  }
  return 0;
}
