#include "sim/analysis/svg_chart.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <sstream>

namespace tycoon::analysis {

namespace {

// Okabe-Ito's colour-blind-safe palette, then darker variants.
constexpr std::array<const char*, 12> kPalette = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
                                                  "#000000", "#8C564B", "#7F7F7F", "#BCBD22", "#17BECF", "#9467BD"};

// A series' colour: its own (0xRRGGBBAA, alpha ignored), else palette colour `index`.
std::string color_of(std::uint32_t rgba, std::size_t index) {
  if (rgba == 0) return kPalette[index % kPalette.size()];
  char buf[16];
  std::snprintf(buf, sizeof buf, "#%06X", static_cast<unsigned>(rgba >> 8));
  return buf;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

// At most about `n` bytes, cut on a UTF-8 character boundary, with an ellipsis when cut.
std::string shorten(const std::string& s, std::size_t n) {
  if (s.size() <= n) return s;
  std::size_t cut = n - 1;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut) + "\xE2\x80\xA6";  // an ellipsis
}

// The SVG points of a five-pointed star centred on (cx, cy), outer radius r.
std::string star_points(double cx, double cy, double r) {
  std::string out;
  for (int k = 0; k < 10; ++k) {
    const double rk = k % 2 == 0 ? r : r * 0.45;
    const double a = -std::numbers::pi / 2 + static_cast<double>(k) * std::numbers::pi / 5;
    if (k > 0) out += ' ';
    out += num(cx + rk * std::cos(a));
    out += ',';
    out += num(cy + rk * std::sin(a));
  }
  return out;
}

// The series' end labels right of the plot, each joined to its line's last drawn point by a
// leader in the line's colour: labels sit at their points' heights, pushed apart to at least a
// line of text between them and kept inside the plot's height.
template <class Px, class Py>
void draw_end_labels(std::ostringstream& o, const Chart& c, Px px, Py py, double right, double top, double bottom) {
  constexpr double kGap = 15;
  struct Label {
    double x, y, label_y;
    std::string color, text;
  };
  std::vector<Label> labels;
  for (std::size_t si = 0; si < c.series.size(); ++si) {
    const auto& s = c.series[si];
    if (s.end_label.empty()) continue;
    const ChartPoint* last = nullptr;
    for (const auto& p : s.points) {
      if (is_drawn(c, p)) last = &p;
    }
    if (!last) continue;
    labels.push_back({px(last->x), py(last->y), py(last->y), color_of(s.color_rgba, si), s.end_label});
  }
  if (labels.empty()) return;
  std::stable_sort(labels.begin(), labels.end(), [](const Label& a, const Label& b) { return a.y < b.y; });
  for (std::size_t i = 1; i < labels.size(); ++i)
    labels[i].label_y = std::max(labels[i].label_y, labels[i - 1].label_y + kGap);
  // Past the bottom: the whole stack moves up (never above the top).
  const double overflow = labels.back().label_y - bottom;
  if (overflow > 0) {
    for (auto& l : labels) l.label_y -= overflow;
    labels.front().label_y = std::max(labels.front().label_y, top);
    for (std::size_t i = 1; i < labels.size(); ++i)
      labels[i].label_y = std::max(labels[i].label_y, labels[i - 1].label_y + kGap);
  }
  o << "<g font-size=\"13\" fill=\"#111111\">\n";
  for (const auto& l : labels) {
    // A line that stops before the plot's right edge (a game abandoned early) gets a faint dotted
    // leader, so that the leader does not read as the line going on.
    const bool stops_early = right - l.x > 12;
    o << "<polyline fill=\"none\" stroke=\"" << (stops_early ? std::string("#999999") : l.color) << "\" stroke-width=\""
      << (stops_early ? "1\" stroke-dasharray=\"1 3" : "1.2") << "\" points=\"" << num(l.x) << "," << num(l.y) << " "
      << num(right + 6) << "," << num(l.label_y) << " " << num(right + 10) << "," << num(l.label_y) << "\"/>";
    o << "<line x1=\"" << num(right + 10) << "\" y1=\"" << num(l.label_y) << "\" x2=\"" << num(right + 24) << "\" y2=\""
      << num(l.label_y) << "\" stroke=\"" << l.color << "\" stroke-width=\"5\"/>";
    o << "<text x=\"" << num(right + 28) << "\" y=\"" << num(l.label_y + 4.5) << "\">"
      << xml_escape(shorten(l.text, 44)) << "</text>\n";
  }
  o << "</g>\n";
}

}  // namespace

std::string xml_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::vector<std::string> wrap_text(const std::string& text, std::size_t width) {
  std::vector<std::string> lines;
  std::string line;
  auto chars = [](const std::string& s) {  // UTF-8 characters, not bytes
    std::size_t n = 0;
    for (char ch : s) n += (static_cast<unsigned char>(ch) & 0xC0) != 0x80;
    return n;
  };
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t sp = text.find(' ', i);
    const std::string word = text.substr(i, sp == std::string::npos ? std::string::npos : sp - i);
    i = sp == std::string::npos ? text.size() : sp + 1;
    if (word.empty()) continue;
    if (!line.empty() && chars(line) + 1 + chars(word) > width) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

std::string render_svg(const Chart& c, bool standalone) {
  constexpr std::size_t kLegendChars = 40, kNoteChars = 150, kSubtitleChars = 130;
  const double W = c.width;
  const double legend_w = 290;
  const double left = 86, right = W - legend_w - 20;
  const auto subtitle = c.subtitle.empty() ? std::vector<std::string>{} : wrap_text(c.subtitle, kSubtitleChars);
  const double top = 40 + 16.0 * static_cast<double>(subtitle.size()) + 12;
  std::vector<std::string> notes;
  for (const auto& n : c.notes) {
    for (auto& l : wrap_text(n, kNoteChars)) notes.push_back(std::move(l));
  }
  std::vector<std::vector<std::string>> names;
  double legend_h = 0;
  for (const auto& s : c.series) {
    names.push_back(wrap_text(s.name, kLegendChars));
    if (s.in_legend) legend_h += 17 + 13.0 * static_cast<double>(names.back().size() - 1);
  }
  if (c.highlight) legend_h += 17;
  const ChartLayout layout = layout_chart(c);
  legend_h += 8 + (layout.frontiers.empty() ? 0 : 19) + (c.provenance_key ? 4 * 17 : 0);
  const double bottom_note = 14.0 * static_cast<double>(notes.size());
  // The chart grows to hold its legend and notes: nothing is cut.
  double H = c.height;
  const double plot_h = H - 64 - bottom_note - top;
  if (legend_h > plot_h) H += legend_h - plot_h;
  const double bottom = H - 64 - bottom_note;

  auto px = [&](double x) { return left + layout.x.fraction(x) * (right - left); };
  auto py = [&](double y) {
    return bottom - layout.y.fraction(c.y_log ? y : std::clamp(y, layout.y.lo, layout.y.hi)) * (bottom - top);
  };

  std::ostringstream o;
  if (standalone) o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << c.width << "\" height=\"" << H << "\" viewBox=\"0 0 "
    << c.width << " " << H << "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n";
  o << "<rect x=\"0\" y=\"0\" width=\"" << c.width << "\" height=\"" << H << "\" fill=\"#ffffff\"/>\n";
  o << "<text x=\"" << left << "\" y=\"28\" font-size=\"18\" font-weight=\"bold\">" << xml_escape(shorten(c.title, 80))
    << "</text>\n";
  for (std::size_t i = 0; i < subtitle.size(); ++i) {
    o << "<text x=\"" << left << "\" y=\"" << num(50 + 16.0 * static_cast<double>(i))
      << "\" font-size=\"12\" fill=\"#444444\">" << xml_escape(subtitle[i]) << "</text>\n";
  }
  // Grid and ticks.
  o << "<g font-size=\"11\" fill=\"#333333\">\n";
  for (std::size_t i = 0; i < layout.x.ticks.size(); ++i) {
    const double t = layout.x.ticks[i];
    o << "<line x1=\"" << num(px(t)) << "\" y1=\"" << num(top) << "\" x2=\"" << num(px(t)) << "\" y2=\"" << num(bottom)
      << "\" stroke=\"#e5e5e5\"/>\n";
    o << "<text x=\"" << num(px(t)) << "\" y=\"" << num(bottom + 16) << "\" text-anchor=\"middle\">"
      << layout.x.labels[i] << "</text>\n";
  }
  for (std::size_t i = 0; i < layout.y.ticks.size(); ++i) {
    const double t = layout.y.ticks[i];
    o << "<line x1=\"" << num(left) << "\" y1=\"" << num(py(t)) << "\" x2=\"" << num(right) << "\" y2=\"" << num(py(t))
      << "\" stroke=\"" << (t == 0 ? "#999999" : "#e5e5e5") << "\"/>\n";
    o << "<text x=\"" << num(left - 6) << "\" y=\"" << num(py(t) + 4) << "\" text-anchor=\"end\">" << layout.y.labels[i]
      << "</text>\n";
  }
  o << "</g>\n";
  o << "<rect x=\"" << num(left) << "\" y=\"" << num(top) << "\" width=\"" << num(right - left) << "\" height=\""
    << num(bottom - top) << "\" fill=\"none\" stroke=\"#333333\"/>\n";
  o << "<text x=\"" << num((left + right) / 2) << "\" y=\"" << num(bottom + 38)
    << "\" font-size=\"13\" text-anchor=\"middle\">" << xml_escape(c.x_label) << "</text>\n";
  o << "<text transform=\"translate(" << num(left - 60) << " " << num((top + bottom) / 2)
    << ") rotate(-90)\" font-size=\"13\" text-anchor=\"middle\">" << xml_escape(c.y_label) << "</text>\n";

  // Reference lines.
  std::size_t verticals = 0;
  for (const auto& r : c.references) {
    if (r.vertical) {
      o << "<line x1=\"" << num(px(r.value)) << "\" y1=\"" << num(top) << "\" x2=\"" << num(px(r.value)) << "\" y2=\""
        << num(bottom) << "\" stroke=\"#AA0000\" stroke-dasharray=\"6 4\"/>\n";
      // Labels alternate between two rows, so that two close lines stay readable; in the right half
      // of the plot a label goes left of its line, so that it stays inside the plot.
      const bool left_of_line = px(r.value) > (left + right) / 2;
      o << "<text x=\"" << num(px(r.value) + (left_of_line ? -4 : 4)) << "\" y=\""
        << num(top + 14 + 14 * static_cast<double>(verticals++ % 2)) << "\" font-size=\"11\""
        << (left_of_line ? " text-anchor=\"end\"" : "") << " fill=\"#AA0000\">" << xml_escape(r.label) << "</text>\n";
    } else {
      o << "<line x1=\"" << num(left) << "\" y1=\"" << num(py(r.value)) << "\" x2=\"" << num(right) << "\" y2=\""
        << num(py(r.value)) << "\" stroke=\"#AA0000\" stroke-dasharray=\"6 4\"/>\n";
      o << "<text x=\"" << num(right - 4) << "\" y=\"" << num(py(r.value) - 4)
        << "\" font-size=\"11\" text-anchor=\"end\" fill=\"#AA0000\">" << xml_escape(r.label) << "</text>\n";
    }
  }

  // Frontiers under the series.
  for (const auto& f : layout.frontiers) {
    o << "<polyline fill=\"none\" stroke=\"#FFB000\" stroke-opacity=\"0.55\" stroke-width=\"9\" "
         "stroke-linejoin=\"round\" stroke-linecap=\"round\" points=\"";
    for (const auto& p : f) o << num(px(p.x)) << "," << num(py(p.y)) << " ";
    o << "\"/>\n";
  }

  for (std::size_t si = 0; si < c.series.size(); ++si) {
    const auto& s = c.series[si];
    const std::string color = color_of(s.color_rgba, si);
    o << "<g stroke=\"" << color << "\">\n";
    std::vector<const ChartPoint*> drawn;
    for (const auto& p : s.points) {
      if (is_drawn(c, p)) drawn.push_back(&p);
    }
    if (s.connect && drawn.size() > 1) {
      o << "<polyline fill=\"none\" stroke-width=\"" << num(s.stroke_width > 0 ? s.stroke_width : 1.6) << "\"";
      if (!s.dash.empty()) o << " stroke-dasharray=\"" << xml_escape(s.dash) << "\"";
      o << " points=\"";
      for (const auto* p : drawn) o << num(px(p->x)) << "," << num(py(p->y)) << " ";
      o << "\"/>\n";
    }
    for (const auto* p : drawn) {
      if (!p->marker) continue;
      if (p->y_err > 0 && std::isfinite(p->y_err)) {
        o << "<line x1=\"" << num(px(p->x)) << "\" y1=\"" << num(py(p->y - p->y_err)) << "\" x2=\"" << num(px(p->x))
          << "\" y2=\"" << num(py(p->y + p->y_err)) << "\" stroke-width=\"1\"/>\n";
      }
      if (p->x_err > 0 && std::isfinite(p->x_err)) {
        o << "<line x1=\"" << num(px(p->x - p->x_err)) << "\" y1=\"" << num(py(p->y)) << "\" x2=\""
          << num(px(p->x + p->x_err)) << "\" y2=\"" << num(py(p->y)) << "\" stroke-width=\"1\"/>\n";
      }
      const std::string fill = p->hollow ? "#ffffff" : color;
      if (p->square) {
        o << "<rect x=\"" << num(px(p->x) - 4.5) << "\" y=\"" << num(py(p->y) - 4.5)
          << "\" width=\"9\" height=\"9\" stroke-width=\"1.8\" fill=\"" << fill << "\">";
      } else {
        o << "<circle cx=\"" << num(px(p->x)) << "\" cy=\"" << num(py(p->y))
          << "\" r=\"4.5\" stroke-width=\"1.8\" fill=\"" << fill << "\">";
      }
      if (!p->tooltip.empty()) o << "<title>" << xml_escape(p->tooltip) << "</title>";
      o << (p->square ? "</rect>\n" : "</circle>\n");
      if (!p->label.empty()) {
        o << "<text x=\"" << num(px(p->x) + 6) << "\" y=\"" << num(py(p->y) - 6) << "\" font-size=\""
          << num(c.point_label_px) << "\" stroke=\"none\" fill=\"" << color << "\">" << xml_escape(p->label)
          << "</text>\n";
      }
    }
    o << "</g>\n";
  }

  draw_end_labels(o, c, px, py, right, top, bottom);

  if (c.highlight && is_drawn(c, c.highlight->point)) {
    const auto& p = c.highlight->point;
    o << "<polygon points=\"" << star_points(px(p.x), py(p.y), 9) << "\" fill=\""
      << color_of(c.highlight->color_rgba, c.series.size()) << "\" stroke=\"#222222\">";
    if (!p.tooltip.empty()) o << "<title>" << xml_escape(p.tooltip) << "</title>";
    o << "</polygon>\n";
  }

  // Legend: every name in full, wrapped.
  const double lx = right + 18;
  double ly = top + 4;
  o << "<g font-size=\"11\" fill=\"#222222\">\n";
  for (std::size_t si = 0; si < c.series.size(); ++si) {
    if (!c.series[si].in_legend) continue;
    const std::string color = color_of(c.series[si].color_rgba, si);
    o << "<line x1=\"" << num(lx) << "\" y1=\"" << num(ly) << "\" x2=\"" << num(lx + 22) << "\" y2=\"" << num(ly)
      << "\" stroke=\"" << color << "\" stroke-width=\"2\"/>";
    o << "<circle cx=\"" << num(lx + 11) << "\" cy=\"" << num(ly) << "\" r=\"4\" fill=\"" << color << "\"/>";
    for (std::size_t li = 0; li < names[si].size(); ++li) {
      o << "<text x=\"" << num(lx + 30) << "\" y=\"" << num(ly + 4) << "\">" << xml_escape(names[si][li])
        << "</text>\n";
      if (li + 1 < names[si].size()) ly += 13;
    }
    ly += 17;
  }
  if (c.highlight) {
    o << "<polygon points=\"" << star_points(lx + 11, ly, 6) << "\" fill=\""
      << color_of(c.highlight->color_rgba, c.series.size()) << "\" stroke=\"#222222\"/>";
    o << "<text x=\"" << num(lx + 30) << "\" y=\"" << num(ly + 4) << "\">" << xml_escape(c.highlight->name)
      << "</text>\n";
    ly += 17;
  }
  ly += 8;
  if (!layout.frontiers.empty()) {
    o << "<line x1=\"" << num(lx) << "\" y1=\"" << num(ly) << "\" x2=\"" << num(lx + 22) << "\" y2=\"" << num(ly)
      << "\" stroke=\"#FFB000\" stroke-opacity=\"0.55\" stroke-width=\"9\"/>";
    o << "<text x=\"" << num(lx + 30) << "\" y=\"" << num(ly + 4) << "\">" << xml_escape(c.frontier_label)
      << "</text>\n";
    ly += 19;
  }
  if (c.provenance_key) {
    o << "<circle cx=\"" << num(lx + 11) << "\" cy=\"" << num(ly) << "\" r=\"4\" fill=\"#555555\" stroke=\"#555555\"/>";
    o << "<text x=\"" << num(lx + 30) << "\" y=\"" << num(ly + 4) << "\">measured curves (interpolated)</text>\n";
    ly += 17;
    o << "<circle cx=\"" << num(lx + 11) << "\" cy=\"" << num(ly)
      << "\" r=\"4\" fill=\"#ffffff\" stroke=\"#555555\" stroke-width=\"1.8\"/>";
    o << "<text x=\"" << num(lx + 30) << "\" y=\"" << num(ly + 4) << "\">extrapolated or fitted curves</text>\n";
    ly += 17;
    o << "<rect x=\"" << num(lx + 7) << "\" y=\"" << num(ly - 4)
      << "\" width=\"8\" height=\"8\" fill=\"#ffffff\" stroke=\"#555555\" stroke-width=\"1.8\"/>";
    o << "<text x=\"" << num(lx + 30) << "\" y=\"" << num(ly + 4) << "\">datasheet placeholder</text>\n";
    ly += 17;
    o << "<line x1=\"" << num(lx + 11) << "\" y1=\"" << num(ly - 6) << "\" x2=\"" << num(lx + 11) << "\" y2=\""
      << num(ly + 6) << "\" stroke=\"#555555\"/>";
    o << "<text x=\"" << num(lx + 30) << "\" y=\"" << num(ly + 4) << "\">95% interval (see notes)</text>\n";
  }
  o << "</g>\n";

  // Notes, wrapped: every word shown.
  double ny = H - 14 - 14.0 * static_cast<double>(notes.size() > 0 ? notes.size() - 1 : 0);
  for (const auto& n : notes) {
    o << "<text x=\"" << num(left) << "\" y=\"" << num(ny) << "\" font-size=\"10\" fill=\"#555555\">" << xml_escape(n)
      << "</text>\n";
    ny += 14;
  }
  o << "</svg>\n";
  return o.str();
}

}  // namespace tycoon::analysis
