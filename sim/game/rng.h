// Seeding and drawing for the game's random streams (demand noise, spot interruptions). The game
// keeps raw boost::random::mt19937_64 engines in its state so that saves can hold their exact
// state; draws use the raw 64-bit output as sim/core/rng.h does (never <random> distributions,
// which differ between standard libraries).
#pragma once

#include <cstdint>
#include <string_view>

#include <boost/random/mersenne_twister.hpp>

#include "sim/core/rng.h"

namespace tycoon::game {

// The largest seed a game takes: under 2^53, so that a seed survives every place it travels as a
// number (a save read by the browser's JavaScript, a class link). Game's constructor refuses more;
// the front ends' seed inputs check the same bound.
inline constexpr std::uint64_t kMaxGameSeed = 9'000'000'000'000'000;

// A stream's seed: the scenario seed combined with a hash of the purpose's name.
inline std::uint64_t derive_seed(std::uint64_t seed, std::string_view purpose) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : purpose) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return core::hash_combine(seed, h);
}

// Uniform in [0, 1) with 53 random bits.
inline double uniform01(boost::random::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

}  // namespace tycoon::game
