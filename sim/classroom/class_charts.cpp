#include "sim/classroom/class_charts.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "sim/analysis/svg_chart.h"

namespace tycoon::classroom {

namespace {

using analysis::tick_label;
using analysis::xml_escape;

// Okabe-Ito's colour-blind-safe palette (as the analyst charts), then darker variants.
constexpr std::array<const char*, 11> kPalette = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
                                                  "#8C564B", "#7F7F7F", "#BCBD22", "#17BECF", "#9467BD"};

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// The plot frame: axes, grid, ticks and labels for [x0, x1] × [y0, y1].
struct Frame {
  double W, H, left = 70, right, top = 40, bottom;
  double x0, x1, y0, y1;
  Frame(int width, int height, double legend_w, double xa, double xb, double ya, double yb)
      : W(width), H(height), right(width - legend_w - 16), bottom(height - 50), x0(xa), x1(xb), y0(ya), y1(yb) {
    if (x1 <= x0) x1 = x0 + 1;
    if (y1 <= y0) y1 = y0 + 1;
  }
  double px(double x) const { return left + (x - x0) / (x1 - x0) * (right - left); }
  double py(double y) const { return bottom - (y - y0) / (y1 - y0) * (bottom - top); }
};

// Widens [lo, hi] to the ticks around it; returns the ticks.
std::vector<double> ticks_around(double& lo, double& hi) {
  if (hi <= lo) {
    const double pad = std::max(1.0, std::abs(lo) * 0.1);
    lo -= pad;
    hi += pad;
  }
  auto t = analysis::nice_ticks(lo, hi, 6);
  if (t.size() >= 2) {
    const double step = t[1] - t[0];
    lo = std::floor(lo / step + 1e-9) * step;
    hi = std::ceil(hi / step - 1e-9) * step;
    t = analysis::nice_ticks(lo, hi, 6);
  }
  return t;
}

void open_svg(std::ostringstream& o, const Frame& f, const std::string& title) {
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << f.W << "\" height=\"" << f.H << "\" viewBox=\"0 0 "
    << f.W << " " << f.H << "\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" "
    << "fill=\"#ffffff\"/>\n<text x=\"" << f.left << "\" y=\"22\" font-size=\"15\" font-weight=\"bold\">"
    << xml_escape(title) << "</text>\n";
}

void axes(std::ostringstream& o, const Frame& f, const std::vector<double>& xt, const std::vector<double>& yt,
          const std::string& x_label, const std::string& y_label, bool y_percent) {
  const double xs = xt.size() >= 2 ? xt[1] - xt[0] : 1, ys = yt.size() >= 2 ? yt[1] - yt[0] : 1;
  for (double v : yt) {
    o << "<line x1=\"" << num(f.left) << "\" x2=\"" << num(f.right) << "\" y1=\"" << num(f.py(v)) << "\" y2=\""
      << num(f.py(v)) << "\" stroke=\"#e5e5e5\"/><text x=\"" << num(f.left - 6) << "\" y=\"" << num(f.py(v) + 4)
      << "\" text-anchor=\"end\">" << tick_label(v, ys, y_percent) << "</text>\n";
  }
  for (double v : xt) {
    o << "<line y1=\"" << num(f.top) << "\" y2=\"" << num(f.bottom) << "\" x1=\"" << num(f.px(v)) << "\" x2=\""
      << num(f.px(v)) << "\" stroke=\"#eeeeee\"/><text x=\"" << num(f.px(v)) << "\" y=\"" << num(f.bottom + 16)
      << "\" text-anchor=\"middle\">" << tick_label(v, xs, false) << "</text>\n";
  }
  o << "<rect x=\"" << num(f.left) << "\" y=\"" << num(f.top) << "\" width=\"" << num(f.right - f.left)
    << "\" height=\"" << num(f.bottom - f.top) << "\" fill=\"none\" stroke=\"#444444\"/>\n";
  o << "<text x=\"" << num((f.left + f.right) / 2) << "\" y=\"" << num(f.H - 12) << "\" text-anchor=\"middle\">"
    << xml_escape(x_label) << "</text>\n<text transform=\"translate(16 " << num((f.top + f.bottom) / 2)
    << ") rotate(-90)\" text-anchor=\"middle\">" << xml_escape(y_label) << "</text>\n";
}

}  // namespace

std::string line_chart_svg(const std::string& title, const std::string& y_label, const std::vector<LineSeries>& series,
                           int width, int height) {
  double lo = 0, hi = 0, hours = 1;
  bool first = true;
  for (const auto& s : series) {
    for (double v : s.values) {
      lo = first ? v : std::min(lo, v);
      hi = first ? v : std::max(hi, v);
      first = false;
    }
    hours = std::max(hours, static_cast<double>(s.values.size()));
  }
  double x0 = 0, x1 = hours;
  const auto yt = ticks_around(lo, hi);
  const auto xt = ticks_around(x0, x1);
  Frame f(width, height, 200, x0, x1, lo, hi);
  std::ostringstream o;
  open_svg(o, f, title);
  axes(o, f, xt, yt, "game hour", y_label, false);
  // Benchmarks (emphasis) in dark and grey, dashed and dotted; students in the palette, solid.
  constexpr std::array<const char*, 2> kEmphasisStroke = {"#222222", "#888888"};
  constexpr std::array<const char*, 2> kEmphasisDash = {"6 3", "2 3"};
  std::size_t color = 0, emphasis = 0;
  double ly = f.top + 6;
  for (const auto& s : series) {
    const char* stroke = s.emphasis ? kEmphasisStroke[emphasis % 2] : kPalette[color++ % kPalette.size()];
    const std::string dash =
        s.emphasis ? std::string(" stroke-dasharray=\"") + kEmphasisDash[emphasis++ % 2] + "\"" : std::string();
    const char* width_px = s.emphasis ? "2.5" : "1.4";
    // A step line: each hour's value holds from its hour to the next.
    o << "<polyline fill=\"none\" stroke=\"" << stroke << "\" stroke-width=\"" << width_px << "\"" << dash
      << " points=\"";
    for (std::size_t h = 0; h < s.values.size(); ++h) {
      o << num(f.px(static_cast<double>(h))) << "," << num(f.py(s.values[h])) << " "
        << num(f.px(static_cast<double>(h + 1))) << "," << num(f.py(s.values[h])) << " ";
    }
    o << "\"><title>" << xml_escape(s.name) << "</title></polyline>\n";
    if (ly < f.bottom) {
      o << "<line x1=\"" << num(f.right + 12) << "\" x2=\"" << num(f.right + 32) << "\" y1=\"" << num(ly) << "\" y2=\""
        << num(ly) << "\" stroke=\"" << stroke << "\" stroke-width=\"" << width_px << "\"" << dash << "/><text x=\""
        << num(f.right + 38) << "\" y=\"" << num(ly + 4) << "\">" << xml_escape(s.name.substr(0, 28)) << "</text>\n";
      ly += 15;
    }
  }
  o << "</svg>";
  return o.str();
}

std::string scatter_chart_svg(const std::string& title, const std::string& x_label, const std::string& y_label,
                              const std::vector<ScatterPoint>& points, const std::vector<MarkerLine>& markers,
                              int width, int height) {
  double x0 = 0, x1 = 0;
  bool first = true;
  auto take = [&](double x) {
    x0 = first ? x : std::min(x0, x);
    x1 = first ? x : std::max(x1, x);
    first = false;
  };
  for (const auto& p : points) take(p.x);
  for (const auto& m : markers) take(m.x);
  double y0 = 0, y1 = 1;  // a share
  const auto xt = ticks_around(x0, x1);
  const auto yt = ticks_around(y0, y1);
  Frame f(width, height, 40, x0, x1, y0, y1);
  std::ostringstream o;
  open_svg(o, f, title);
  axes(o, f, xt, yt, x_label, y_label, true);
  for (std::size_t i = 0; i < markers.size(); ++i) {
    const double x = f.px(markers[i].x);
    // Labels alternate between the top and a line lower, so that two close lines stay readable.
    o << "<line x1=\"" << num(x) << "\" x2=\"" << num(x) << "\" y1=\"" << num(f.top) << "\" y2=\"" << num(f.bottom)
      << "\" stroke=\"#222222\" stroke-dasharray=\"5 3\"/>";
    // In the right half of the plot the label goes to the left of its line, so it stays inside.
    const bool left_of_line = x > (f.left + f.right) / 2;
    o << "<text x=\"" << num(left_of_line ? x - 4 : x + 4) << "\" y=\""
      << num(f.top + 14 + 14 * static_cast<double>(i % 2)) << "\" fill=\"#222222\""
      << (left_of_line ? " text-anchor=\"end\"" : "") << ">" << xml_escape(markers[i].label) << "</text>\n";
  }
  for (const auto& p : points) {
    o << "<circle cx=\"" << num(f.px(p.x)) << "\" cy=\"" << num(f.py(p.y)) << "\" r=\"5\" fill=\"" << kPalette[0]
      << "\" fill-opacity=\"0.75\"><title>" << xml_escape(p.label) << "</title></circle>\n";
  }
  o << "</svg>";
  return o.str();
}

}  // namespace tycoon::classroom
