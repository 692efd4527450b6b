#include "ui/chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "sim/analysis/chart_scale.h"
#include "ui/format.h"
#include "ui/theme.h"

namespace tycoon::ui::chart {

namespace {

constexpr float kLeftMargin = 62;
constexpr float kBottomMargin = 34;
constexpr float kTopMargin = 22;
constexpr float kRightMargin = 12;

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
Range resolve(const Axis& axis, Range data) {
  Range r = data;
  if (!r.valid()) r = {0, 1};
  if (axis.include_zero) {
    r.lo = std::min(r.lo, 0.0);
    r.hi = std::max(r.hi, 0.0);
  }
  if (axis.min) r.lo = *axis.min;
  if (axis.max) r.hi = *axis.max;
  if (r.hi - r.lo < 1e-12) {
    // Flat data: a unit range above zero, or ±10% around the value.
    if (std::fabs(r.hi) < 1e-12) {
      r.lo = axis.min.value_or(0.0);
      r.hi = r.lo + 1.0;
    } else {
      const double pad = std::fabs(r.hi) * 0.1;
      r.lo -= axis.min ? 0 : pad;
      r.hi += pad;
    }
  } else if (!axis.max) {
    r.hi += (r.hi - r.lo) * 0.06;  // headroom
  }
  return r;
}

std::string unit_suffix(Unit u) {
  switch (u) {
    case Unit::kNone:
      return "";
    case Unit::kUsd:
      return " ($)";
    case Unit::kShare:
      return " (%)";
    case Unit::kTokens:
      return " (tokens)";
    case Unit::kTokPerS:
      return " (tok/s)";
    case Unit::kTokPerSPerUser:
      return " (tok/s/user)";
    case Unit::kReqPerS:
      return " (req/s)";
    case Unit::kSeconds:
      return " (s)";
    case Unit::kGameHour:
      return "";  // the ticks read as days and hours; the axis name says "game time"
    case Unit::kGameDay:
      return " (day)";
    case Unit::kGpus:
      return " (GPUs)";
    case Unit::kBytes:
      return " (GB)";
  }
  return "";
}

// The plot frame: reserves `size`, draws the background, returns the inner plot rectangle.
struct Frame {
  ImVec2 outer_min, outer_max, plot_min, plot_max;
  bool hovered = false;
  ImVec2 mouse;
  ImDrawList* dl = nullptr;
};

using Legend = std::vector<std::pair<std::string, ImU32>>;

// Width of a legend laid out on one row.
float legend_width(const Legend& entries) {
  float w = 0;
  for (const auto& e : entries) w += ImGui::CalcTextSize(e.first.c_str()).x + 22;
  return w;
}

// Rows the legend needs right of the axis label (first row) and then under it.
std::vector<Legend> legend_rows(const Legend& entries, float label_w, float width) {
  std::vector<Legend> rows(1);
  float avail = width - label_w - 16;
  float used = 0;
  for (const auto& e : entries) {
    const float w = ImGui::CalcTextSize(e.first.c_str()).x + 22;
    if (used + w > avail && (!rows.back().empty() || rows.size() == 1)) {
      rows.emplace_back();
      avail = width - 16;
      used = 0;
    }
    rows.back().push_back(e);
    used += w;
  }
  return rows;
}

Frame begin_frame(const char* id, ImVec2 size, int extra_rows = 0) {
  Frame f;
  if (size.x <= 0) size.x = ImGui::GetContentRegionAvail().x;
  if (size.y <= 0) size.y = 200;
  f.outer_min = ImGui::GetCursorScreenPos();
  f.outer_max = ImVec2(f.outer_min.x + size.x, f.outer_min.y + size.y);
  ImGui::InvisibleButton(id, size);
  f.hovered = ImGui::IsItemHovered();
  f.mouse = ImGui::GetIO().MousePos;
  f.dl = ImGui::GetWindowDrawList();
  f.plot_min = ImVec2(f.outer_min.x + kLeftMargin, f.outer_min.y + kTopMargin + 16.0f * static_cast<float>(extra_rows));
  f.plot_max = ImVec2(f.outer_max.x - kRightMargin, f.outer_max.y - kBottomMargin);
  // Outline only: a filled background would cost a rasterized rectangle per chart per frame on
  // software GL for a shade the eye barely sees.
  f.dl->AddRect(f.outer_min, f.outer_max, theme::kBorder, 6);
  return f;
}

float map_x(const Frame& f, const Range& r, double x) {
  return f.plot_min.x + static_cast<float>((x - r.lo) / (r.hi - r.lo)) * (f.plot_max.x - f.plot_min.x);
}
float map_y(const Frame& f, const Range& r, double y) {
  return f.plot_max.y - static_cast<float>((y - r.lo) / (r.hi - r.lo)) * (f.plot_max.y - f.plot_min.y);
}

void draw_y_axis(const Frame& f, const Axis& axis, const Range& r) {
  for (double t : analysis::nice_ticks_within(r.lo, r.hi, 5)) {
    float y = map_y(f, r, t);
    if (y < f.plot_min.y - 1 || y > f.plot_max.y + 1) continue;
    f.dl->AddLine(ImVec2(f.plot_min.x, y), ImVec2(f.plot_max.x, y),
                  t == 0 ? theme::with_alpha(theme::kText, 0.25f) : theme::kGrid);
    std::string s = format_value(axis.unit, t, true);
    ImVec2 ts = ImGui::CalcTextSize(s.c_str());
    f.dl->AddText(ImVec2(f.plot_min.x - ts.x - 6, y - ts.y * 0.5f), theme::kMuted, s.c_str());
  }
  std::string label = axis.label + unit_suffix(axis.unit);
  f.dl->AddText(ImVec2(f.outer_min.x + 8, f.outer_min.y + 4), theme::kMuted, label.c_str());
}

// Ticks for game hours: whole days when the range is long, else 1/2/3/6/12 hours.
std::vector<double> hour_ticks(double lo, double hi) {
  const double span = hi - lo;
  double step = 1;
  for (double s : {1.0, 2.0, 3.0, 6.0, 12.0, 24.0, 48.0, 72.0, 168.0, 336.0, 720.0}) {
    step = s;
    if (span / s <= 8) break;
  }
  std::vector<double> out;
  for (double t = std::ceil(lo / step) * step; t <= hi + 1e-9; t += step) out.push_back(t);
  return out;
}

void draw_x_axis(const Frame& f, const Axis& axis, const Range& r, bool vertical_grid) {
  std::vector<double> ticks =
      axis.unit == Unit::kGameHour ? hour_ticks(r.lo, r.hi) : analysis::nice_ticks_within(r.lo, r.hi, 6);
  float last_right = -1e9f;
  for (double t : ticks) {
    float x = map_x(f, r, t);
    if (x < f.plot_min.x - 1 || x > f.plot_max.x + 1) continue;
    if (vertical_grid) f.dl->AddLine(ImVec2(x, f.plot_min.y), ImVec2(x, f.plot_max.y), theme::kGrid);
    std::string s = format_value(axis.unit, t, true);
    ImVec2 ts = ImGui::CalcTextSize(s.c_str());
    float left = std::clamp(x - ts.x * 0.5f, f.plot_min.x - 20, f.plot_max.x - ts.x + 8);
    if (left < last_right + 6) continue;
    f.dl->AddText(ImVec2(left, f.plot_max.y + 3), theme::kMuted, s.c_str());
    last_right = left + ts.x;
  }
  std::string label = axis.label + unit_suffix(axis.unit);
  ImVec2 ls = ImGui::CalcTextSize(label.c_str());
  f.dl->AddText(ImVec2(f.plot_max.x - ls.x, f.outer_max.y - ls.y - 2), theme::kMuted, label.c_str());
}

// The legend right-aligned on the axis label's row, continuing on rows under it when it does not fit.
void draw_legend(const Frame& f, const std::vector<Legend>& rows) {
  float y = f.outer_min.y + 4;
  for (const auto& row : rows) {
    float x = f.outer_max.x - kRightMargin - legend_width(row) + 8;
    for (const auto& e : row) {
      f.dl->AddRectFilled(ImVec2(x, y + 4), ImVec2(x + 10, y + 12), e.second, 2);
      f.dl->AddText(ImVec2(x + 14, y), theme::kText, e.first.c_str());
      x += ImGui::CalcTextSize(e.first.c_str()).x + 22;
    }
    y += 16;
  }
}

// Lays out the legend for a chart of `size` with y label `label`; returns its rows.
std::vector<Legend> plan_legend(const Legend& entries, const std::string& label, ImVec2 size) {
  if (size.x <= 0) size.x = ImGui::GetContentRegionAvail().x;
  return legend_rows(entries, ImGui::CalcTextSize(label.c_str()).x + 8, size.x);
}

void clip_push(const Frame& f) { f.dl->PushClipRect(f.plot_min, ImVec2(f.plot_max.x + 1, f.plot_max.y + 1), true); }

}  // namespace

std::string format_value(Unit unit, double v, bool compact) {
  switch (unit) {
    case Unit::kNone: {
      char buf[32];
      std::snprintf(buf, sizeof buf, compact ? "%.3g" : "%.4g", v);
      return buf;
    }
    case Unit::kUsd:
      return fmt_usd(v);
    case Unit::kShare:
      return fmt_pct(v, compact ? 0 : 1);
    case Unit::kTokens:
      return compact ? fmt_count(v) : fmt_tokens(v);
    case Unit::kTokPerS:
      return compact ? fmt_count(v) : fmt_tok_per_s(v);
    case Unit::kTokPerSPerUser:
      return compact ? fmt_count(v) : fmt_count(v) + " tok/s/user";
    case Unit::kReqPerS:
      return compact ? fmt_count(v) : fmt_req_per_s(v);
    case Unit::kSeconds:
      return fmt_seconds(v);
    case Unit::kGameHour: {
      auto h = static_cast<long long>(std::llround(v));
      if (h < 0) {
        // Before play (history): whole days back from hour 0, "−2 d", or the hour of the day.
        char buf[48];
        const long long day = (h - 23) / 24, hod = ((h % 24) + 24) % 24;
        if (compact) {
          if (hod == 0) {
            std::snprintf(buf, sizeof buf, "%lld d", day);
          } else {
            std::snprintf(buf, sizeof buf, "%02lld:00", hod);
          }
        } else {
          std::snprintf(buf, sizeof buf, "history: %lld d, %02lld:00", day, hod);
        }
        return buf;
      }
      if (compact) {
        char buf[32];
        if (h % 24 == 0) {
          std::snprintf(buf, sizeof buf, "day %lld", h / 24 + 1);
        } else {
          std::snprintf(buf, sizeof buf, "%02lld:00", h % 24);
        }
        return buf;
      }
      return fmt_game_time(h);
    }
    case Unit::kGameDay: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "day %lld", static_cast<long long>(std::llround(v)));
      return buf;
    }
    case Unit::kGpus:
      return fmt_count(v) + (compact ? "" : " GPUs");
    case Unit::kBytes:
      return fmt_bytes(v);
  }
  return "";
}

void time_series(const char* id, std::span<const Line> lines, const Axis& x_axis, const Axis& y_axis, ImVec2 size) {
  Legend legend;
  if (lines.size() > 1 || (!lines.empty() && !lines[0].name.empty())) {
    for (const auto& l : lines) legend.emplace_back(l.name, l.color);
  }
  auto rows = plan_legend(legend, y_axis.label + unit_suffix(y_axis.unit), size);
  Frame f = begin_frame(id, size, static_cast<int>(rows.size()) - 1);
  Range xr, yr;
  for (const auto& l : lines) {
    if (l.values.empty()) continue;
    xr.add(l.x0);
    xr.add(l.x0 + l.dx * static_cast<double>(l.values.size() - 1));
    for (double v : l.values) yr.add(v);
  }
  Axis xa = x_axis;
  xa.include_zero = false;
  Range xrr = resolve(xa, xr);
  if (!x_axis.max) xrr.hi = xr.valid() ? std::max(xr.hi, xr.lo + 1) : 1;  // no headroom on time
  Range yrr = resolve(y_axis, yr);
  draw_y_axis(f, y_axis, yrr);
  draw_x_axis(f, x_axis, xrr, true);
  draw_legend(f, rows);

  if (!xr.valid()) {
    const char* msg = "no data yet: advance time";
    ImVec2 ts = ImGui::CalcTextSize(msg);
    f.dl->AddText(ImVec2((f.plot_min.x + f.plot_max.x - ts.x) * 0.5f, (f.plot_min.y + f.plot_max.y - ts.y) * 0.5f),
                  theme::kMuted, msg);
    return;
  }
  clip_push(f);
  if (x_axis.history_before && *x_axis.history_before > xrr.lo) {
    // The past before play: a shaded band up to hour 0, labelled.
    const float x1 = std::min(map_x(f, xrr, *x_axis.history_before), f.plot_max.x);
    f.dl->AddRectFilled(ImVec2(f.plot_min.x, f.plot_min.y), ImVec2(x1, f.plot_max.y),
                        theme::with_alpha(theme::kMuted, 0.14f));
    f.dl->AddLine(ImVec2(x1, f.plot_min.y), ImVec2(x1, f.plot_max.y), theme::with_alpha(theme::kText, 0.5f), 1.5f);
    f.dl->AddText(ImVec2(f.plot_min.x + 4, f.plot_min.y + 2), theme::kMuted, "history");
  }
  std::vector<ImVec2> pts;
  for (const auto& l : lines) {
    const std::size_t n = l.values.size();
    if (n == 0) continue;
    // Thin out to at most ~2 points per pixel column.
    const float width = f.plot_max.x - f.plot_min.x;
    const std::size_t stride = std::max<std::size_t>(1, static_cast<std::size_t>(static_cast<float>(n) / (width * 2)));
    pts.clear();
    for (std::size_t i = 0; i < n; i += stride) {
      double v = l.values[i];
      if (!std::isfinite(v)) continue;
      pts.emplace_back(map_x(f, xrr, l.x0 + l.dx * static_cast<double>(i)), map_y(f, yrr, v));
    }
    if (l.fill && pts.size() >= 2) {
      float y0 = map_y(f, yrr, std::clamp(0.0, yrr.lo, yrr.hi));
      ImU32 fc = theme::with_alpha(l.color, 0.16f);
      for (std::size_t i = 1; i < pts.size(); ++i) {
        f.dl->AddQuadFilled(pts[i - 1], pts[i], ImVec2(pts[i].x, y0), ImVec2(pts[i - 1].x, y0), fc);
      }
    }
    if (pts.size() == 1) {
      f.dl->AddCircleFilled(pts[0], 3, l.color);
    } else {
      f.dl->AddPolyline(pts.data(), static_cast<int>(pts.size()), l.color, ImDrawFlags_None, l.thickness);
    }
  }
  f.dl->PopClipRect();

  if (f.hovered && f.mouse.x >= f.plot_min.x && f.mouse.x <= f.plot_max.x) {
    double xv = xrr.lo + (f.mouse.x - f.plot_min.x) / (f.plot_max.x - f.plot_min.x) * (xrr.hi - xrr.lo);
    f.dl->AddLine(ImVec2(f.mouse.x, f.plot_min.y), ImVec2(f.mouse.x, f.plot_max.y),
                  theme::with_alpha(theme::kText, 0.4f));
    ImGui::BeginTooltip();
    bool header = false;
    for (const auto& l : lines) {
      if (l.values.empty()) continue;
      double fi = std::round((xv - l.x0) / l.dx);
      if (fi < 0 || fi >= static_cast<double>(l.values.size())) continue;
      auto i = static_cast<std::size_t>(fi);
      if (!header) {
        ImGui::TextDisabled("%s", format_value(x_axis.unit, l.x0 + l.dx * fi, false).c_str());
        header = true;
      }
      double v = l.values[i];
      ImGui::PushStyleColor(ImGuiCol_Text, l.color);
      ImGui::TextUnformatted("■");
      ImGui::PopStyleColor();
      ImGui::SameLine();
      ImGui::Text("%s: %s", l.name.empty() ? y_axis.label.c_str() : l.name.c_str(),
                  format_value(y_axis.unit, v, false).c_str());
      float y = map_y(f, yrr, v);
      if (y >= f.plot_min.y && y <= f.plot_max.y) {
        f.dl->AddCircleFilled(ImVec2(map_x(f, xrr, l.x0 + l.dx * fi), y), 3.5f, l.color);
      }
    }
    if (!header) ImGui::TextDisabled("no data here");
    ImGui::EndTooltip();
  }
}

void stacked_bars(const char* id, std::span<const std::string> categories, std::span<const BarLayer> layers,
                  const Axis& y_axis, ImVec2 size, bool show_net, bool show_legend) {
  Legend legend;
  if (show_legend) {
    for (const auto& l : layers) legend.emplace_back(l.name, l.color);
    if (show_net) legend.emplace_back("net", theme::kText);
  }
  auto rows = plan_legend(legend, y_axis.label + unit_suffix(y_axis.unit), size);
  Frame f = begin_frame(id, size, static_cast<int>(rows.size()) - 1);
  const std::size_t n = categories.size();
  Range yr;
  std::vector<double> net(n, 0.0);
  for (std::size_t c = 0; c < n; ++c) {
    double up = 0, down = 0;
    for (const auto& l : layers) {
      double v = c < l.values.size() ? l.values[c] : 0.0;
      (v >= 0 ? up : down) += v;
      net[c] += v;
    }
    yr.add(up);
    yr.add(down);
  }
  Range yrr = resolve(y_axis, yr);
  draw_y_axis(f, y_axis, yrr);
  draw_legend(f, rows);
  if (n == 0) {
    const char* msg = "no data yet: advance time";
    ImVec2 ts = ImGui::CalcTextSize(msg);
    f.dl->AddText(ImVec2((f.plot_min.x + f.plot_max.x - ts.x) * 0.5f, (f.plot_min.y + f.plot_max.y - ts.y) * 0.5f),
                  theme::kMuted, msg);
    return;
  }
  const float slot = (f.plot_max.x - f.plot_min.x) / static_cast<float>(n);
  const float bar = std::max(2.0f, slot * 0.68f);
  int hovered = -1;
  if (f.hovered && f.mouse.x >= f.plot_min.x && f.mouse.x < f.plot_max.x) {
    hovered = static_cast<int>((f.mouse.x - f.plot_min.x) / slot);
  }
  float last_label_right = -1e9f;
  for (std::size_t c = 0; c < n; ++c) {
    float cx = f.plot_min.x + slot * (static_cast<float>(c) + 0.5f);
    if (static_cast<int>(c) == hovered) {
      f.dl->AddRectFilled(ImVec2(cx - slot * 0.5f, f.plot_min.y), ImVec2(cx + slot * 0.5f, f.plot_max.y),
                          IM_COL32(255, 255, 255, 14));
    }
    double up = 0, down = 0;
    for (const auto& l : layers) {
      double v = c < l.values.size() ? l.values[c] : 0.0;
      if (v == 0) continue;
      double& base = v >= 0 ? up : down;
      float y0 = map_y(f, yrr, base);
      float y1 = map_y(f, yrr, base + v);
      base += v;
      f.dl->AddRectFilled(ImVec2(cx - bar * 0.5f, std::min(y0, y1)), ImVec2(cx + bar * 0.5f, std::max(y0, y1)),
                          l.color);
    }
    if (show_net) f.dl->AddCircleFilled(ImVec2(cx, map_y(f, yrr, net[c])), 3.0f, theme::kText);
    ImVec2 ts = ImGui::CalcTextSize(categories[c].c_str());
    float left = cx - ts.x * 0.5f;
    if (left > last_label_right + 6) {
      f.dl->AddText(ImVec2(left, f.plot_max.y + 3), theme::kMuted, categories[c].c_str());
      last_label_right = left + ts.x;
    }
  }
  if (hovered >= 0 && hovered < static_cast<int>(n)) {
    auto c = static_cast<std::size_t>(hovered);
    ImGui::BeginTooltip();
    ImGui::TextDisabled("%s", categories[c].c_str());
    for (const auto& l : layers) {
      double v = c < l.values.size() ? l.values[c] : 0.0;
      ImGui::PushStyleColor(ImGuiCol_Text, l.color);
      ImGui::TextUnformatted("■");
      ImGui::PopStyleColor();
      ImGui::SameLine();
      ImGui::Text("%s: %s", l.name.c_str(), format_value(y_axis.unit, v, false).c_str());
    }
    if (show_net) ImGui::Text("net: %s", format_value(y_axis.unit, net[c], false).c_str());
    ImGui::EndTooltip();
  }
}

ImU32 im_color(std::uint32_t rgba) {
  return IM_COL32((rgba >> 24) & 0xFF, (rgba >> 16) & 0xFF, (rgba >> 8) & 0xFF, rgba & 0xFF);
}

std::uint32_t model_color(ImU32 c) {
  const ImU32 r = (c >> IM_COL32_R_SHIFT) & 0xFF, g = (c >> IM_COL32_G_SHIFT) & 0xFF,
              b = (c >> IM_COL32_B_SHIFT) & 0xFF, a = (c >> IM_COL32_A_SHIFT) & 0xFF;
  return (r << 24) | (g << 16) | (b << 8) | a;
}

void plot(const char* id, const analysis::Chart& c, ImVec2 size) {
  auto color_of = [](std::uint32_t rgba, std::size_t index) {
    return rgba != 0 ? im_color(rgba) : theme::series_color(static_cast<int>(index));
  };
  Legend legend;
  for (std::size_t i = 0; i < c.series.size(); ++i)
    legend.emplace_back(c.series[i].name, color_of(c.series[i].color_rgba, i));
  if (c.highlight) legend.emplace_back(c.highlight->name, color_of(c.highlight->color_rgba, c.series.size()));
  auto rows = plan_legend(legend, c.y_label, size);
  Frame f = begin_frame(id, size, static_cast<int>(rows.size()) - 1);
  const analysis::ChartLayout layout = analysis::layout_chart(c);
  const float plot_w = f.plot_max.x - f.plot_min.x, plot_h = f.plot_max.y - f.plot_min.y;
  auto sx = [&](double x) { return f.plot_min.x + static_cast<float>(layout.x.fraction(x)) * plot_w; };
  auto sy = [&](double y) { return f.plot_max.y - static_cast<float>(layout.y.fraction(y)) * plot_h; };

  // Axes: the layout's ticks and labels, as in the SVG.
  for (std::size_t i = 0; i < layout.y.ticks.size(); ++i) {
    const float y = sy(layout.y.ticks[i]);
    f.dl->AddLine(ImVec2(f.plot_min.x, y), ImVec2(f.plot_max.x, y),
                  layout.y.ticks[i] == 0 ? theme::with_alpha(theme::kText, 0.25f) : theme::kGrid);
    const ImVec2 ts = ImGui::CalcTextSize(layout.y.labels[i].c_str());
    f.dl->AddText(ImVec2(f.plot_min.x - ts.x - 6, y - ts.y * 0.5f), theme::kMuted, layout.y.labels[i].c_str());
  }
  f.dl->AddText(ImVec2(f.outer_min.x + 8, f.outer_min.y + 4), theme::kMuted, c.y_label.c_str());
  float last_right = -1e9f;
  for (std::size_t i = 0; i < layout.x.ticks.size(); ++i) {
    const float x = sx(layout.x.ticks[i]);
    f.dl->AddLine(ImVec2(x, f.plot_min.y), ImVec2(x, f.plot_max.y), theme::kGrid);
    const ImVec2 ts = ImGui::CalcTextSize(layout.x.labels[i].c_str());
    const float left = std::clamp(x - ts.x * 0.5f, f.plot_min.x - 20, f.plot_max.x - ts.x + 8);
    if (left < last_right + 6) continue;
    f.dl->AddText(ImVec2(left, f.plot_max.y + 3), theme::kMuted, layout.x.labels[i].c_str());
    last_right = left + ts.x;
  }
  const ImVec2 ls = ImGui::CalcTextSize(c.x_label.c_str());
  f.dl->AddText(ImVec2(f.plot_max.x - ls.x, f.outer_max.y - ls.y - 2), theme::kMuted, c.x_label.c_str());
  draw_legend(f, rows);

  clip_push(f);
  for (const auto& r : c.references) {
    const ImU32 col = theme::with_alpha(theme::kCost, 0.8f);
    if (r.vertical) {
      const float x = sx(r.value);
      f.dl->AddLine(ImVec2(x, f.plot_min.y), ImVec2(x, f.plot_max.y), col, 1.5f);
      f.dl->AddText(ImVec2(x + 4, f.plot_min.y + 2), col, r.label.c_str());
    } else {
      const float y = sy(std::clamp(r.value, layout.y.lo, layout.y.hi));
      f.dl->AddLine(ImVec2(f.plot_min.x, y), ImVec2(f.plot_max.x, y), col, 1.5f);
      const ImVec2 ts = ImGui::CalcTextSize(r.label.c_str());
      f.dl->AddText(ImVec2(f.plot_max.x - ts.x - 4, y - ts.y - 2), col, r.label.c_str());
    }
  }
  // Frontiers: a dashed line through the front (the best y reachable at each x), each point ringed.
  const ImU32 front_col = theme::with_alpha(theme::kText, 0.55f);
  for (const auto& front : layout.frontiers) {
    for (std::size_t k = 1; k < front.size(); ++k) {
      const ImVec2 a(sx(front[k - 1].x), sy(front[k - 1].y)), b(sx(front[k].x), sy(front[k].y));
      const float len = std::hypot(b.x - a.x, b.y - a.y);
      const int dashes = std::max(1, static_cast<int>(len / 8));
      for (int d = 0; d < dashes; d += 2) {
        const float t0 = static_cast<float>(d) / static_cast<float>(dashes),
                    t1 = std::min(1.0f, static_cast<float>(d + 1) / static_cast<float>(dashes));
        f.dl->AddLine(ImVec2(a.x + (b.x - a.x) * t0, a.y + (b.y - a.y) * t0),
                      ImVec2(a.x + (b.x - a.x) * t1, a.y + (b.y - a.y) * t1), front_col, 2.0f);
      }
    }
    for (const auto& p : front) f.dl->AddCircle(ImVec2(sx(p.x), sy(p.y)), 6.5f, front_col, 12, 1.5f);
  }
  const analysis::ChartPoint* hovered = nullptr;
  std::string hovered_name;
  ImU32 hovered_col = 0;
  float best_d2 = 14 * 14;
  auto consider = [&](const analysis::ChartPoint& p, ImVec2 at, const std::string& name, ImU32 col) {
    if (!f.hovered) return;
    const float dx = at.x - f.mouse.x, dy = at.y - f.mouse.y;
    if (dx * dx + dy * dy < best_d2) {
      best_d2 = dx * dx + dy * dy;
      hovered = &p;
      hovered_name = name;
      hovered_col = col;
    }
  };
  bool any = false;
  std::vector<ImVec2> pts;
  for (std::size_t si = 0; si < c.series.size(); ++si) {
    const auto& s = c.series[si];
    const ImU32 col = color_of(s.color_rgba, si);
    pts.clear();
    for (const auto& p : s.points) {
      if (analysis::is_drawn(c, p)) pts.emplace_back(sx(p.x), sy(p.y));
    }
    if (s.connect && pts.size() >= 2) {
      f.dl->AddPolyline(pts.data(), static_cast<int>(pts.size()), col, ImDrawFlags_None, 1.8f);
    }
    for (const auto& p : s.points) {
      if (!analysis::is_drawn(c, p) || !p.marker) continue;
      any = true;
      const ImVec2 at(sx(p.x), sy(p.y));
      if (p.y_err > 0 && std::isfinite(p.y_err)) {
        f.dl->AddLine(ImVec2(at.x, sy(p.y - p.y_err)), ImVec2(at.x, sy(p.y + p.y_err)), col);
      }
      if (p.x_err > 0 && std::isfinite(p.x_err)) {
        f.dl->AddLine(ImVec2(sx(p.x - p.x_err), at.y), ImVec2(sx(p.x + p.x_err), at.y), col);
      }
      if (p.square) {
        f.dl->AddRect(ImVec2(at.x - 3.5f, at.y - 3.5f), ImVec2(at.x + 3.5f, at.y + 3.5f), col, 0, 0, 1.5f);
      } else if (p.hollow) {
        f.dl->AddCircle(at, 3.5f, col, 12, 1.5f);
      } else {
        f.dl->AddCircleFilled(at, 3.5f, col);
      }
      if (!p.label.empty()) f.dl->AddText(ImVec2(at.x + 5, at.y - 15), col, p.label.c_str());
      consider(p, at, s.name, col);
    }
  }
  if (c.highlight && analysis::is_drawn(c, c.highlight->point)) {
    any = true;
    const ImU32 col = color_of(c.highlight->color_rgba, c.series.size());
    const ImVec2 at(sx(c.highlight->point.x), sy(c.highlight->point.y));
    ImVec2 star[10];
    for (int k = 0; k < 10; ++k) {
      const float r = k % 2 == 0 ? 9.0f : 4.0f;
      const float a = -1.5708f + static_cast<float>(k) * 0.6283f;
      star[k] = ImVec2(at.x + r * std::cos(a), at.y + r * std::sin(a));
    }
    f.dl->AddConvexPolyFilled(star, 10, col);  // non-convex, but fills acceptably at this size
    f.dl->AddPolyline(star, 10, theme::kText, ImDrawFlags_Closed, 1.0f);
    consider(c.highlight->point, at, c.highlight->name, col);
  }
  f.dl->PopClipRect();
  if (!any) {
    const char* msg = "simulating…";
    const ImVec2 ts = ImGui::CalcTextSize(msg);
    f.dl->AddText(ImVec2((f.plot_min.x + f.plot_max.x - ts.x) * 0.5f, (f.plot_min.y + f.plot_max.y - ts.y) * 0.5f),
                  theme::kMuted, msg);
  }
  if (hovered) {
    ImGui::BeginTooltip();
    ImGui::TextColored(theme::vec4(hovered_col), "%s", hovered_name.c_str());
    if (!hovered->tooltip.empty()) {
      ImGui::TextUnformatted(hovered->tooltip.c_str());
    } else {
      ImGui::Text("%s: %.4g", c.x_label.c_str(), hovered->x);
      ImGui::Text("%s: %.4g", c.y_label.c_str(), hovered->y);
    }
    ImGui::EndTooltip();
  }
}

void split_bar(const char* id, std::span<const Segment> segments, double total, Unit unit, ImVec2 size) {
  if (size.x <= 0) size.x = ImGui::GetContentRegionAvail().x;
  if (size.y <= 0) size.y = 22;
  ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton(id, size);
  bool hovered = ImGui::IsItemHovered();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(p0, ImVec2(p0.x + size.x, p0.y + size.y), IM_COL32(40, 46, 62, 255), 4);
  double sum = 0;
  float x = p0.x;
  const float mouse_x = ImGui::GetIO().MousePos.x;
  const Segment* hovered_seg = nullptr;
  for (const auto& s : segments) {
    if (s.value <= 0 || total <= 0) continue;
    float w = static_cast<float>(s.value / total) * size.x;
    float x1 = std::min(x + w, p0.x + size.x);
    dl->AddRectFilled(ImVec2(x, p0.y), ImVec2(x1, p0.y + size.y), s.color);
    if (hovered && mouse_x >= x && mouse_x < x1) hovered_seg = &s;
    x = x1;
    sum += s.value;
  }
  if (sum > total * 1.0001) {  // overflow: mark the bar's end red
    dl->AddRect(p0, ImVec2(p0.x + size.x, p0.y + size.y), theme::kCost, 4, 0, 2.5f);
  } else {
    dl->AddRect(p0, ImVec2(p0.x + size.x, p0.y + size.y), theme::kBorder, 4);
  }
  // Legend, wrapped to the available width.
  bool first = true;
  const float right = ImGui::GetCursorScreenPos().x + ImGui::GetContentRegionAvail().x;
  for (const auto& s : segments) {
    const std::string text = s.name + " " + format_value(unit, s.value, false);
    const float w = ImGui::CalcTextSize(text.c_str()).x + ImGui::CalcTextSize("■").x + 18;
    if (!first) {
      ImGui::SameLine(0, 14);
      if (ImGui::GetCursorScreenPos().x + w > right) ImGui::NewLine();
    }
    first = false;
    ImGui::PushStyleColor(ImGuiCol_Text, s.color);
    ImGui::TextUnformatted("■");
    ImGui::PopStyleColor();
    ImGui::SameLine(0, 4);
    ImGui::TextDisabled("%s %s", s.name.c_str(), format_value(unit, s.value, false).c_str());
  }
  if (hovered_seg) {
    ImGui::BeginTooltip();
    ImGui::Text("%s: %s (%s of %s)", hovered_seg->name.c_str(), format_value(unit, hovered_seg->value, false).c_str(),
                fmt_pct(hovered_seg->value / total).c_str(), format_value(unit, total, false).c_str());
    ImGui::EndTooltip();
  }
}

}  // namespace tycoon::ui::chart
