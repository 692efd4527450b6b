// The company's figures over its last hours of play, summed from the hourly history: what the
// dashboard's cards and the top bar show for "24 h".
#pragma once

#include <cstddef>
#include <initializer_list>
#include <vector>

#include "sim/econ/ledger.h"
#include "sim/game/history.h"
#include "sim/game/state.h"

namespace tycoon::game {

// Series `s` summed over the last `hours` hours of `h` (all of them when it has fewer).
double sum_last(const History& h, Series s, std::size_t hours);

struct LastHours {
  econ::LedgerTotals money;  // revenue, GPU cost and fixed cost: margin and profit from them
  double output_tokens = 0;
  double requests_offered = 0;
  double requests_failed = 0;
  // Requests within SLO over requests offered: each hour's attainment weighted by the requests
  // offered in it, so a quiet night does not count as much as a busy day. 1 without requests.
  double slo_attainment = 1;
  // Requests failed over requests offered; 0 without requests.
  double failed_share() const { return requests_offered > 0 ? requests_failed / requests_offered : 0.0; }
};

// The last `hours` hours of `h` (fewer at the start of play).
LastHours last_hours(const History& h, std::size_t hours);

// Deployment `deployment_id`'s record of a recent hour: its newest among the last two simulated
// hours (one that stopped serving before them has none: its old latencies would mislead).
const DeploymentHour* last_hour_of(const GameState& s, std::int64_t deployment_id);

// Series `s` summed per game day of 24 hours, day 1 first (the last day partial when the
// history ends mid-day): the daily profit and loss charts.
std::vector<double> daily_sums(const History& h, Series s);

// The running total of `series` added together, hour by hour: element i sums hours 0..i (the
// debrief's cumulative revenue and costs).
std::vector<double> running_total(const History& h, std::initializer_list<Series> series);

// Cash now less cash `hours` hours ago (USD): the cash at the end of the hour `hours` before the
// last one played, or `starting_cash_usd` when fewer hours were played. Commands since the last
// hour (an early-release fee, a check) count, as they moved cash now.
double cash_change_usd(const History& h, double cash_now_usd, double starting_cash_usd, std::size_t hours);

}  // namespace tycoon::game
