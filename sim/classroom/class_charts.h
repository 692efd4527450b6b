// Small inline SVG charts for the class report: hourly lines (a student's price, fleet or profit
// over the game) and a scatter of the class with labelled reference lines. Built as the analyst
// charts' model (sim/analysis/chart_model.h) and drawn by its SVG renderer; no markers on hourly
// lines, no provenance key (these are game results).
#pragma once

#include <string>
#include <vector>

namespace tycoon::classroom {

struct LineSeries {
  std::string name;
  std::vector<double> values;  // one per game hour
  bool emphasis = false;       // drawn thicker and dark (the benchmarks)
};

struct ScatterPoint {
  double x = 0, y = 0;
  std::string label;  // tooltip
};

struct MarkerLine {
  double x = 0;
  std::string label;
};

// Hourly lines on one axis; x is the game hour. `y_label` carries the unit.
std::string line_chart_svg(const std::string& title, const std::string& y_label, const std::vector<LineSeries>& series,
                           int width = 960, int height = 420);

// Points (x: `x_label`, y: a share shown in percent) with vertical marker lines, their labels
// staggered so that close lines stay readable.
std::string scatter_chart_svg(const std::string& title, const std::string& x_label, const std::string& y_label,
                              const std::vector<ScatterPoint>& points, const std::vector<MarkerLine>& markers,
                              int width = 960, int height = 420);

}  // namespace tycoon::classroom
