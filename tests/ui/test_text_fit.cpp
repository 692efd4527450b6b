// The text-fit check (ui/text_fit.h) on frames built headlessly: each kind of problem it names is
// produced on purpose and must be found, and the same labels given room must pass. This is what
// makes the screenshot runs' "0 problems" mean something: the check can fail.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>

#include <imgui.h>

#include "tests/ui/headless_imgui.h"
#include "ui/text_fit.h"
#include "ui/widgets.h"

namespace {

using tycoon::ui::FitProblem;
using tycoon::ui::FitProblemKind;

// An ImGui context with the game's font (or ImGui's own) and a built atlas, no renderer.
struct Headless {
  tycoon::ui_test::HeadlessImGui imgui;  // the ImGui context the frames draw into

  // Draws `body` inside a fixed 600x500 window for a few frames (windows settle their sizes on
  // the second) and returns the check's findings on the last.
  std::vector<FitProblem> run(const std::function<void()>& body) {
    std::vector<FitProblem> found;
    for (int frame = 0; frame < 3; ++frame) {
      ImGui::NewFrame();
      ImGui::SetNextWindowPos(ImVec2(0, 0));
      ImGui::SetNextWindowSize(ImVec2(600, 500));
      ImGui::Begin("##test", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoSavedSettings);
      body();
      ImGui::End();
      ImGui::Render();
      found = tycoon::ui::check_text_fit();
    }
    return found;
  }
};

std::size_t count(const std::vector<FitProblem>& ps, FitProblemKind k) {
  return static_cast<std::size_t>(
      std::count_if(ps.begin(), ps.end(), [&](const FitProblem& p) { return p.kind == k; }));
}

std::string all(const std::vector<FitProblem>& ps) {
  std::string s;
  for (const auto& p : ps) s += tycoon::ui::describe(p) + "\n";
  return s;
}

const char* kLong = "Failed (queue full, timeout)";

}  // namespace

TEST_CASE("a label wider than its child window is found, wherever its edge falls") {
  Headless h;
  SUBCASE("100 to 140 px: the label needs about 200 px") {
    // At some widths the edge crosses a glyph (found as cut), at others it falls between two
    // glyphs and ImGui drops the rest (found by the window's overflow): every width is found.
    for (float width = 100; width <= 140; width += 1) {
      auto ps = h.run([&] {
        ImGui::BeginChild("narrow", ImVec2(width, 60), true);
        ImGui::TextUnformatted(kLong);
        ImGui::EndChild();
      });
      INFO("width " << width << "\n" << all(ps));
      CHECK(count(ps, FitProblemKind::kOverflow) == 1);
      for (const auto& p : ps) {
        CHECK(p.window.find("narrow") != std::string::npos);
        if (p.kind == FitProblemKind::kCut) CHECK(p.text.rfind("Failed (queue", 0) == 0);  // what shows: its start
      }
    }
  }
  SUBCASE("115 px: the edge crosses a glyph, so the label is found cut too") {
    auto ps = h.run([] {
      ImGui::BeginChild("narrow", ImVec2(115, 60), true);
      ImGui::TextUnformatted(kLong);
      ImGui::EndChild();
    });
    INFO(all(ps));
    CHECK(count(ps, FitProblemKind::kCut) == 1);
  }
  SUBCASE("400 px: nothing to report") {
    auto ps = h.run([] {
      ImGui::BeginChild("wide", ImVec2(400, 60), true);
      ImGui::TextUnformatted(kLong);
      ImGui::EndChild();
    });
    INFO(all(ps));
    CHECK(ps.empty());
  }
}

TEST_CASE("a table cell or header wider than its column is found") {
  Headless h;
  auto table = [](float width) {
    return [width] {
      ImGui::BeginChild("t", ImVec2(width, 120), false);
      if (ImGui::BeginTable("preview", 2, ImGuiTableFlags_SizingStretchProp)) {
        ImGui::TableSetupColumn("Metric", ImGuiTableColumnFlags_WidthStretch, 1.3f);
        ImGui::TableSetupColumn("Lead time and term", ImGuiTableColumnFlags_WidthStretch, 1.0f);
        ImGui::TableHeadersRow();
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(kLong);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted("0.0%");
        ImGui::EndTable();
      }
      ImGui::EndChild();
    };
  };
  auto narrow = h.run(table(260));
  INFO(all(narrow));
  const auto cells = std::count_if(narrow.begin(), narrow.end(), [](const FitProblem& p) {
    return p.kind == FitProblemKind::kCut && p.text == "a cell of column 'Metric'";
  });
  const auto headers = std::count_if(narrow.begin(), narrow.end(), [](const FitProblem& p) {
    return p.kind == FitProblemKind::kCut && p.text == "header 'Lead time and term'";
  });
  CHECK(cells == 1);
  CHECK(headers == 1);
  auto wide = h.run(table(560));
  INFO(all(wide));
  CHECK(wide.empty());
}

TEST_CASE("a button label longer than its button is found cut (ImGui clips it on the CPU)") {
  Headless h;
  auto ps = h.run([] { ImGui::Button("Deploy three replicas", ImVec2(70, 0)); });
  INFO(all(ps));
  CHECK(count(ps, FitProblemKind::kCut) == 1);
  auto ok = h.run([] { ImGui::Button("Deploy three replicas"); });
  INFO(all(ok));
  CHECK(ok.empty());
}

TEST_CASE("tabs squeezed below their labels' width are found") {
  Headless h;
  auto tabs = [](float width) {
    return [width] {
      ImGui::BeginChild("bar", ImVec2(width, 80), false);
      if (ImGui::BeginTabBar("##tabs")) {
        for (const char* t : {"Dashboard", "GPU market", "Deployments", "Pricing", "Advisor (3)"}) {
          if (ImGui::BeginTabItem(t)) ImGui::EndTabItem();
        }
        ImGui::EndTabBar();
      }
      ImGui::EndChild();
    };
  };
  // Five labels of about 60-95 px plus padding need some 450 px.
  auto squeezed = h.run(tabs(250));
  INFO(all(squeezed));
  CHECK(count(squeezed, FitProblemKind::kTabSqueezed) >= 3);
  auto roomy = h.run(tabs(580));
  INFO(all(roomy));
  CHECK(roomy.empty());
}

TEST_CASE("two labels drawn over each other are found") {
  Headless h;
  auto ps = h.run([] {
    ImGui::SetCursorPos(ImVec2(20, 20));
    ImGui::TextUnformatted("Gross margin, 24 h");
    ImGui::SetCursorPos(ImVec2(40, 20));
    ImGui::TextUnformatted("Time");
  });
  INFO(all(ps));
  CHECK(count(ps, FitProblemKind::kOverlap) == 1);
}

TEST_CASE("a child that cannot scroll and holds more lines than it shows is found") {
  Headless h;
  auto ps = h.run([] {
    ImGui::BeginChild("card", ImVec2(200, 40), true, ImGuiWindowFlags_NoScrollbar);
    for (int i = 0; i < 6; ++i) ImGui::Text("line %d", i);
    ImGui::EndChild();
  });
  INFO(all(ps));
  CHECK(count(ps, FitProblemKind::kOverflow) == 1);
}

TEST_CASE("word wrap inside a number is found; ui::text_wrapped keeps numbers whole") {
  Headless h;
  const char* text = "Contract 1: 1 x h200 on_demand at $3.50/GPU-hour, serving from hour 0";
  // Room for the text up to "$3." but not "$3.50/GPU-hour,": ImGui breaks after the "." .
  auto wrap_x = [] {
    return ImGui::GetCursorPosX() + ImGui::CalcTextSize("Contract 1: 1 x h200 on_demand at $3.").x + 4;
  };
  auto ps = h.run([&] {
    ImGui::PushTextWrapPos(wrap_x());
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
  });
  INFO(all(ps));
  CHECK(count(ps, FitProblemKind::kNumberWrap) == 1);
  auto ok = h.run([&] {
    ImGui::PushTextWrapPos(wrap_x());
    tycoon::ui::text_wrapped(text);
    ImGui::PopTextWrapPos();
  });
  INFO(all(ok));
  CHECK(ok.empty());
}

TEST_CASE("a new table is settling until ImGui has sized its auto-fit columns; screenshots wait for it") {
  // The deploy form's preview: a fixed column as wide as its longest name, then stretch columns.
  // ImGui gives an auto-fit column its content width over the table's first three frames, so a
  // screenshot on the frame the table appears (a preview result arriving late on a busy machine)
  // can show that column a few pixels wide: the game's screenshot runs hold a shot while
  // layout_settling() says so.
  tycoon::ui_test::HeadlessImGui imgui;
  auto frame = [&](bool with_table) {
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(600, 500));
    ImGui::Begin("##test", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoSavedSettings);
    if (with_table && ImGui::BeginTable("preview", 2, ImGuiTableFlags_SizingStretchProp)) {
      ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed);
      ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch, 1.0f);
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted("Decode throughput per GPU");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted("1,234 tok/s");
      ImGui::EndTable();
    }
    ImGui::End();
    ImGui::Render();
    return tycoon::ui::layout_settling();
  };
  // The window itself settles first (its size is set, so at most a frame or two).
  int guard = 0;
  while (frame(false) && guard < 10) ++guard;
  REQUIRE(guard < 10);
  CHECK_FALSE(frame(false));

  CHECK(frame(true));
  INFO("first frame: " << all(tycoon::ui::check_text_fit()));
  int frames = 1;
  while (frame(true) && frames < 10) ++frames;
  INFO("frames settling: " << frames);
  CHECK(frames <= 4);
  CHECK_FALSE(frame(true));
  CHECK(tycoon::ui::check_text_fit().empty());
}
