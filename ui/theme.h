// The game's look: one palette, one style, fonts by role. Colors mean the same thing on every
// panel (revenue green, cost red, cash blue, warnings amber).
#pragma once

#include <string_view>

#include <imgui.h>

#include "sim/analysis/model_error.h"
#include "sim/perf/calibration_profile.h"

namespace tycoon::ui::theme {

inline constexpr ImU32 kBackground = IM_COL32(17, 20, 28, 255);
inline constexpr ImU32 kPanel = IM_COL32(24, 28, 38, 255);
inline constexpr ImU32 kPanelRaised = IM_COL32(32, 37, 50, 255);
inline constexpr ImU32 kBorder = IM_COL32(52, 58, 76, 255);
inline constexpr ImU32 kText = IM_COL32(226, 230, 238, 255);
inline constexpr ImU32 kMuted = IM_COL32(140, 149, 168, 255);
inline constexpr ImU32 kGrid = IM_COL32(255, 255, 255, 22);
inline constexpr ImU32 kAccent = IM_COL32(46, 196, 182, 255);     // teal: actions, selection
inline constexpr ImU32 kRevenue = IM_COL32(92, 205, 120, 255);    // green: money in, good
inline constexpr ImU32 kCost = IM_COL32(239, 99, 99, 255);        // red: money out, errors
inline constexpr ImU32 kFixedCost = IM_COL32(240, 150, 90, 255);  // orange: fixed costs
inline constexpr ImU32 kCash = IM_COL32(86, 156, 255, 255);       // blue: cash
inline constexpr ImU32 kWarn = IM_COL32(255, 190, 80, 255);       // amber: warnings
inline constexpr ImU32 kPurple = IM_COL32(178, 128, 255, 255);    // advisor, quality

// Series colors for charts with many lines, in order.
ImU32 series_color(int i);
ImVec4 vec4(ImU32 c);
// `c` with alpha in [0, 1].
ImU32 with_alpha(ImU32 c, float alpha);

// Applies the palette and spacing to the current ImGui context.
void apply_style();

// Loads the UI fonts from a TTF (regular, then a larger one for headline numbers and a title
// size). With no file, ImGui's built-in font is used at each size. Call before the renderer
// builds the font atlas.
void load_fonts(const char* ttf_path, const char* bold_ttf_path, float base_px);

// Fonts by role (fall back to the default font).
ImFont* font_regular();
ImFont* font_bold();
ImFont* font_big();
ImFont* font_title();

ImU32 provenance_color(perf::Provenance p);
// The model errors the badges quote (analysis::load_model_errors of the data root; the App sets
// them once it has loaded its catalog). Unset: a badge names its class only.
void set_model_errors(analysis::ModelErrors errors);
// A small colored tag "[measured]" with an explanation on hover (analysis::provenance_explanation).
void provenance_badge(perf::Provenance p);

// Text in a color.
void text_colored(ImU32 color, std::string_view text);
// A section heading with a rule under it.
void heading(std::string_view text);

}  // namespace tycoon::ui::theme
