// What a price would earn: the game's own demand, capacity and cost for one segment, for the
// pricing panel's profit-versus-price chart (issue 15). The rules are the game's (Game::step):
// demand from the bill customers see (billed cached share) against the market's list price for
// the traffic they expect, the reputation and demand events; capacity from what the segment's
// deployments served within the SLO last hour; cost from last hour's rent. The UI draws it and
// derives nothing.
#pragma once

#include <optional>
#include <vector>

#include "sim/econ/prices.h"
#include "sim/game/scenario.h"
#include "sim/game/state.h"

namespace tycoon::game {

struct PricePoint {
  double price_ratio = 1;    // our price per request / the market's
  double offered_per_s = 0;  // requests per second customers would send
  double served_per_s = 0;   // of which the fleet serves within the SLO (capped by capacity)
  double revenue_usd_per_hour = 0;
  double profit_usd_per_hour = 0;  // revenue − the segment's share of last hour's rent
};

struct PriceResponse {
  std::vector<PricePoint> points;  // price ratios x0, x0 + dx, …
  double x0 = 0.25, dx = 0.05;
  double now_ratio = 1;  // the prices in force
  PricePoint now;
  // Requests per second the fleet served within the SLO last hour when it was saturated (requests
  // failed or missed the SLO); without saturation capacity is unknown: at least what was served.
  std::optional<double> capacity_per_s;
  double served_last_hour_per_s = 0;
  double rent_usd_per_hour = 0;      // the segment's share of last hour's GPU rent
  std::optional<double> best_ratio;  // the ratio of the highest profit on the curve
};

// The curve for segment `segment_index` if the company charged `draft` (scaled by the ratio).
PriceResponse price_response(const Scenario& scenario, const GameState& state, std::size_t segment_index,
                             const econ::TokenPrices& draft);

}  // namespace tycoon::game
