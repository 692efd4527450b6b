// The frame every chart draws in (ui/chart.cpp, ui/chart_plot.cpp): its margins, the axes with
// their ticks and unit labels, the legend's layout, and mapping data to pixels.
#pragma once

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <imgui.h>

#include "ui/chart.h"

namespace tycoon::ui::chart {

inline constexpr float kLeftMargin = 62;
inline constexpr float kBottomMargin = 34;
inline constexpr float kTopMargin = 22;
inline constexpr float kRightMargin = 12;

struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  void add(double v) {
    if (!std::isfinite(v)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  bool valid() const { return lo <= hi; }
};

// Resolves an axis range from the data, the axis' fixed ends and its zero rule; never empty.
Range resolve(const Axis& axis, Range data);
// " ($)", " (tok/s)", ...: the unit as an axis label's suffix.
std::string unit_suffix(Unit u);

// The plot frame: reserves `size`, draws the background, returns the inner plot rectangle.
struct Frame {
  ImVec2 outer_min, outer_max, plot_min, plot_max;
  bool hovered = false;
  ImVec2 mouse;
  ImDrawList* dl = nullptr;
};

using Legend = std::vector<std::pair<std::string, ImU32>>;

// Reserves the chart's area (`extra_rows` legend rows above the plot) and outlines it.
Frame begin_frame(const char* id, ImVec2 size, int extra_rows = 0);
float map_x(const Frame& f, const Range& r, double x);
float map_y(const Frame& f, const Range& r, double y);
void draw_y_axis(const Frame& f, const Axis& axis, const Range& r);
void draw_x_axis(const Frame& f, const Axis& axis, const Range& r, bool vertical_grid);
// The legend right-aligned on the axis label's row, continuing on rows under it when it does not fit.
void draw_legend(const Frame& f, const std::vector<Legend>& rows);
// Lays out the legend for a chart of `size` with y label `label`; returns its rows.
std::vector<Legend> plan_legend(const Legend& entries, const std::string& label, ImVec2 size);
// Clips drawing to the plot rectangle (pop with the draw list's PopClipRect).
void clip_push(const Frame& f);

}  // namespace tycoon::ui::chart
