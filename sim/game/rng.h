// Seeding and drawing for the game's random streams. One boost::random::mt19937_64 per purpose;
// draws use the raw 64-bit output (never <random> distributions, which differ between standard
// libraries).
#pragma once

#include <cstdint>
#include <string_view>

#include <boost/random/mersenne_twister.hpp>

namespace tycoon::game {

// A stream's seed: the scenario seed mixed with the purpose's name (splitmix64 finaliser).
inline std::uint64_t derive_seed(std::uint64_t seed, std::string_view purpose) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : purpose) {
    h ^= c;
    h *= 1099511628211ull;
  }
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ull * (h | 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Uniform in [0, 1) with 53 random bits.
inline double uniform01(boost::random::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

}  // namespace tycoon::game
