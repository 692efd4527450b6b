#include "sim/game/load_share.h"

#include "sim/game/game.h"

namespace tycoon::game {

double capacity_weight(const data::Catalog& catalog, const DeploymentState& d, int replicas, int decode_replicas) {
  const bool split = d.decode.has_value();
  const auto& hw = catalog.accelerator(split ? d.decode->chip : d.chip);
  const auto& r = split ? d.decode->recipe : d.recipe;
  const auto& engine = catalog.engine(r.engine);
  return (split ? decode_replicas : replicas) * r.tensor_parallel * hw.hbm_bandwidth_bytes_per_s *
         engine.efficiency_on(hw.vendor) * d.speedup;
}

std::vector<double> capacity_weights(const data::Catalog& catalog, const Company& company, const std::string& segment,
                                     const DeploymentState* previewed) {
  std::vector<double> w(company.deployments.size(), 0.0);
  for (std::size_t i = 0; i < company.deployments.size(); ++i) {
    const auto& x = company.deployments[i];
    if (x.segment != segment) continue;
    const bool preview = previewed && x.id == previewed->id && !x.serving();
    if (!x.serving() && !preview) continue;
    const auto& chip = x.decode ? x.decode->chip : x.chip;
    if (!catalog.find_accelerator(chip) || !catalog.find_engine(x.decode ? x.decode->recipe.engine : x.recipe.engine))
      continue;
    w[i] = capacity_weight(catalog, x, x.replicas_now(), x.decode_replicas_now());
  }
  return w;
}

double load_share(const data::Catalog& catalog, const Company& company, const DeploymentState& d) {
  const auto w = capacity_weights(catalog, company, d.segment, &d);
  double total = 0, own = 0;
  bool found = false;
  for (std::size_t i = 0; i < w.size(); ++i) {
    total += w[i];
    if (company.deployments[i].id == d.id) {
      own = w[i];
      found = true;
    }
  }
  if (!found) {
    // One not made yet (the deploy form's): weighed at the replicas it wants beside those serving.
    const auto& r = d.decode ? d.decode->recipe : d.recipe;
    if (catalog.find_accelerator(d.decode ? d.decode->chip : d.chip) && catalog.find_engine(r.engine)) {
      own = capacity_weight(catalog, d, d.replicas, d.decode ? d.decode->replicas : 0);
      total += own;
    }
  }
  return total > 0 ? own / total : 1.0;
}

double offered_rate_now(const Scenario& scenario, const GameState& state, const std::string& segment) {
  for (const auto& s : state.world.segments) {
    if (s.id == segment && s.last_offered_requests_per_s > 0) return s.last_offered_requests_per_s;
  }
  if (const auto* seg = scenario.find_segment(segment)) return seg->demand.base_requests_per_s;
  return 0;
}

double deployment_rate_now(const Scenario& scenario, const data::Catalog& catalog, const GameState& state,
                           const DeploymentState& d) {
  return offered_rate_now(scenario, state, d.segment) * load_share(catalog, state.company, d);
}

}  // namespace tycoon::game
