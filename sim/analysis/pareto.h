// Pareto frontier of (interactivity, throughput) points: both axes are better when larger.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace tycoon::analysis {

struct XY {
  double x = 0, y = 0;
};

// Indices of the points no other point dominates (another point at least as good on both axes
// and better on one), ordered by increasing x. Points with a non-finite coordinate are left out;
// of exact duplicates the first is kept.
std::vector<std::size_t> pareto_frontier(std::span<const XY> points);

}  // namespace tycoon::analysis
