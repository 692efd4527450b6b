// The one model of a scatter/line chart, drawn as SVG (svg_chart.h, the analyst report) and on
// ImGui draw lists (ui/chart.h, the game's Pareto panel), and the layout both renderers draw from:
// axis ranges, ticks and their labels, and the Pareto frontiers, computed once here in data units.
// No renderer's types appear in it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/analysis/chart_scale.h"
#include "sim/analysis/pareto.h"

namespace tycoon::analysis {

struct ChartPoint {
  ChartPoint() = default;
  ChartPoint(double x_, double y_, double x_err_ = 0, double y_err_ = 0, bool hollow_ = false,
             std::string tooltip_ = {})
      : x(x_), y(y_), x_err(x_err_), y_err(y_err_), hollow(hollow_), tooltip(std::move(tooltip_)) {}
  double x = 0, y = 0;
  double x_err = 0, y_err = 0;  // half widths of the 95% interval; 0 draws no bar
  bool hollow = false;          // extrapolated or datasheet provenance
  std::string tooltip;          // the hover text (an SVG <title>, an ImGui tooltip)
  std::string label;            // drawn beside the marker (a concurrency: "64")
  bool square = false;          // a square marker instead of a circle (datasheet provenance)
  bool marker = true;           // false: a vertex of the line only (an analytic curve's sample)
};

struct ChartSeries {
  std::string name;
  std::vector<ChartPoint> points;  // drawn in order; joined by a line when `connect`
  bool connect = true;
  // Series with the same group share one Pareto frontier of their drawn points (computed by
  // layout_chart with pareto_frontier); none: the series is on no frontier.
  std::optional<std::size_t> frontier_group;
  std::uint32_t color_rgba = 0;  // 0xRRGGBBAA; 0: the renderer's palette colour for the series' index
  std::string dash;              // the line's dash pattern in pixels ("8 5"); empty: solid
  double stroke_width = 0;       // the line's width in pixels; 0: the renderer's default
  // Drawn beside the line's last point, right of the plot (labels spread so that none overlap);
  // empty: no label there.
  std::string end_label;
  bool in_legend = true;
};

// One highlighted point, drawn as a star over the series (the game's last-hour operating point);
// it is in the legend and on no frontier.
struct ChartHighlight {
  std::string name;
  ChartPoint point;
  std::uint32_t color_rgba = 0;  // 0xRRGGBBAA; 0: the renderer's palette colour after the series
};

struct ReferenceLine {
  bool vertical = false;  // x = value, else y = value
  double value = 0;
  std::string label;
};

struct Chart {
  std::string title;
  std::string subtitle;
  std::string x_label;  // with its unit: "P90 interactivity (tok/s/user)"
  std::string y_label;
  std::vector<ChartSeries> series;
  std::optional<ChartHighlight> highlight;
  std::string frontier_label = "Pareto frontier";
  std::vector<ReferenceLine> references;
  std::vector<std::string> notes;  // small print under the plot (sources, provenance key)
  bool y_percent = false;          // tick labels as percentages of 1
  bool y_log = false;              // logarithmic y axis (decades); points with y <= 0 are not drawn
  // Fixed ends (the axis still covers ticks at these values); points outside a fixed y range are
  // neither drawn nor counted in the x range.
  std::optional<double> x_min, x_max;
  std::optional<double> y_min, y_max;
  // With both x ends fixed: x ticks every `x_tick_step` from x_min, the last at x_max exactly (a
  // game's hours: every day, the axis ending on the game's last hour).
  std::optional<double> x_tick_step;
  double point_label_px = 9;  // the font size of the labels beside markers
  // The legend's marker key: "filled: measured curves, hollow: extrapolated, square: datasheet".
  bool provenance_key = true;
  int width = 960, height = 600;  // SVG pixels; the ImGui renderer takes its size from the caller
};

// One axis of a laid-out chart, in data units.
struct AxisLayout {
  double lo = 0, hi = 1;            // the axis' ends: its first and last tick
  std::vector<double> ticks;        // increasing, lo and hi included
  std::vector<std::string> labels;  // one per tick (tick_label)
  bool log = false;                 // decades: positions measure log10

  // Where `v` sits along the axis: 0 at lo, 1 at hi, beyond them outside [lo, hi] (not clamped);
  // on a log axis a value below lo (zero, negative) sits at lo.
  double fraction(double v) const;
};

// What both renderers draw from: the ranges, ticks and tick labels, and the frontiers.
struct ChartLayout {
  AxisLayout x, y;
  // One per frontier group with points, by increasing group: pareto_frontier of the group's drawn
  // points, by increasing x.
  std::vector<std::vector<XY>> frontiers;
};

// Whether a point is drawn: finite, positive on a log axis, inside a fixed y range.
bool is_drawn(const Chart& chart, const ChartPoint& p);

// The chart's layout. The ranges: every finite point inside a fixed y range with its error bars,
// the highlight, the reference lines (a vertical one extends the x range's top only) and zero;
// [0, 1] with no data. The automatic x range ends on the first nice tick at or above 1.02 × the
// data's top (about six ticks), the y range on the first at or above 1.04 × it; a fixed end
// replaces the data's end and is not padded. A log y axis spans the whole decades around the
// positive y values, with 2 and 5 ticks when it spans at most three decades.
ChartLayout layout_chart(const Chart& chart);

}  // namespace tycoon::analysis
