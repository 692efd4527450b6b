#include "sim/analysis/pareto.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tycoon::analysis {

std::vector<std::size_t> pareto_frontier(std::span<const XY> points) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (std::isfinite(points[i].x) && std::isfinite(points[i].y)) order.push_back(i);
  }
  // Sweep from the largest x down: a point is on the frontier when its y beats every y seen so
  // far (all of which have x at least as large). Ties in x: the larger y first, then the index.
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (points[a].x != points[b].x) return points[a].x > points[b].x;
    return points[a].y > points[b].y;
  });
  std::vector<std::size_t> frontier;
  bool any = false;
  double best_y = 0;
  for (std::size_t i : order) {
    if (!any || points[i].y > best_y) {
      frontier.push_back(i);
      best_y = points[i].y;
      any = true;
    }
  }
  std::reverse(frontier.begin(), frontier.end());
  return frontier;
}

}  // namespace tycoon::analysis
