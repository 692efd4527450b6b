// A class code typed on the start screen's "Classroom" box: the world it opens. Every front end
// maps a code to a seed by this one rule, so the same code is the same world for every student.
#pragma once

#include <cstdint>
#include <string>

namespace tycoon::classroom {

// Blanks dropped and letters upper-cased; then a code of at most 15 digits is the seed itself
// ("2026" plays seed 2026, as a class file's seed), and any other code is hashed (FNV-1a 64)
// into [0, game::kMaxGameSeed], a seed every game takes.
std::uint64_t seed_from_code(const std::string& code);

}  // namespace tycoon::classroom
