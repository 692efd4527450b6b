// Helpers for the economics and game tests: the bundled catalog, a closed-form stand-in for the
// serving simulator (so that money can be checked to the cent), and small scenarios built in code.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/data/catalog.h"
#include "sim/game/game.h"
#include "sim/game/scenario.h"
#include "sim/game/serving_window.h"
#include "tests/test_common.h"

namespace tycoon::test {

// A serving "simulator" with a fixed capacity of `capacity_per_replica` requests per second per
// replica: arrivals up to capacity complete (with the workload's nominal token counts, nothing
// cached), the rest fail; latencies are fixed at `ttft_s` and `tpot_s`.
struct FixedCapacityBackend {
  double capacity_per_replica = 10;
  double ttft_s = 0.5;
  double tpot_s = 0.02;

  serving::ServingSummary operator()(const serving::ServingConfig& c, const perf::CalibrationProfile&) const {
    serving::ServingSummary s;
    double counted_s = c.duration_s - c.warmup_s;
    double arrived = c.arrival.rate_per_s * c.duration_s;
    double completed = std::min(arrived, capacity_per_replica * c.replicas * c.duration_s);
    double counted_completed = completed * counted_s / c.duration_s;
    s.requests_arrived = std::llround(arrived);
    s.requests_completed = std::llround(completed);
    s.requests_failed = s.requests_arrived - s.requests_completed;
    s.requests_timed_out = s.requests_failed;
    s.input_tokens = std::llround(counted_completed * static_cast<double>(c.workload.input_tokens));
    s.output_tokens = std::llround(counted_completed * static_cast<double>(c.workload.output_tokens));
    s.ttft_s = {ttft_s, ttft_s, ttft_s, ttft_s};
    s.tpot_s = {tpot_s, tpot_s, tpot_s, tpot_s};
    s.e2e_s = {ttft_s + tpot_s * static_cast<double>(c.workload.output_tokens), 0, 0, 0};
    return s;
  }
};

inline std::shared_ptr<game::ServingWindows> fixed_capacity_windows(double capacity_per_replica = 10) {
  return std::make_shared<game::ServingWindows>(FixedCapacityBackend{capacity_per_replica});
}

// A one-segment GPT-OSS-120B scenario on H200 with flat demand (no diurnal swing, growth, noise
// or elasticity surprises), whole-hour windows and no warmup, so that hourly numbers are exact.
inline nlohmann::json flat_scenario_json(double requests_per_s = 2.0) {
  auto j = nlohmann::json::parse(R"({
    "format_version": 1, "id": "test-flat", "name": "Flat test market", "kind": "sandbox", "seed": 5, "days": 2,
    "company": {"starting_cash_usd": 10000, "fixed_cost_usd_per_day": 240},
    "market": [
      {"chip": "h200", "contract": "on_demand", "available_gpus": 16, "lead_time_hours": 0},
      {"chip": "h200", "contract": "reserved", "available_gpus": 16, "lead_time_hours": 24, "term_days": 30},
      {"chip": "h200", "contract": "spot", "available_gpus": 16, "lead_time_hours": 0, "interruptions_per_hour": 0}
    ],
    "segments": [{"id": "chat", "model": "gpt-oss-120b",
                  "workload": {"kind": "random", "input_tokens": 1000, "output_tokens": 500},
                  "demand": {"base_requests_per_s": 2.0, "price_elasticity": 0, "reputation_sensitivity": 0},
                  "slo": {"ttft_s": 2.0, "tpot_s": 0.05}}],
    "goals": [{"kind": "profit_usd", "target": 1000}, {"kind": "survive"}],
    "serving": {"full_hour": true, "warmup_s": 0}
  })");
  j["segments"][0]["demand"]["base_requests_per_s"] = requests_per_s;
  return j;
}

inline game::Scenario scenario_from(const nlohmann::json& j) {
  return game::scenario_from_json(j, "test.json", catalog());
}

// A game on the flat scenario with `gpus` on-demand H200s rented and one replica on each.
inline game::Game flat_game(double requests_per_s, int gpus, double capacity_per_replica = 10) {
  auto j = flat_scenario_json(requests_per_s);
  if (gpus > 0) {
    j["start"] = {{"contracts", {{{"chip", "h200"}, {"contract", "on_demand"}, {"num_gpus", gpus}}}},
                  {"deployments", {{{"model", "gpt-oss-120b"}, {"chip", "h200"}, {"replicas", gpus}}}}};
  }
  game::GameOptions o;
  o.windows = fixed_capacity_windows(capacity_per_replica);
  return game::Game(scenario_from(j), catalog(), o);
}

}  // namespace tycoon::test
