// sim/ is the headless library: nothing in it may include ImGui, SFML, GLFW or Emscripten
// (DESIGN.md "Layout", STYLE.md point 1).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

TEST_CASE("sim/ includes no UI or platform header") {
  const std::regex forbidden(R"(#\s*include\s*[<"](imgui|SFML/|GLFW/|emscripten|GL/|SDL))");
  int files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(std::string(TYCOON_SOURCE_DIR) + "/sim")) {
    if (!e.is_regular_file()) continue;
    auto ext = e.path().extension();
    if (ext != ".h" && ext != ".cpp") continue;
    ++files;
    std::ifstream in(e.path());
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
      ++n;
      INFO(e.path().string() << ":" << n << ": " << line);
      CHECK_FALSE(std::regex_search(line, forbidden));
    }
  }
  // Guard against the test passing on an empty or moved tree.
  CHECK(files > 10);
}
