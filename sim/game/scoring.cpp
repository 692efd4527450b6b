#include "sim/game/scoring.h"

#include <algorithm>
#include <cstdio>

namespace tycoon::game {

double slo_attainment(const GameState& s) {
  return s.service.requests_offered > 0 ? s.service.requests_within_slo / s.service.requests_offered : 1.0;
}

namespace {

std::string describe(const Goal& g) {
  char buf[128];
  switch (g.kind) {
    case GoalKind::kProfitUsd:
      std::snprintf(buf, sizeof buf, "profit at least $%.0f", g.target);
      break;
    case GoalKind::kGrossMargin:
      std::snprintf(buf, sizeof buf, "gross margin at least %.0f%%", 100 * g.target);
      break;
    case GoalKind::kSloAttainment:
      std::snprintf(buf, sizeof buf, "SLO attainment at least %.0f%%", 100 * g.target);
      break;
    case GoalKind::kSurvive:
      std::snprintf(buf, sizeof buf, "stay solvent to the end");
      break;
    case GoalKind::kCashUsd:
      std::snprintf(buf, sizeof buf, "cash at least $%.0f", g.target);
      break;
    case GoalKind::kOutputTokens:
      std::snprintf(buf, sizeof buf, "serve at least %.3g output tokens", g.target);
      break;
  }
  return buf;
}

}  // namespace

std::vector<GoalResult> evaluate_goals(const Scenario& scenario, const GameState& s) {
  std::vector<GoalResult> out;
  const auto& t = s.ledger.totals();
  for (const auto& g : scenario.goals) {
    GoalResult r;
    r.goal = g;
    r.description = describe(g);
    switch (g.kind) {
      case GoalKind::kProfitUsd:
        r.achieved = t.profit_usd();
        break;
      case GoalKind::kGrossMargin:
        r.achieved = t.gross_margin().value_or(0.0);
        break;
      case GoalKind::kSloAttainment:
        r.achieved = slo_attainment(s);
        break;
      case GoalKind::kSurvive:
        r.achieved = s.company.bankrupt ? 0.0 : 1.0;
        break;
      case GoalKind::kCashUsd:
        r.achieved = s.company.cash_usd;
        break;
      case GoalKind::kOutputTokens:
        r.achieved = s.service.tokens.output_tokens;
        break;
    }
    if (g.kind == GoalKind::kSurvive) {
      r.met = !s.company.bankrupt;
      r.progress =
          r.met ? 1.0 : static_cast<double>(s.hour) / static_cast<double>(std::max<std::int64_t>(1, s.end_hour));
    } else {
      r.met = r.achieved >= g.target;
      if (r.met) {
        r.progress = 1.0;
      } else if (g.target > 0) {
        r.progress = std::clamp(r.achieved / g.target, 0.0, 1.0);
      } else {
        r.progress = 0.0;
      }
    }
    r.points = g.points * r.progress;
    out.push_back(r);
  }
  return out;
}

Score score(const Scenario& scenario, const GameState& s, const std::vector<GoalResult>& goals) {
  Score sc;
  sc.passed = true;
  bool profit_bonus = true;
  for (const auto& r : goals) {
    sc.points += r.points;
    sc.max_points += r.goal.points;
    sc.passed = sc.passed && r.met;
    if (r.goal.kind == GoalKind::kProfitUsd && !(r.achieved >= 1.5 * r.goal.target)) profit_bonus = false;
  }
  (void)scenario;
  sc.stars = s.company.bankrupt ? 0 : sc.passed ? (profit_bonus ? 3 : 2) : 1;
  return sc;
}

}  // namespace tycoon::game
