#include "ui/chart_frame.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/analysis/chart_scale.h"
#include "ui/format.h"
#include "ui/theme.h"

namespace tycoon::ui::chart {

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

namespace {

// Width of a legend laid out on one row.
float legend_width(const Legend& entries) {
  float w = 0;
  for (const auto& e : entries) w += ImGui::CalcTextSize(e.first.c_str()).x + 22;
  return w;
}

}  // namespace

namespace {

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

}  // namespace

Frame begin_frame(const char* id, ImVec2 size, int extra_rows) {
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

namespace {

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

}  // namespace

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

}  // namespace tycoon::ui::chart
