// Frame timing measured in the browser: how long each frame's work took and the interval between
// frames (both in milliseconds), kept in order for percentiles.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include <nlohmann/json.hpp>

namespace tycoon::web {

struct FrameStats {
  std::vector<double> work_ms;      // main-loop callback, input to swap
  std::vector<double> interval_ms;  // start of one frame to the start of the next
  static constexpr std::size_t kMaxFrames = 200'000;

  void add(double work, double interval) {
    if (work_ms.size() >= kMaxFrames) return;
    work_ms.push_back(work);
    if (interval > 0) interval_ms.push_back(interval);
  }
  void clear() {
    work_ms.clear();
    interval_ms.clear();
  }
};

// {"n", "median", "p99", "max", "mean"} of `v` in its unit; zeros when empty.
inline nlohmann::json percentiles_json(std::vector<double> v) {
  nlohmann::json j = {{"n", v.size()}, {"median", 0.0}, {"p99", 0.0}, {"max", 0.0}, {"mean", 0.0}};
  if (v.empty()) return j;
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  j["median"] = v[v.size() / 2];
  j["p99"] = v[std::min(v.size() - 1, static_cast<std::size_t>(0.99 * static_cast<double>(v.size())))];
  j["max"] = v.back();
  j["mean"] = sum / static_cast<double>(v.size());
  return j;
}

}  // namespace tycoon::web
