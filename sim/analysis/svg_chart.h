// A small SVG writer for analyst charts: scatter/line series with error bars, a highlighted
// frontier, reference lines, axes with units and ticks, and a legend. No third-party code; the
// output is self-contained SVG 1.1 (inline in HTML or a file of its own).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/analysis/chart_scale.h"

namespace tycoon::analysis {

struct ChartPoint {
  ChartPoint() = default;
  ChartPoint(double x_, double y_, double x_err_ = 0, double y_err_ = 0, bool hollow_ = false,
             std::string tooltip_ = {})
      : x(x_), y(y_), x_err(x_err_), y_err(y_err_), hollow(hollow_), tooltip(std::move(tooltip_)) {}
  double x = 0, y = 0;
  double x_err = 0, y_err = 0;  // half widths of the 95% interval; 0 draws no bar
  bool hollow = false;          // extrapolated or datasheet provenance
  std::string tooltip;
  std::string label;    // drawn beside the marker (a concurrency: "64")
  bool square = false;  // a square marker instead of a circle (datasheet provenance)
  bool marker = true;   // false: a vertex of the line only (an analytic curve's sample)
};

struct ChartSeries {
  std::string name;
  std::vector<ChartPoint> points;  // drawn in order; joined by a line when `connect`
  bool connect = true;
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
  std::vector<ChartPoint> frontier;                // drawn as a thick line under the series
  std::vector<std::vector<ChartPoint>> frontiers;  // more of them, each its own line (one per workload)
  std::string frontier_label = "Pareto frontier";
  std::vector<ReferenceLine> references;
  std::vector<std::string> notes;  // small print under the plot (sources, provenance key)
  bool y_percent = false;          // tick labels as percentages of 1
  bool y_log = false;              // logarithmic y axis (decades); points with y <= 0 are not drawn
  // Fixed y range (the axis still covers ticks at these values); points outside are clipped.
  std::optional<double> y_min, y_max;
  // The legend's marker key: "filled: measured curves, hollow: extrapolated, square: datasheet".
  bool provenance_key = true;
  int width = 960, height = 600;
};

// The chart as an SVG document (a <svg> element with an XML declaration when `standalone`).
std::string render_svg(const Chart& chart, bool standalone = true);

// Escapes &, <, >, " and ' for XML text and attributes.
std::string xml_escape(std::string_view s);

// `text` broken into lines of at most about `width` characters at spaces (a word longer than the
// width gets a line of its own): nothing is cut.
std::vector<std::string> wrap_text(const std::string& text, std::size_t width);

// A tick's label with as many decimals as the step needs ("0.25", "40%" with `percent`).
std::string tick_label(double v, double step, bool percent);

}  // namespace tycoon::analysis
