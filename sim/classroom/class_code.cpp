#include "sim/classroom/class_code.h"

#include <algorithm>
#include <cctype>

#include "sim/game/rng.h"

namespace tycoon::classroom {

std::uint64_t seed_from_code(const std::string& code) {
  std::string trimmed;
  for (char c : code) {
    if (!std::isspace(static_cast<unsigned char>(c))) {
      trimmed += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
  }
  if (!trimmed.empty() && trimmed.size() <= 15 &&
      std::all_of(trimmed.begin(), trimmed.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
    return std::stoull(trimmed);
  }
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a 64's offset basis
  for (unsigned char c : trimmed) {
    h ^= c;
    h *= 1099511628211ull;  // FNV-1a 64's prime
  }
  return h % (game::kMaxGameSeed + 1);
}

}  // namespace tycoon::classroom
