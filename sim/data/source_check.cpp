#include "sim/data/source_check.h"

#include <algorithm>

namespace tycoon::data {

std::map<std::string, std::string> read_sources(ObjectReader& r, std::initializer_list<std::string_view> required) {
  auto s = r.object("sources");
  std::map<std::string, std::string> out;
  for (const auto& key : s.keys()) {
    auto text = s.string(key);
    if (text.empty()) s.fail(key, "a source must not be empty");
    out[key] = text;
  }
  for (auto key : required) {
    if (!out.contains(std::string(key))) {
      r.fail("sources", "no source given for '" + std::string(key) + "'");
    }
  }
  s.finish();
  return out;
}

void check_unverified_keys(const ObjectReader& r, const std::vector<std::string>& unverified) {
  auto keys = r.keys();
  for (std::size_t i = 0; i < unverified.size(); ++i) {
    std::string head = unverified[i].substr(0, unverified[i].find_first_of("./"));
    if (std::find(keys.begin(), keys.end(), head) == keys.end()) {
      throw LoadError(r.file(), r.pointer_to("unverified") + "/" + std::to_string(i),
                      "'" + unverified[i] + "' is not a key of this file");
    }
  }
}

}  // namespace tycoon::data
