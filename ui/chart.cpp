#include "ui/chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "sim/analysis/chart_scale.h"
#include "ui/chart_frame.h"
#include "ui/format.h"
#include "ui/theme.h"

namespace tycoon::ui::chart {

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
