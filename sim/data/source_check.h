// Every number that comes from outside carries its source: helpers that enforce it.
#pragma once

#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sim/data/json_reader.h"

namespace tycoon::data {

// Reads the `sources` object (key -> non-empty text) and requires an entry for each of `required`.
std::map<std::string, std::string> read_sources(ObjectReader& r, std::initializer_list<std::string_view> required);

// Each name in `unverified` must be a key of the object (or a dotted path into it); catches typos.
void check_unverified_keys(const ObjectReader& r, const std::vector<std::string>& unverified);

}  // namespace tycoon::data
