// The house's floors (docs/architecture.md, "Rooms, floors and the one path a deployment takes"):
// every include between rooms points down a floor. A room that includes one on its own floor or
// above would let a rule drift upward into a front end, or make two rooms depend on each other.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

namespace {

// Rooms by floor, lowest first. A new room gets a floor here and a row in docs/architecture.md.
const std::map<std::string, int>& floors() {
  static const std::map<std::string, int> f = {
      {"sim/core", 1},      {"sim/data", 2},    {"sim/perf", 3}, {"sim/traffic", 3},  {"sim/econ", 3},
      {"sim/metrics", 3},   {"sim/serving", 4}, {"sim/game", 5}, {"sim/analysis", 5}, {"sim/advisor", 6},
      {"sim/classroom", 7}, {"server", 8},      {"ui", 8},       {"cli", 9},          {"web", 9},
  };
  return f;
}

// "sim/game/game.h" -> "sim/game"; "ui/desktop/main.cpp" -> "ui".
std::string room_of(const std::string& path) {
  const auto slash = path.find('/');
  if (path.compare(0, 4, "sim/") == 0) return path.substr(0, path.find('/', slash + 1));
  return path.substr(0, slash);
}

}  // namespace

TEST_CASE("every include between rooms points down a floor") {
  namespace fs = std::filesystem;
  const fs::path root = TYCOON_SOURCE_DIR;
  const std::regex include_line(R"re(^\s*#\s*include\s+"((sim/[a-z_]+|server|cli|ui|web)/[^"]+)")re");
  std::vector<std::string> wrong;
  int files = 0;
  for (const char* top : {"sim", "server", "cli", "ui", "web"}) {
    for (const auto& e : fs::recursive_directory_iterator(root / top)) {
      const auto ext = e.path().extension();
      if (!e.is_regular_file() || (ext != ".h" && ext != ".cpp")) continue;
      const std::string rel = fs::relative(e.path(), root).generic_string();
      const std::string from = room_of(rel);
      REQUIRE_MESSAGE(floors().count(from), rel << ": room " << from << " has no floor");
      ++files;
      std::ifstream in(e.path());
      std::string line;
      std::smatch m;
      while (std::getline(in, line)) {
        if (!std::regex_search(line, m, include_line)) continue;
        const std::string to = room_of(m[1].str());
        if (to == from) continue;
        auto it = floors().find(to);
        if (it == floors().end() || it->second >= floors().at(from)) wrong.push_back(rel + " includes " + m[1].str());
      }
    }
  }
  CHECK(files > 200);  // the walk found the sources (259 in December 2026)
  for (const auto& w : wrong) INFO(w);
  CHECK_MESSAGE(wrong.empty(), wrong.size() << " includes point up or sideways; the first: "
                                            << (wrong.empty() ? std::string() : wrong.front()));
}
