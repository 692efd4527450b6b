// A small chart module on ImGui draw lists (ImPlot is not available): time series, stacked bars,
// and scatter/line plots of the shared chart model (sim/analysis/chart_model.h) with a Pareto
// front, all with labelled axes. Stateless: every call draws from the data it is given; hovering
// shows the values under the cursor.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <imgui.h>

#include "sim/analysis/chart_model.h"

namespace tycoon::ui::chart {

// How axis ticks and hover values are written.
enum class Unit {
  kNone,
  kUsd,
  kShare,
  kTokens,
  kTokPerS,
  kTokPerSPerUser,
  kReqPerS,
  kSeconds,
  kGameHour,
  kGameDay,
  kGpus,
  kBytes
};

// A value in `unit`, short (for ticks) or full (for hover).
std::string format_value(Unit unit, double v, bool compact);

struct Axis {
  std::string label;  // "cash", "P90 interactivity"; the unit is appended
  Unit unit = Unit::kNone;
  std::optional<double> min = std::nullopt;  // fixed range ends; otherwise from the data
  std::optional<double> max = std::nullopt;
  bool include_zero = true;  // the automatic range reaches down (or up) to zero
  // Time series: x below this is the past before play (GameState::past), shaded and labelled
  // "history" so it is never mistaken for the game's own hours.
  std::optional<double> history_before = std::nullopt;
};

// y values at x = x0 + i·dx.
struct Line {
  std::string name;
  std::span<const double> values;
  ImU32 color = 0;
  double x0 = 0, dx = 1;
  bool fill = false;  // shade the area down to zero
  float thickness = 2.0f;
};

// Line chart; hovering draws a cursor and lists every line's value at it.
void time_series(const char* id, std::span<const Line> lines, const Axis& x, const Axis& y, ImVec2 size);

// One layer of a stacked bar chart: a value per category (negative values stack downward).
struct BarLayer {
  std::string name;
  std::vector<double> values;
  ImU32 color = 0;
};

// Stacked bars, one per category; positive layers stack up from zero, negative ones down. An
// optional line of totals per category (e.g. profit) is drawn as dots.
void stacked_bars(const char* id, std::span<const std::string> categories, std::span<const BarLayer> layers,
                  const Axis& y, ImVec2 size, bool show_net = false, bool show_legend = true);

// A colour of the shared chart model (0xRRGGBBAA, analysis::ChartSeries::color_rgba) as ImGui's,
// and back.
ImU32 im_color(std::uint32_t rgba);
std::uint32_t model_color(ImU32 c);

// A scatter/line chart of the shared model (analysis::Chart, also drawn as SVG in the analyst
// report) from its layout (analysis::layout_chart): the same ranges, ticks, tick labels and Pareto
// frontiers (a dashed line with rings), series with their provenance markers and error bars, the
// highlighted point as a star, reference lines. Hovering a point shows its series and tooltip.
// The chart's title, subtitle, notes and pixel size are the SVG's: here `size` rules.
void plot(const char* id, const analysis::Chart& chart, ImVec2 size);

// A horizontal bar split into shares (e.g. memory per GPU), with a legend underneath.
struct Segment {
  std::string name;
  double value = 0;
  ImU32 color = 0;
};
void split_bar(const char* id, std::span<const Segment> segments, double total, Unit unit, ImVec2 size);

}  // namespace tycoon::ui::chart
