// The deployment as it runs beside a few single-lever changes of its recipe: what the Pareto
// chart sweeps, so the player sees which lever moves it where.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/data/catalog.h"
#include "sim/game/scenario.h"
#include "sim/game/state.h"
#include "sim/serving/deployment_plan.h"

namespace tycoon::game {

// The users on one replica at which the Pareto chart runs each alternative: powers of two from
// one user to 256 (vLLM's default max_num_seqs), as InferenceX sweeps concurrency.
inline constexpr std::array<int, 9> kParetoConcurrencies = {1, 2, 4, 8, 16, 32, 64, 128, 256};
// Requests per point: 3 per user, at least 24 — enough for a point's shape on the chart (mean
// throughput and interactivity), a third of a benchmark's serving::kRequestsPerUser so that the
// chart's 9 points per alternative stay quick in a browser tab. Not a steady-state benchmark.
inline constexpr std::int64_t kParetoRequestsPerUser = 3, kParetoMinRequests = 24;
inline std::int64_t pareto_requests(int users) {
  return std::max<std::int64_t>(kParetoRequestsPerUser * users, kParetoMinRequests);
}

// One point of the Pareto chart: `plan` as a closed-loop benchmark of `concurrency` users per
// replica (at least one) on `segment`'s traffic, pareto_requests of them in all.
serving::ServingConfig pareto_point(const serving::DeploymentPlan& plan, const SegmentSpec& segment, int concurrency,
                                    std::uint64_t seed);

struct RecipeAlternative {
  std::string label;           // "current: vllm fp8 TP1", "fp4 weights", "TP2", ...
  DeploymentState deployment;  // one replica (its decode pool's replicas as they are)
};

// `d` with one replica, labelled "current: <recipe>", then each of these changes that runs and
// fits (recipe_refusal): one precision step (bf16 → fp8 → fp4 where the chip has the tensor
// cores, else back to bf16); speculative decoding on with 3 drafts or off, and with drafts on the
// other of 3 and 7 drafts; twice the GPUs per replica within the scale-up domain; and the first
// other chip the market offers, on its starting recipe without the accepted code changes.
std::vector<RecipeAlternative> recipe_alternatives(const data::Catalog& catalog, const Scenario& scenario,
                                                   const GameState& state, const DeploymentState& d);

}  // namespace tycoon::game
