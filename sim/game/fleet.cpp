#include "sim/game/fleet.h"

#include <algorithm>
#include <map>

namespace tycoon::game {

namespace {

int contract_order(Contract c) {
  switch (c) {
    case Contract::kReserved:
      return 0;
    case Contract::kOnDemand:
      return 1;
    case Contract::kSpot:
      return 2;
  }
  return 3;
}

}  // namespace

int DeploymentAllocation::replicas_using(std::int64_t contract_id) const {
  int n = 0;
  for (const auto* pool : {&replica_contracts, &decode_replica_contracts}) {
    for (const auto& r : *pool) {
      if (std::find(r.begin(), r.end(), contract_id) != r.end()) ++n;
    }
  }
  return n;
}

std::vector<DeploymentAllocation> allocate_gpus(const Company& company, std::int64_t hour) {
  // Per chip: the ordered list of ready GPUs, each named by its contract.
  std::map<std::string, std::vector<const GpuContract*>> by_chip;
  for (const auto& c : company.contracts) {
    if (c.ready(hour)) by_chip[c.chip].push_back(&c);
  }
  std::map<std::string, std::vector<std::int64_t>> units;
  for (auto& [chip, list] : by_chip) {
    std::stable_sort(list.begin(), list.end(), [](const GpuContract* a, const GpuContract* b) {
      return std::pair(contract_order(a->contract), a->id) < std::pair(contract_order(b->contract), b->id);
    });
    auto& u = units[chip];
    for (const auto* c : list) u.insert(u.end(), static_cast<std::size_t>(c->num_gpus), c->id);
  }
  std::map<std::string, std::size_t> next;
  // Up to `replicas` replicas of `tp` GPUs of `chip`, each with the contracts its GPUs come from.
  auto take = [&](const std::string& chip, int replicas, int tp, int& active,
                  std::vector<std::vector<std::int64_t>>& contracts) {
    auto& u = units[chip];
    auto& pos = next[chip];
    const auto n = static_cast<std::size_t>(tp);
    while (active < replicas && pos + n <= u.size()) {
      std::vector<std::int64_t> ids(u.begin() + static_cast<std::ptrdiff_t>(pos),
                                    u.begin() + static_cast<std::ptrdiff_t>(pos + n));
      ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
      contracts.push_back(std::move(ids));
      ++active;
      pos += n;
    }
  };
  std::vector<DeploymentAllocation> out;
  for (const auto& d : company.deployments) {
    DeploymentAllocation a;
    a.deployment_id = d.id;
    take(d.chip, d.replicas, d.recipe.tensor_parallel, a.active_replicas, a.replica_contracts);
    if (d.decode) {
      take(d.decode->chip, d.decode->replicas, d.decode->recipe.tensor_parallel, a.decode_active_replicas,
           a.decode_replica_contracts);
    }
    out.push_back(std::move(a));
  }
  return out;
}

int unclaimed_gpus(const Company& company, const std::string& chip, std::optional<std::int64_t> except_deployment) {
  int n = 0;
  for (const auto& c : company.contracts) {
    if (c.chip == chip) n += c.num_gpus;
  }
  for (const auto& d : company.deployments) {
    if (d.id != except_deployment) n -= d.gpus_wanted(chip);
  }
  return n;
}

int contracted_gpus(const Company& company) {
  int n = 0;
  for (const auto& c : company.contracts) n += c.num_gpus;
  return n;
}

int ready_gpus(const Company& company, std::int64_t hour) {
  int n = 0;
  for (const auto& c : company.contracts) {
    if (c.ready(hour)) n += c.num_gpus;
  }
  return n;
}

double contract_price_usd_per_gpu_hour(const GpuContract& c, const econ::GpuMarket& market) {
  if (c.contract == Contract::kReserved) return c.signed_price_usd_per_gpu_hour;
  const auto* o = market.find(c.chip, c.contract);
  return o ? o->price_usd_per_gpu_hour() : c.signed_price_usd_per_gpu_hour;
}

double chip_price_usd_per_gpu_hour(const GameState& s, const std::string& chip) {
  double price = 0;
  if (const auto* o = s.world.market.find(chip, Contract::kOnDemand)) price = o->price_usd_per_gpu_hour();
  for (const auto& c : s.company.contracts) {
    if (c.chip == chip) return c.contract == Contract::kReserved ? c.signed_price_usd_per_gpu_hour : price;
  }
  return price;
}

bool serves_nothing(int replicas, const std::optional<DecodePoolState>& decode) {
  return replicas <= 0 || (decode && decode->replicas <= 0);
}

std::string unclaimed_label(int unclaimed) {
  return unclaimed >= 0 ? std::to_string(unclaimed) + " idle" : std::to_string(-unclaimed) + " short";
}

std::string idle_label(const DeploymentState& d, std::int64_t hour) {
  return d.created_at_hour == hour ? "next hour" : "no GPUs";
}

}  // namespace tycoon::game
