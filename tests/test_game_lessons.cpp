// Lessons are found by playing: every campaign level and classroom scenario asks a
// question in play and answers it in the debrief, and no text a player reads points at documents
// they cannot open ("seed 000", "blooper 1", "section 9.1"): sources live in lesson_source.
#include <doctest/doctest.h>

#include <filesystem>
#include <regex>

#include "tests/game_test_util.h"

using namespace tycoon;

TEST_CASE("campaign and classroom scenarios ask a question and keep internal references out of play") {
  const std::regex internal(R"((seed 000|blooper|section [0-9]))", std::regex::icase);
  int checked = 0;
  for (const char* dir : {"campaign", "classroom"}) {
    for (const auto& f :
         std::filesystem::directory_iterator(std::filesystem::path(TYCOON_SOURCE_DIR) / "scenarios" / dir)) {
      if (f.path().extension() != ".json") continue;
      CAPTURE(f.path().string());
      const auto s = game::load_scenario(f.path(), test::catalog());
      CHECK(!s.question.empty());
      CHECK(s.question.back() == '?');  // asked, not told
      CHECK(!s.lesson.empty());         // the debrief's answer
      std::vector<std::string> shown = {s.name, s.question, s.lesson, s.briefing};
      for (const auto& h : s.hints) shown.push_back(h.text);
      for (const auto& e : s.events) shown.push_back(e.news);
      for (const auto& text : shown) {
        CAPTURE(text);
        CHECK(!std::regex_search(text, internal));
      }
      ++checked;
    }
  }
  CHECK(checked == 10);  // six campaign levels, four classroom scenarios
}
