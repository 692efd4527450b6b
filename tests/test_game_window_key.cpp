// The serving-window cache is keyed by the complete configuration simulated:
// two hours that differ only in a field the old hand-kept key left out must not share a window.
#include <doctest/doctest.h>

#include "sim/game/serving_window.h"

using namespace tycoon;

TEST_CASE("windows differing only in KV admission, KV capacity or trace timestamps are simulated apart") {
  // A fake simulator that counts its calls: a cache hit is a call not made.
  // serve_hour simulates one window per hour (a few replicas at the bucketed load).
  int calls = 0;
  game::ServingWindows windows([&](const serving::ServingConfig&, const perf::CalibrationProfile&) {
    ++calls;
    return serving::ServingSummary{};
  });
  const perf::CalibrationProfile cal;
  game::WindowSpec base;
  base.calibration = &cal;
  base.deployment_key = "test";
  base.settings.window_s = 10;
  base.settings.warmup_s = 0;
  base.rate_per_s = 2.0;
  base.replicas = 1;

  windows.serve_hour(base);
  windows.serve_hour(base);
  CHECK(calls == 1);  // the same configuration twice: one simulation, one hit

  SUBCASE("KV admission") {
    auto s = base;
    s.scheduler.kv_admission = serving::KvAdmission::kGuaranteedNoEvict;
    windows.serve_hour(s);
    CHECK(calls == 2);
  }
  SUBCASE("KV capacity") {
    auto s = base;
    s.scheduler.kv_capacity_tokens = 4096;
    windows.serve_hour(s);
    CHECK(calls == 2);
  }
  SUBCASE("trace timestamps") {
    auto s = base;
    s.workload.trace_timestamps = !base.workload.trace_timestamps;
    windows.serve_hour(s);
    CHECK(calls == 2);
  }
}
