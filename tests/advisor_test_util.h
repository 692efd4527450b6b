// A small market for the advisor tests: GPT-OSS-120B on eight H200s with demand a little above
// what they serve (speed turns into revenue, reputation into demand), on the real simulator.
#pragma once

#include "sim/advisor/advisor.h"
#include "tests/game_test_util.h"

namespace tycoon::test {

// Requests per second offered at day 0, full reputation and list price: about 95% of what eight
// replicas serve within the SLO (~150/s at a 2 s TTFT, measured with `tycoon run`).
inline constexpr double kAdvisorTestRequestsPerS = 140.0;

// One H200 market for GPT-OSS-120B where demand starts just below what eight replicas serve and
// grows past it, so that speed turns into revenue and reputation into demand.
inline game::Scenario advisor_market(int days = 2) {
  auto j = test::flat_scenario_json(kAdvisorTestRequestsPerS);
  j["id"] = "advisor-test";
  j["days"] = days;
  j["company"]["starting_cash_usd"] = 50000;
  j["company"]["fixed_cost_usd_per_day"] = 0;
  auto& seg = j["segments"][0];
  seg["workload"] = {{"kind", "random"}, {"input_tokens", 1000}, {"output_tokens", 500}};
  seg["demand"]["reputation_sensitivity"] = 1.0;
  seg["demand"]["growth_per_day"] = 0.15;  // the market outgrows the fleet: speed pays
  seg["demand_noise"] = 0.02;
  j["serving"] = {{"window_s", 30}, {"warmup_s", 10}, {"min_window_requests", 100}};
  j["market"][0]["available_gpus"] = 16;
  j["start"] = {{"contracts", {{{"chip", "h200"}, {"contract", "on_demand"}, {"num_gpus", 8}}}},
                {"deployments", {{{"model", "gpt-oss-120b"}, {"chip", "h200"}, {"replicas", 8}}}}};
  return test::scenario_from(j);
}

// The advisor on a fast cadence with short simulations, for tests.
inline advisor::AdvisorOptions fast_advisor_options() {
  advisor::AdvisorOptions o;
  o.first_proposal_hour = 2;
  o.code_change_interval_hours = 3;
  o.recipe_search = false;  // recipe search has its own test; keep the campaign fast
  o.min_op_share = 0.02;
  o.benchmark_requests = 96;
  return o;
}

}  // namespace tycoon::test
