// How a segment's load is split over its deployments, for the front ends' previews.
#pragma once

#include "sim/data/catalog.h"
#include "sim/game/state.h"

namespace tycoon::game {

// The share of its segment's load that deployment `d` receives (0 to 1): its capacity weight
// (capacity_weight: GPUs × bandwidth × engine efficiency × speedup) over the sum of the weights of
// every deployment of the segment in `company`. Each counts its active replicas, or the replicas
// it wants while it has none active (a deployment waiting for GPUs is previewed as it will run);
// one whose chip or engine the catalog lacks weighs nothing. 1 when the segment's weights sum to
// nothing. The hour the game plays (Game::serve_segment) splits over its serving deployments only.
double load_share(const data::Catalog& catalog, const Company& company, const DeploymentState& d);

}  // namespace tycoon::game
