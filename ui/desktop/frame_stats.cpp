#include "ui/desktop/frame_stats.h"

#include <algorithm>
#include <cstdio>

#include <imgui.h>

namespace tycoon::ui::desktop {

namespace {

nlohmann::json to_json(const Percentiles& p) {
  return {{"median", p.median}, {"p99", p.p99}, {"max", p.max}, {"mean", p.mean}};
}

}  // namespace

Percentiles percentiles(std::vector<double> v) {
  Percentiles p;
  if (v.empty()) return p;
  std::sort(v.begin(), v.end());
  p.median = v[v.size() / 2];
  p.p99 = v[std::min(v.size() - 1, static_cast<std::size_t>(0.99 * static_cast<double>(v.size())))];
  p.max = v.back();
  double sum = 0;
  for (double x : v) sum += x;
  p.mean = sum / static_cast<double>(v.size());
  return p;
}

nlohmann::json frame_stats_json(const FrameLog& log, const App& app) {
  nlohmann::json stats;
  const auto w = percentiles(log.work_ms);
  stats["frames"] = log.frames;
  stats["wall_s"] = log.wall_s;
  stats["fps"] = log.wall_s > 0 ? log.frames / log.wall_s : 0;
  stats["frame_work_ms"] = to_json(w);
  stats["frame_interval_ms"] = to_json(percentiles(log.interval_ms));
  stats["frames_over_50ms"] = std::count_if(log.work_ms.begin(), log.work_ms.end(), [](double x) { return x > 50; });
  stats["first_frame_ms"] = log.first_frame_ms;
  stats["renders"] = log.renders;
  stats["screenshot_frames_held"] = log.screenshot_frames_held;
  stats["antialias"] = ImGui::GetStyle().AntiAliasedLines;
  if (log.antialias_dropped_at >= 0) stats["antialias_dropped_at_frame"] = log.antialias_dropped_at;
  stats["triangles_per_frame"] = to_json(percentiles(log.triangles));
  stats["ui_build_ms"] = to_json(percentiles(log.ui_ms));
  stats["gl_render_ms"] = to_json(percentiles(log.gl_ms));
  if (auto rs = app.runner_stats()) {
    stats["game_hours_simulated"] = rs->hours_simulated;
    stats["sim_step_ms"] = to_json(percentiles(rs->step_ms));
    stats["simulations_sliced"] = rs->simulations_sliced;
    stats["tick_ms_max"] = rs->tick_ms_max;
    stats["tick_max_what"] = rs->tick_max_what;
  }
  return stats;
}

void print_frame_stats(const FrameLog& log, const nlohmann::json& stats) {
  const auto w = percentiles(log.work_ms), iv = percentiles(log.interval_ms);
  std::printf(
      "frames %d in %.1f s: %.1f fps; frame work median %.2f ms, p99 %.2f ms, worst %.2f ms (%lld over 50 ms); "
      "frame interval median %.2f ms, worst %.2f ms",
      log.frames, log.wall_s, stats["fps"].get<double>(), w.median, w.p99, w.max,
      static_cast<long long>(stats["frames_over_50ms"].get<std::int64_t>()), iv.median, iv.max);
  std::printf(
      " (UI build median %.2f ms, worst %.2f ms; %d frames rasterized, median %.2f ms, worst %.2f ms, "
      "median %.0f triangles)",
      stats["ui_build_ms"]["median"].get<double>(), stats["ui_build_ms"]["max"].get<double>(), log.renders,
      stats["gl_render_ms"]["median"].get<double>(), stats["gl_render_ms"]["max"].get<double>(),
      stats["triangles_per_frame"]["median"].get<double>());
  if (stats.contains("sim_step_ms")) {
    std::printf("; %lld game hours simulated off-frame, step median %.1f ms, worst %.1f ms",
                static_cast<long long>(stats["game_hours_simulated"].get<std::int64_t>()),
                stats["sim_step_ms"]["median"].get<double>(), stats["sim_step_ms"]["max"].get<double>());
  }
  if (stats.value("tick_ms_max", 0.0) > 0)
    std::printf("; worst tick %.1f ms (%s)", stats["tick_ms_max"].get<double>(),
                stats["tick_max_what"].get<std::string>().c_str());
  if (log.antialias_dropped_at >= 0)
    std::printf("; anti-aliasing turned off at frame %d (slow rasterizer)", log.antialias_dropped_at);
  std::printf("\n");
}

}  // namespace tycoon::ui::desktop
