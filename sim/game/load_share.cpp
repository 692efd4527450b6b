#include "sim/game/load_share.h"

#include "sim/game/game.h"

namespace tycoon::game {

double load_share(const data::Catalog& catalog, const Company& company, const DeploymentState& d) {
  auto weight = [&](const DeploymentState& x) {
    const auto& chip = x.decode ? x.decode->chip : x.chip;
    if (!catalog.find_accelerator(chip) || !catalog.find_engine(x.decode ? x.decode->recipe.engine : x.recipe.engine))
      return 0.0;
    const int decode = x.decode ? (x.decode->active_replicas > 0 ? x.decode->active_replicas : x.decode->replicas) : 0;
    return capacity_weight(catalog, x, x.active_replicas > 0 ? x.active_replicas : x.replicas, decode);
  };
  double total = 0;
  for (const auto& x : company.deployments) {
    if (x.segment == d.segment) total += weight(x);
  }
  return total > 0 ? weight(d) / total : 1.0;
}

}  // namespace tycoon::game
