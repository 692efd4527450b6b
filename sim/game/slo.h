// Service-level objectives: the share of requests that met a latency target, estimated from the
// percentiles a serving window reports.
#pragma once

#include "sim/game/scenario.h"
#include "sim/serving/serving_sim.h"

namespace tycoon::game {

// Share of completed requests whose latency is at most `target_s`, from a piecewise-linear CDF
// through (0, 0), (p50, 0.5), (p90, 0.9), (p99, 0.99) and (2·p99, 1). 1 when every percentile is
// zero (nothing measured beyond the floor).
double share_within(const serving::LatencyStats& stats, double target_s);

// Share of completed requests meeting both targets. The two latencies rise together under load,
// so the joint share is taken as the smaller of the two (perfect correlation).
double share_within_slo(const serving::LatencyStats& ttft_s, const serving::LatencyStats& tpot_s,
                        const SloTargets& slo);

// SLO attainment of a period: requests within the SLO over requests offered (failed ones count as
// missed). 1 when none were offered: no customer was let down. Summed over hours, this is the
// offered-weighted mean of the hours' attainments.
double slo_attainment(double requests_within_slo, double requests_offered);

// SLO attainment of one simulated run: the completed requests' share within the SLO
// (share_within_slo) times the share that completed (failed ones count as missed).
double slo_attainment(const serving::ServingSummary& run, const SloTargets& slo);

// The SLO attainment a level asks for: its SLO goal's target, else 90%. The score's service
// component measures against it, and the panels colour attainments by it (slo_standing).
double slo_target(const Scenario& scenario);

// A P90 latency over its SLO bound: more than a tenth of the requests miss that bound (the
// deployment tables mark such a cell; the attainment itself counts request by request).
inline bool p90_over_bound(double p90_s, double bound_s) { return p90_s > bound_s; }

// How an attainment reads against the level's target: met, short (up to 20 points under it:
// customers notice), or failing.
enum class SloStanding { kMet, kShort, kFailing };
inline constexpr double kSloShortBand = 0.2;
SloStanding slo_standing(double attainment, const Scenario& scenario);

}  // namespace tycoon::game
