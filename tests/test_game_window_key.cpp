// The serving-window cache is keyed by the identity of the complete configuration simulated
// (serving::DeploymentPlan::identity): two hours that differ in any field that changes the
// simulation's result must not share a window, and the same configuration twice must.
#include <doctest/doctest.h>

#include "sim/game/serving_window.h"
#include "tests/game_test_util.h"

using namespace tycoon;

namespace {

// A plan of GPT-OSS-120B on one H200 with its catalog recipe and the accepted `speedup`.
serving::DeploymentPlan h200_plan(double speedup) {
  const auto& cat = test::catalog();
  serving::PlanRequest r;
  r.model = &cat.model("gpt-oss-120b");
  r.pool.chip = "h200";
  r.speedup = speedup;
  return serving::resolve_plan(cat, r, serving::catalog_calibrations(cat));
}

}  // namespace

TEST_CASE("windows differing only in KV admission, KV capacity, trace timestamps or a speedup are simulated apart") {
  // A fake simulator that counts its calls: a cache hit is a call not made.
  // serve_hour simulates one window per hour (a few replicas at the bucketed load).
  int calls = 0;
  game::ServingWindows windows([&](const serving::ServingConfig&, const perf::CalibrationProfile&) {
    ++calls;
    return serving::ServingSummary{};
  });
  game::WindowSpec base;
  base.plan = h200_plan(1.0);
  base.settings.window_s = 10;
  base.settings.warmup_s = 0;
  base.rate_per_s = 2.0;

  windows.serve_hour(base);
  windows.serve_hour(base);
  CHECK(calls == 1);  // the same configuration twice: one simulation, one hit

  SUBCASE("KV admission") {
    auto s = base;
    s.plan.config.scheduler.kv_admission = serving::KvAdmission::kGuaranteedNoEvict;
    windows.serve_hour(s);
    CHECK(calls == 2);
  }
  SUBCASE("KV capacity") {
    auto s = base;
    s.plan.config.scheduler.kv_capacity_tokens = 4096;
    windows.serve_hour(s);
    CHECK(calls == 2);
  }
  SUBCASE("trace timestamps") {
    auto s = base;
    s.workload.trace_timestamps = !base.workload.trace_timestamps;
    windows.serve_hour(s);
    CHECK(calls == 2);
  }
  SUBCASE("an accepted x1.1 code speedup (it tunes the chip, the engine and the calibration)") {
    auto s = base;
    s.plan = h200_plan(1.1);
    windows.serve_hour(s);
    CHECK(calls == 2);
  }
  SUBCASE("the API front end") {
    auto s = base;
    s.plan.config.api_server = false;
    windows.serve_hour(s);
    CHECK(calls == 2);
  }
}
