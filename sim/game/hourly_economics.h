// What a deployment would earn and pay per hour, from a simulated window of its serving, at the
// company's prices and today's rents: the deploy form's preview of a recipe against the current
// one. The game books the real hour itself (Game::step); this is the estimate a player decides on.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "sim/econ/ledger.h"
#include "sim/game/state.h"
#include "sim/serving/serving_sim.h"

namespace tycoon::game {

struct HourlyEconomics {
  double revenue_usd = 0;   // per hour
  double gpu_cost_usd = 0;  // per hour
  std::optional<double> gross_margin() const { return econ::gross_margin(revenue_usd, gpu_cost_usd); }
};

// Per hour, for the GPUs of `pools` serving like `window`: revenue is the window's output
// throughput per GPU times every GPU of the pools (a preview simulates a few replicas; per-GPU
// figures carry over), with input and cached input in the window's proportion, billed at the
// company's prices for `model` (nothing when it sells none); the GPU cost is each pool's GPUs at
// chip_price_usd_per_gpu_hour.
HourlyEconomics hourly_economics(const GameState& s, const std::string& model, const serving::ServingSummary& window,
                                 std::span<const PoolGpus> pools);

}  // namespace tycoon::game
