#include "sim/classroom/class_charts.h"

#include <array>
#include <cstdint>

#include "sim/analysis/svg_chart.h"

namespace tycoon::classroom {

namespace {

// Benchmarks (emphasis) in dark and grey; students in the analyst charts' palette.
constexpr std::array<std::uint32_t, 2> kEmphasisRgba = {0x222222ffu, 0x888888ffu};

}  // namespace

// Both charts are the analyst charts' model (sim/analysis/chart_model.h), laid out and drawn by
// the one SVG renderer: the class report has no chart code of its own.
std::string line_chart_svg(const std::string& title, const std::string& y_label, const std::vector<LineSeries>& series,
                           int width, int height) {
  analysis::Chart c;
  c.title = title;
  c.x_label = "game hour";
  c.y_label = y_label;
  c.provenance_key = false;  // game results, not measured or extrapolated curves
  c.width = width;
  c.height = height;
  c.x_min = 0;
  std::size_t emphasis = 0;
  for (const auto& s : series) {
    analysis::ChartSeries cs;
    cs.name = s.name;
    if (s.emphasis) cs.color_rgba = kEmphasisRgba[emphasis++ % kEmphasisRgba.size()];
    // A step line: each hour's value holds from its hour to the next.
    for (std::size_t h = 0; h < s.values.size(); ++h) {
      for (double x : {static_cast<double>(h), static_cast<double>(h + 1)}) {
        analysis::ChartPoint p(x, s.values[h]);
        p.marker = false;
        p.tooltip = s.name;
        cs.points.push_back(std::move(p));
      }
    }
    c.series.push_back(std::move(cs));
  }
  return analysis::render_svg(c, /*standalone=*/false);
}

std::string scatter_chart_svg(const std::string& title, const std::string& x_label, const std::string& y_label,
                              const std::vector<ScatterPoint>& points, const std::vector<MarkerLine>& markers,
                              int width, int height) {
  analysis::Chart c;
  c.title = title;
  c.x_label = x_label;
  c.y_label = y_label;
  c.y_percent = true;  // a share
  c.y_min = 0;
  c.y_max = 1;
  c.provenance_key = false;
  c.width = width;
  c.height = height;
  analysis::ChartSeries students;
  students.name = "students";
  students.connect = false;
  for (const auto& p : points) students.points.emplace_back(p.x, p.y, 0, 0, false, p.label);
  c.series.push_back(std::move(students));
  for (const auto& m : markers) c.references.push_back({true, m.x, m.label});
  return analysis::render_svg(c, /*standalone=*/false);
}

}  // namespace tycoon::classroom
