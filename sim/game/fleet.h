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

// Ready GPUs under contract, all chips.
int ready_gpus(const Company& company, std::int64_t hour);

}  // namespace tycoon::game
