// Demand: how many requests per second a customer segment sends, given the hour, the company's
// prices against the market's, and the company's reputation. Pure functions of their arguments.
#pragma once

#include "sim/econ/prices.h"

namespace tycoon::econ {

// The shape of one segment's demand over time and its sensitivities.
struct DemandCurve {
  double base_requests_per_s = 0;       // daily mean at day 0, market price, full reputation
  double diurnal_amplitude = 0;         // relative swing: rate × (1 ± amplitude) at peak / trough
  double peak_hour = 14;                // hour of day (0–24) of the peak
  double growth_per_day = 0;            // compound: rate × (1 + growth)^day
  double price_elasticity = 1.0;        // demand ∝ (our price / market price)^-elasticity
  double reputation_sensitivity = 1.0;  // 0: indifferent to service quality, 1: demand ∝ reputation
};

// Most a price cut can multiply demand by (a segment has a finite number of customers).
inline constexpr double kMaxPriceBoost = 3.0;

// 1 + amplitude · cos(2π (hour − peak) / 24): 1 + amplitude at the peak, 1 − amplitude 12 h later.
double diurnal_factor(double amplitude, double peak_hour, double hour_of_day);

// (1 + growth_per_day)^day.
double growth_factor(double growth_per_day, double day);

// (price / reference)^-elasticity, capped at kMaxPriceBoost; 0 when price is infinite-like.
// `price_usd` and `reference_usd` are prices of the same average request.
double price_factor(double price_usd, double reference_usd, double elasticity);

// A price read against the market's: within kAtMarketBand of it counts as the market's price
// (at the elasticities the scenarios use, under 1.5, demand moves by under 8%), else above or below.
enum class PriceStanding { kBelow, kAtMarket, kAbove };
inline constexpr double kAtMarketBand = 0.05;
inline PriceStanding price_standing(double price_usd, double reference_usd) {
  const double r = price_usd / reference_usd;
  return r > 1 + kAtMarketBand   ? PriceStanding::kAbove
         : r < 1 - kAtMarketBand ? PriceStanding::kBelow
                                 : PriceStanding::kAtMarket;
}

// 1 − sensitivity × (1 − reputation), for reputation in [0, 1].
double reputation_factor(double reputation, double sensitivity);

// Offered requests per second at `hour` hours since the start (the hour's midpoint is used for
// the diurnal curve), before events and noise.
double offered_requests_per_s(const DemandCurve& curve, double hour, double price_usd, double reference_usd,
                              double reputation);

// Reputation after one hour in which `attainment` of the offered requests met the SLO: moves
// toward `attainment` with the given half-life (hours). Stays in [0, 1].
double next_reputation(double reputation, double attainment, double half_life_hours);

}  // namespace tycoon::econ
