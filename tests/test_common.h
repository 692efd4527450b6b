// What tests of every kind share: the bundled catalog (loaded once per process) and a substring
// check for messages. Test files are compiled in unity batches (CMakeLists.txt), so a helper
// two files need lives here once instead of in each file's anonymous namespace.
#pragma once

#include <string_view>

#include "sim/data/catalog.h"

namespace tycoon::test {

inline const data::Catalog& catalog() {
  static const data::Catalog c = data::load_catalog(TYCOON_SOURCE_DIR);
  return c;
}

inline bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

}  // namespace tycoon::test
