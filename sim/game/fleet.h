// Which rented GPUs run which deployment's replicas.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/game/state.h"

namespace tycoon::game {

struct DeploymentAllocation {
  std::int64_t deployment_id = 0;
  int active_replicas = 0;
  // For each active replica, the contracts its GPUs come from.
  std::vector<std::vector<std::int64_t>> replica_contracts;
  // The decode pool of a disaggregated deployment: the same, for its replicas.
  int decode_active_replicas = 0;
  std::vector<std::vector<std::int64_t>> decode_replica_contracts;

  // Replicas that lose a GPU when `contract_id` goes away.
  int replicas_using(std::int64_t contract_id) const;
};

// Hands each chip's ready GPUs to deployments in id order, whole replicas at a time (a
// disaggregated deployment's prefill replicas, then its decode replicas). A chip's GPUs
// are ordered reserved, on-demand, then spot, by contract id within each, so that a spot
// interruption takes the fewest replicas. Returns one entry per deployment, in id order.
std::vector<DeploymentAllocation> allocate_gpus(const Company& company, std::int64_t hour);

// GPUs of `chip` under contract (ready or still in lead time) not wanted by any deployment other
// than `except_deployment`.
int unclaimed_gpus(const Company& company, const std::string& chip, std::optional<std::int64_t> except_deployment);
// Whether a deployment with these replicas (or a what-if of one) serves nothing: none in its pool,
// or a split one with none in its decode pool. Previews and profiles of it have nothing to run.
bool serves_nothing(int replicas, const std::optional<DecodePoolState>& decode);

// unclaimed_gpus in words: "3 idle" (rented, wanted by no deployment: rent for nothing), "0 idle",
// or "2 short" (deployments want more GPUs than the contracts hold).
std::string unclaimed_label(int unclaimed);

// Why deployment `d` served nothing in the last simulated hour, as a short label: made in `hour`
// ("next hour": it serves from the hour the clock runs next) or none of its pools had GPUs
// ("no GPUs").
std::string idle_label(const DeploymentState& d, std::int64_t hour);

// Ready GPUs under contract, all chips.
int ready_gpus(const Company& company, std::int64_t hour);
// GPUs under contract, all chips, ready or still in lead time.
int contracted_gpus(const Company& company);

// What one GPU of contract `c` costs per hour now (USD): a reserved contract pays the price it
// signed; on-demand and spot pay today's market price for their chip and contract type (the
// signed price when the market no longer offers it). The game's rent and the fleet view use it.
double contract_price_usd_per_gpu_hour(const GpuContract& c, const econ::GpuMarket& market);

// What one more GPU-hour of `chip` costs the company, for previews of a deployment (USD): the
// signed price when its first contract on the chip is reserved, else today's on-demand price of
// the chip (0 when the market offers none).
double chip_price_usd_per_gpu_hour(const GameState& s, const std::string& chip);

}  // namespace tycoon::game
