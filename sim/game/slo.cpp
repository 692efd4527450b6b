#include "sim/game/slo.h"

#include <algorithm>
#include <array>
#include <utility>

namespace tycoon::game {

double slo_attainment(double requests_within_slo, double requests_offered) {
  return requests_offered > 0 ? requests_within_slo / requests_offered : 1.0;
}

double slo_attainment(const serving::ServingSummary& run, const SloTargets& slo) {
  const double completed = static_cast<double>(run.requests_completed);
  const double ended = static_cast<double>(std::max<std::int64_t>(1, run.requests_completed + run.requests_failed));
  return share_within_slo(run.ttft_s, run.tpot_s, slo) * completed / ended;
}

double share_within(const serving::LatencyStats& s, double target_s) {
  if (s.p99 <= 0 && s.p90 <= 0 && s.p50 <= 0) return 1.0;
  const std::array<std::pair<double, double>, 5> knots = {{{0.0, 0.0},
                                                           {s.p50, 0.5},
                                                           {std::max(s.p90, s.p50), 0.9},
                                                           {std::max(s.p99, s.p90), 0.99},
                                                           {2.0 * std::max(s.p99, s.p90), 1.0}}};
  if (target_s >= knots.back().first) return 1.0;
  for (std::size_t i = 1; i < knots.size(); ++i) {
    auto [x0, y0] = knots[i - 1];
    auto [x1, y1] = knots[i];
    if (target_s < x1) {
      if (x1 <= x0) return y0;
      return y0 + (y1 - y0) * (target_s - x0) / (x1 - x0);
    }
  }
  return 1.0;
}

double share_within_slo(const serving::LatencyStats& ttft_s, const serving::LatencyStats& tpot_s,
                        const SloTargets& slo) {
  return std::min(share_within(ttft_s, slo.ttft_s), share_within(tpot_s, slo.tpot_s));
}

double slo_target(const Scenario& scenario) {
  for (const auto& g : scenario.goals) {
    if (g.kind == GoalKind::kSloAttainment && g.target > 0.5) return g.target;
  }
  return 0.9;
}

SloStanding slo_standing(double attainment, const Scenario& scenario) {
  const double target = slo_target(scenario);
  if (attainment >= target) return SloStanding::kMet;
  return attainment >= target - kSloShortBand ? SloStanding::kShort : SloStanding::kFailing;
}

}  // namespace tycoon::game
