// The build's identity as text and JSON; version() and commit() are in the generated
// build_info.cpp (cmake/build_info.cmake).
#include "sim/core/version.h"

namespace tycoon::core {

std::string version_line() { return std::string(version()) + " (commit " + std::string(commit()) + ")"; }

nlohmann::json build_json() { return {{"version", version()}, {"commit", commit()}}; }

}  // namespace tycoon::core
