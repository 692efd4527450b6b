#include "sim/analysis/chart_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace tycoon::analysis {

namespace {

bool in_y_range(const Chart& c, double y) {
  return (!c.y_min || y >= *c.y_min - 1e-12) && (!c.y_max || y <= *c.y_max + 1e-12);
}

// Labels for linear ticks: as many decimals as the step needs.
std::vector<std::string> linear_labels(const std::vector<double>& ticks, bool percent) {
  const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : 1;
  std::vector<std::string> out;
  for (double t : ticks) out.push_back(tick_label(t, step, percent));
  return out;
}

// Whole decades around the positive values in [lo, hi], with 2x and 5x ticks when there are few.
std::vector<double> decade_ticks(double lo, double hi) {
  if (!(hi > 0)) lo = hi = 1;
  const int d0 = static_cast<int>(std::floor(std::log10(lo))),
            d1 = std::max(d0 + 1, static_cast<int>(std::ceil(std::log10(hi))));
  std::vector<double> ticks;
  for (int d = d0; d <= d1; ++d) {
    ticks.push_back(std::pow(10.0, d));
    if (d < d1 && d1 - d0 <= 3) {
      ticks.push_back(2 * std::pow(10.0, d));
      ticks.push_back(5 * std::pow(10.0, d));
    }
  }
  return ticks;
}

}  // namespace

double AxisLayout::fraction(double v) const {
  if (log) return (std::log10(std::max(v, lo)) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
  return (v - lo) / (hi - lo);
}

bool is_drawn(const Chart& chart, const ChartPoint& p) {
  return std::isfinite(p.x) && std::isfinite(p.y) && (!chart.y_log || p.y > 0) && in_y_range(chart, p.y);
}

ChartLayout layout_chart(const Chart& c) {
  // Data range, error bars and reference lines included; zero included so bars read honestly.
  double x0 = 0, x1 = 0, y0 = 0, y1 = 0;
  bool any = false;
  auto extend = [&](double x, double y) {
    if (!std::isfinite(x) || !std::isfinite(y)) return;
    x0 = std::min(x0, x);
    x1 = std::max(x1, x);
    y0 = std::min(y0, y);
    y1 = std::max(y1, y);
    any = true;
  };
  // The positive y values, for a log axis.
  double pos_lo = std::numeric_limits<double>::infinity(), pos_hi = 0;
  auto take = [&](const ChartPoint& p) {
    if (std::isfinite(p.y) && p.y > 0) {
      pos_lo = std::min(pos_lo, p.y);
      pos_hi = std::max(pos_hi, p.y);
    }
    if (!in_y_range(c, p.y)) return;
    extend(p.x - p.x_err, p.y - p.y_err);
    extend(p.x + p.x_err, p.y + p.y_err);
  };
  for (const auto& s : c.series) {
    for (const auto& p : s.points) take(p);
  }
  if (c.highlight) take(c.highlight->point);
  for (const auto& r : c.references) {
    if (r.vertical) {
      x1 = std::max(x1, r.value);
    } else {
      y0 = std::min(y0, r.value);
      y1 = std::max(y1, r.value);
    }
  }
  if (!any) {
    x1 = std::max(x1, 1.0);
    y1 = std::max(y1, 1.0);
  }
  if (c.x_min) x0 = *c.x_min;
  if (c.y_min) y0 = *c.y_min;
  if (c.y_max) y1 = *c.y_max;

  ChartLayout out;
  if (c.x_tick_step && *c.x_tick_step > 0 && c.x_min && c.x_max && *c.x_max > *c.x_min) {
    const double step = *c.x_tick_step;
    for (double t = *c.x_min; t < *c.x_max - 1e-9 * step; t += step) out.x.ticks.push_back(t);
    out.x.ticks.push_back(*c.x_max);
  } else {
    out.x.ticks = nice_ticks(x0, c.x_max ? *c.x_max : x1 * 1.02);
  }
  out.x.labels = linear_labels(out.x.ticks, false);
  if (c.y_log) {
    out.y.log = true;
    out.y.ticks = decade_ticks(pos_lo, pos_hi);
    for (double t : out.y.ticks) out.y.labels.push_back(tick_label(t, t, false));
  } else {
    out.y.ticks = nice_ticks(y0, c.y_max ? y1 : y1 * 1.04);
    out.y.labels = linear_labels(out.y.ticks, c.y_percent);
  }
  out.x.lo = out.x.ticks.front();
  out.x.hi = out.x.ticks.back();
  out.y.lo = out.y.ticks.front();
  out.y.hi = out.y.ticks.back();

  std::map<std::size_t, std::vector<XY>> groups;
  for (const auto& s : c.series) {
    if (!s.frontier_group) continue;
    auto& xy = groups[*s.frontier_group];
    for (const auto& p : s.points) {
      if (is_drawn(c, p)) xy.push_back({p.x, p.y});
    }
  }
  for (const auto& [group, xy] : groups) {
    if (xy.empty()) continue;
    std::vector<XY> front;
    for (std::size_t k : pareto_frontier(xy)) front.push_back(xy[k]);
    out.frontiers.push_back(std::move(front));
  }
  return out;
}

}  // namespace tycoon::analysis
