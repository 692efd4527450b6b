// Progress and an estimate of the time left, on stderr, for runs that last: nothing for the first
// few seconds (a short run stays quiet), then at most one line every two seconds, and a last line
// when a run that printed anything ends. stdout stays the answer alone.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>

namespace tycoon::cli {

class ProgressMeter {
 public:
  static constexpr double kQuietS = 3.0;     // runs shorter than this print nothing
  static constexpr double kIntervalS = 2.0;  // at most one line per interval

  // `what`: the command ("benchmark"); `unit`: what is counted ("requests", "hours").
  ProgressMeter(std::string what, double total, std::string unit)
      : what_(std::move(what)), unit_(std::move(unit)), total_(total), start_(std::chrono::steady_clock::now()) {}

  // `done` of `total` finished so far (monotone). A total <= 0: unknown (no estimate).
  void update(double done) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (elapsed < kQuietS || elapsed - last_print_s_ < kIntervalS) return;
    last_print_s_ = elapsed;
    print(done, elapsed);
  }
  // Prints the final line if anything was printed before.
  bool printed() const { return last_print_s_ >= 0; }
  void finish(double done) {
    if (last_print_s_ < 0) return;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::fprintf(stderr, "%s: %.0f %s done in %s\n", what_.c_str(), done, unit_.c_str(), duration(elapsed).c_str());
  }

  static std::string duration(double s) {
    if (!std::isfinite(s) || s < 0) return "?";
    char buf[48];
    if (s < 60) {
      std::snprintf(buf, sizeof buf, "%.0f s", s);
    } else if (s < 3600) {
      std::snprintf(buf, sizeof buf, "%d min %02d s", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
    } else {
      std::snprintf(buf, sizeof buf, "%d h %02d min", static_cast<int>(s) / 3600, (static_cast<int>(s) % 3600) / 60);
    }
    return buf;
  }

 private:
  void print(double done, double elapsed) const {
    if (total_ <= 0) {  // no known end: what is done so far
      std::fprintf(stderr, "%s: %.0f %s so far, %s elapsed\n", what_.c_str(), done, unit_.c_str(),
                   duration(elapsed).c_str());
      return;
    }
    const double rate = done / elapsed;
    const double left = rate > 0 && total_ >= done ? (total_ - done) / rate : -1;
    const double pct = total_ > 0 ? 100.0 * done / total_ : 0;
    std::fprintf(stderr, "%s: %.0f/%.0f %s (%.0f%%), %s elapsed, about %s left\n", what_.c_str(), done, total_,
                 unit_.c_str(), pct, duration(elapsed).c_str(), duration(left).c_str());
  }

  std::string what_, unit_;
  double total_;
  std::chrono::steady_clock::time_point start_;
  double last_print_s_ = -1;
};

}  // namespace tycoon::cli
