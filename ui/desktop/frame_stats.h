// Frame-time statistics of the native game (--frame-stats, --dump-state): what each frame cost
// to build, rasterize and simulate, as percentiles.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "ui/app.h"

namespace tycoon::ui::desktop {

struct Percentiles {
  double median = 0, p99 = 0, max = 0, mean = 0;
};
// Of the values in `v` (zeros when empty).
Percentiles percentiles(std::vector<double> v);

// Frame times, in milliseconds, of the frames that were neither the first nor a screenshot.
struct FrameLog {
  std::vector<double> work_ms, interval_ms, ui_ms, gl_ms, triangles;
  int frames = 0;
  int renders = 0;
  int antialias_dropped_at = -1;
  int screenshot_frames_held = 0;  // frames script screenshots waited for a layout to settle
  double first_frame_ms = 0;
  double wall_s = 0;
};

// The frame statistics as JSON (the --dump-state file's "frame_stats").
nlohmann::json frame_stats_json(const FrameLog& log, const App& app);
// One line for --frame-stats.
void print_frame_stats(const FrameLog& log, const nlohmann::json& stats);

}  // namespace tycoon::ui::desktop
