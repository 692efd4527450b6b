// The text-fit check: after ImGui::Render(), finds every label the frame shows cut short, squeezed
// or drawn over another label. It reads what was really drawn (the glyph quads in the draw lists,
// recognised by their place in the font atlas) and ImGui's own bookkeeping (windows, tab bars),
// so it covers every panel without the panels' help, including text drawn straight onto draw
// lists (charts, cards). Tests run it on each screenshot frame at several window sizes
// (tests/ui/ui_test.sh with --check-text-fit; the browser's tycoon.textFit()).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tycoon::ui {

enum class FitProblemKind {
  kCut,          // a glyph is cut by its clip rectangle (window, table cell, button frame, chart)
  kTabSqueezed,  // a tab is narrower than its label (ImGui shortens it with "...")
  kOverflow,     // a window's items reach past its right edge (or its bottom, when it cannot scroll)
  kOverlap,      // two labels of one window are drawn over each other
  kNumberWrap,   // word wrap broke a line inside a number ("$3." / "50/GPU-hour")
};
const char* to_string(FitProblemKind k);

struct FitProblem {
  FitProblemKind kind = FitProblemKind::kCut;
  std::string text;                      // the label as drawn (rebuilt from its glyphs; may lack spaces' exact count)
  std::string window;                    // the ImGui window that drew it
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // screen rectangle of the label, px
  float excess_px = 0;                   // how far it reaches past its room (cut, squeezed, overflow)
};

// Every text-fit problem of the frame last rendered: call after ImGui::Render() and before the
// next NewFrame(). Returns an empty list when the frame has no draw data.
std::vector<FitProblem> check_text_fit();

// True while the frame last built is still laying itself out: a table drawn in it is sizing its
// auto-fit columns (ImGui gives a new table's columns their content width over its first three
// frames; before that a column can be a few pixels wide), or a window appears in it. A screenshot or a text-fit check
// of such a frame shows a layout no player sees for more than a frame or two. Call after ImGui::Render().
bool layout_settling();

// "cut: 'queue full, timeou' in ##main/##content at (412,530), 14 px past its room".
std::string describe(const FitProblem& p);

// Problems known and owned elsewhere, tolerated by the tests until fixed: one per line,
// "kind|part of the window name|start of the text", '#' starts a comment (the reason and owner).
// A problem matches an entry when its kind is equal, its window name contains the part and its
// text starts with the start (empty parts match anything).
struct KnownFitProblem {
  std::string kind, window_part, text_start, line;
};
std::vector<KnownFitProblem> parse_known_fit_problems(const std::string& text);
const KnownFitProblem* find_known(const std::vector<KnownFitProblem>& known, const FitProblem& p);
nlohmann::json to_json(const std::vector<FitProblem>& problems);

}  // namespace tycoon::ui
