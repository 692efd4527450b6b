// Axis ticks for every chart, drawn in the desktop/browser UI (ui/chart.cpp) or as SVG
// (svg_chart.cpp, class_charts.cpp): one rule for the step and the label, so a number reads the
// same on screen and in a report. Scatter/line charts take theirs from layout_chart (chart_model.h).
#pragma once

#include <string>
#include <vector>

namespace tycoon::analysis {

// The tick step for about `target` intervals over [lo, hi]: the smallest 1, 2 or 5 × 10^k at
// least (hi - lo) / target. Requires hi > lo and target >= 1.
double nice_step(double lo, double hi, int target);

// Tick positions covering [lo, hi] (the first at or below `lo`, the last at or above `hi`): integer
// multiples of nice_step, so an SVG axis can start and end on a tick. An empty or inverted range
// is taken as [lo, lo + 1].
std::vector<double> nice_ticks(double lo, double hi, int target = 6);

// The same ticks, only those inside [lo, hi] (with a relative slack of 1e-6 of the step): for an
// axis whose range is fixed by the data. Empty when hi <= lo or target < 1.
std::vector<double> nice_ticks_within(double lo, double hi, int target);

// A tick's label with as many decimals as the step needs ("0.25", "40%" with `percent`).
std::string tick_label(double v, double step, bool percent);

}  // namespace tycoon::analysis
