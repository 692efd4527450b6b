// A sweep's or a report's chart (analysis::Chart: series of points, lines, bands, markers) drawn
// in the chart frame.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/analysis/chart_scale.h"
#include "ui/chart.h"
#include "ui/chart_frame.h"
#include "ui/format.h"
#include "ui/theme.h"

namespace tycoon::ui::chart {

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

}  // namespace tycoon::ui::chart
