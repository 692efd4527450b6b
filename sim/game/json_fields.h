// Field readers and writers shared by the game's JSON files: scenarios (scenario_load.cpp) and
// saves (state_json.cpp, advice_json.cpp), so a field reads with the same bounds in both.
#pragma once

#include <array>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

#include <boost/random/mersenne_twister.hpp>

#include "sim/data/json_reader.h"
#include "sim/econ/prices.h"

namespace tycoon::game {

// An integer field that fits an int: at most `max`.
inline int read_int(data::ObjectReader& in, std::string_view key, data::Bound bound, std::int64_t max = 1'000'000'000) {
  auto v = in.integer(key, bound);
  if (v > max) in.fail(key, "must be at most " + std::to_string(max));
  return static_cast<int>(v);
}

template <typename E, std::size_t N>
E read_enum(data::ObjectReader& in, std::string_view key, const std::array<std::string_view, N>& names) {
  return static_cast<E>(in.choice(key, names));
}

// Token prices per million tokens, none negative (the caller finishes the object).
inline econ::TokenPrices read_prices(data::ObjectReader& in) {
  econ::TokenPrices p;
  p.input_usd_per_mtok = in.number("input_usd_per_mtok", data::Bound::kNonNegative);
  p.cached_input_usd_per_mtok = in.number("cached_input_usd_per_mtok", data::Bound::kNonNegative);
  p.output_usd_per_mtok = in.number("output_usd_per_mtok", data::Bound::kNonNegative);
  return p;
}

// A random stream's full state as text (Boost's own serialization).
inline std::string rng_text(const boost::random::mt19937_64& r) {
  std::ostringstream os;
  os << r;
  return os.str();
}

inline void read_rng(data::ObjectReader& in, std::string_view key, boost::random::mt19937_64& r) {
  // Boost's reader sets failbit at the end of the text even on success: check by writing it back.
  std::string text = in.string(key);
  std::istringstream is(text);
  is >> r;
  if (rng_text(r) != text) in.fail(key, "not a random stream state");
}

}  // namespace tycoon::game
