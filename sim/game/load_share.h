// How a segment's load is split over its deployments: the router's rule, one implementation for
// the hour the game plays (Game::serve_segment) and for the front ends' previews.
#pragma once

#include <string>
#include <vector>

#include "sim/data/catalog.h"
#include "sim/game/scenario.h"
#include "sim/game/state.h"

namespace tycoon::game {

// The router's estimate of a deployment's capacity, by which a segment's load is split over its
// serving deployments: replicas × tensor parallel × HBM bandwidth × engine efficiency on the
// vendor × speedup (bytes per second; decode is bandwidth-bound). A disaggregated deployment's
// is its decode pool's (`decode_replicas` of them), which streams every output token.
double capacity_weight(const data::Catalog& catalog, const DeploymentState& d, int replicas, int decode_replicas);

// The router's estimate of each of `company`'s deployments' capacity for `segment` (indexed like
// company.deployments): capacity_weight at its active replicas for a deployment of the segment
// that serves, 0 for every other. `previewed`, when given and not serving yet, is weighed at the
// replicas it wants: the share it will get once its GPUs are in. A deployment whose chip or engine
// the catalog lacks weighs nothing.
std::vector<double> capacity_weights(const data::Catalog& catalog, const Company& company, const std::string& segment,
                                     const DeploymentState* previewed = nullptr);

// The share of its segment's load that deployment `d` receives (0 to 1) by capacity_weights with
// `d` previewed; 1 when the segment's weights sum to nothing. A `d` that is not one of `company`'s
// deployments (one the player is about to make) joins those serving at the replicas it wants.
double load_share(const data::Catalog& catalog, const Company& company, const DeploymentState& d);

// The requests per second `segment`'s customers offer now: its last hour's offered load, or before
// the first hour the scenario's base demand (0 for a segment the scenario lacks).
double offered_rate_now(const Scenario& scenario, const GameState& state, const std::string& segment);

// The part of it deployment `d` serves: offered_rate_now × load_share.
double deployment_rate_now(const Scenario& scenario, const data::Catalog& catalog, const GameState& state,
                           const DeploymentState& d);

}  // namespace tycoon::game
