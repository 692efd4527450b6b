// What a price would earn next hour: the game's own forecast of profit per hour against price for
// one segment, for the pricing panel's chart. Every part is what the next hour books (Game::step),
// so that the chart and the hour played agree:
//   demand     the game's formula for the hour about to be played (the bill customers see against
//              the market's list price, reputation, demand events), without the hour's noise
//   requests   the serving windows' requests per demand request, from last hour (a multi-turn
//              customer sends several)
//   revenue    the tokens each request brought last hour (history grows, prefixes are cached),
//              billed at the curve's prices
//   capacity   what the fleet completed last hour when it was saturated (requests failed or
//              missed the SLO); otherwise only what it served is known, and the curve says so
//   costs      the segment's share of last hour's GPU rent and of the fixed costs
// The UI draws it and derives nothing.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/econ/prices.h"
#include "sim/game/scenario.h"
#include "sim/game/state.h"

namespace tycoon::game {

struct PricePoint {
  double price_ratio = 1;    // our price per request / the market's
  double offered_per_s = 0;  // requests per second customers would send
  double served_per_s = 0;   // of which the fleet completes (capped by capacity), in the same unit
  double revenue_usd_per_hour = 0;
  double profit_usd_per_hour = 0;  // revenue − the segment's share of rent and fixed costs
  bool beyond_known = false;       // more than the fleet has been seen to serve, capacity unknown
};

struct PriceResponse {
  std::vector<PricePoint> points;  // price ratios x0, x0 + dx, … up to x_max
  double x0 = 0.25, dx = 0.05, x_max = 3.0;
  double now_ratio = 1;  // the prices in force
  PricePoint now;
  // Requests per second (demand's unit) the fleet completed last hour when it was saturated;
  // without saturation capacity is unknown: at least `served_last_hour_per_s`.
  std::optional<double> capacity_per_s;
  double served_last_hour_per_s = 0;
  // The cheapest point of the curve whose demand the fleet can serve (capacity known): below its
  // price the extra customers only wait and fail.
  std::optional<PricePoint> capacity_limit;
  double rent_usd_per_hour = 0;   // the segment's share of last hour's GPU rent
  double fixed_usd_per_hour = 0;  // and of the fixed costs
  double costs_usd_per_hour() const { return rent_usd_per_hour + fixed_usd_per_hour; }
  // The ratio of the highest profit on the curve among the points it can vouch for (within the
  // capacity known; never a point beyond what the fleet has been seen to serve).
  std::optional<double> best_ratio;
  bool from_last_hour = false;  // false: no hour served yet, the curve prices the nominal request
  // The curve cannot vouch for next hour: agentic sessions run for hours, so next hour's requests
  // and tokens come mostly from sessions that began before it (the price changes only new ones).
  bool approximate = false;
  std::string approximate_why;
};

// The curve for segment `segment_index` if the company charged `draft` (scaled by the ratio).
PriceResponse price_response(const Scenario& scenario, const GameState& state, std::size_t segment_index,
                             const econ::TokenPrices& draft);

}  // namespace tycoon::game
