// The advisor's persona. Chien is named after Chien-Shiung Wu, the experimental physicist whose
// careful measurement overturned what everyone assumed was true (parity conservation, 1956): an
// advisor that proposes boldly and asks to be checked.
#pragma once

#include <string_view>

namespace tycoon::advisor {

inline constexpr std::string_view kPersonaName = "Chien";
inline constexpr std::string_view kPersonaRole = "optimization advisor";
inline constexpr std::string_view kPersonaMotto =
    "I profile where your time goes, propose changes, and ask you to check me: a faster kernel is not a faster "
    "engine.";

}  // namespace tycoon::advisor
