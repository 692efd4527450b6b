// The build's identity, so that a result (a save, a class report, a sweep summary, a run's summary)
// can be traced to the build that made it: the project's version (CMakeLists.txt's project VERSION)
// and the git commit of the source tree at build time. Both come from one generated file
// (cmake/build_info.cmake), so a new commit recompiles that file only.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace tycoon::core {

// The project's version, "MAJOR.MINOR.PATCH" ("0.13.0").
std::string_view version();

// `git describe --always --long --dirty` of the source tree when it was built: the abbreviated
// hash ("6c51811"; "v1.0-3-g6c51811" once tags exist), "-dirty" appended when tracked files
// differed from that commit; "unknown" when built without git.
std::string_view commit();

// "0.13.0 (commit 6c51811)": what `tycoon --version` prints and the start screen shows.
std::string version_line();

// {"version": "0.13.0", "commit": "6c51811"}: the "written_by" field of saves, reports and summaries.
// Informative only: nothing reads it back, and a file written by another build loads the same.
nlohmann::json build_json();

// The key under which build_json() is recorded in the files the program writes; it sorts after
// "version", so a save still reads format, checksum, payload, version first.
inline constexpr std::string_view kWrittenByKey = "written_by";

}  // namespace tycoon::core
