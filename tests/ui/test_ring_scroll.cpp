// The tutorial's ring scrolls the control it rings into view (ui/automation.h,
// WidgetTags::want_visible): on frames built headlessly, a control below the fold of a scrolling
// child shows whole from the frame after it was first drawn; a control already in view, or one
// the player scrolled away from after that, is not scrolled.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include <imgui.h>

#include "tests/ui/headless_imgui.h"
#include "ui/automation.h"

namespace {

using tycoon::ui::TaggedRect;
using tycoon::ui::WidgetTags;

// A form as the deploy form is at 1024x640: 30 rows in a child 200 px high, its submit button last.
struct Form {
  WidgetTags tags;
  TaggedRect child;  // the child's rectangle on screen, px
  float scroll_y = 0;

  tycoon::ui_test::HeadlessImGui imgui;  // the ImGui context the frames draw into

  // One frame; `scroll_to_top` scrolls the child as a player's wheel would.
  void frame(bool scroll_to_top = false) {
    tags.clear();
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(600, 500));
    ImGui::Begin("##test", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoSavedSettings);
    ImGui::BeginChild("form", ImVec2(300, 200), false);
    if (scroll_to_top) ImGui::SetScrollY(0);
    const ImVec2 p = ImGui::GetWindowPos(), s = ImGui::GetWindowSize();
    child = TaggedRect{p.x, p.y, p.x + s.x, p.y + s.y};
    scroll_y = ImGui::GetScrollY();
    for (int i = 0; i < 30; ++i) {
      ImGui::Button(("row " + std::to_string(i)).c_str());
      tycoon::ui::tag(tags, "form.row." + std::to_string(i));
    }
    ImGui::Button("Deploy");
    tycoon::ui::tag(tags, "form.submit");
    ImGui::EndChild();
    ImGui::End();
    ImGui::Render();
  }
};

}  // namespace

TEST_CASE("the ringed control below the fold of its window shows whole from the next frame") {
  Form f;
  f.tags.want_visible("form.submit");
  f.frame();
  // 31 rows of about 25 px in a 200 px child: the button is drawn some 550 px below its fold.
  CHECK(f.tags.find("form.submit") == nullptr);
  f.frame();
  const TaggedRect* r = f.tags.find("form.submit");
  REQUIRE(r != nullptr);
  CHECK(r->y0 >= f.child.y0);
  CHECK(r->y1 <= f.child.y1);
  // Scrolled to the middle of the view, or as far as the child scrolls (the button is last).
  CHECK(f.scroll_y > 300);

  SUBCASE("once: the player's own scrolling afterwards wins") {
    f.frame(true);
    f.frame();
    f.frame();
    CHECK(f.scroll_y == 0);
    CHECK(f.tags.find("form.submit") == nullptr);
  }
  SUBCASE("a control in view is left where it is; a new target is scrolled to; '.' ends a prefix") {
    f.frame(true);
    f.frame();
    REQUIRE(f.scroll_y == 0);
    f.tags.want_visible("form.row.");  // row 0 is the first drawn that matches, and it is in view
    f.frame();
    f.frame();
    CHECK(f.scroll_y == 0);
    f.tags.want_visible("form.row.29");  // below the fold
    f.frame();
    f.frame();
    CHECK(f.scroll_y > 0);
    CHECK(f.tags.find("form.row.29") != nullptr);
  }
}

TEST_CASE("nothing is scrolled without a ringed control") {
  Form f;
  f.frame();
  f.frame();
  CHECK(f.scroll_y == 0);
  CHECK(f.tags.find("form.row.0") != nullptr);
  CHECK(f.tags.find("form.submit") == nullptr);
}
