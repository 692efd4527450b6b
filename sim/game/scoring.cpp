#include "sim/game/scoring.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/game/scenario.h"
#include "sim/game/slo.h"

namespace tycoon::game {

double slo_attainment(const GameState& s) {
  return slo_attainment(s.service.requests_within_slo, s.service.requests_offered);
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
    case GoalKind::kTutorialComplete:
      std::snprintf(buf, sizeof buf, "do every step of the tutorial");
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
      case GoalKind::kTutorialComplete:
        // The share of steps done.
        r.achieved = scenario.tutorial_steps.empty() ? 1.0
                                                     : static_cast<double>(s.world.tutorial_step) /
                                                           static_cast<double>(scenario.tutorial_steps.size());
        break;
    }
    if (g.kind == GoalKind::kTutorialComplete) {
      r.met = r.achieved >= 1.0;
      r.progress = r.achieved;
    } else if (g.kind == GoalKind::kSurvive) {
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

namespace {

std::string fmt(const char* f, double a, double b = 0, double c = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, f, a, b, c);
  return buf;
}

}  // namespace

Score score(const Scenario& scenario, const GameState& s, const std::vector<GoalResult>& goals, const ScoreInputs& in) {
  Score sc;
  sc.passed = std::all_of(goals.begin(), goals.end(), [](const GoalResult& r) { return r.met; });
  const double profit = s.ledger.totals().profit_usd();

  ScoreComponent p{
      "profit", "Profit",
      0,        kProfitPointsMax,
      false,    "known at the end: measured against doing nothing and the reference strategy on the same customers"};
  if (in.do_nothing_profit_usd && in.reference_profit_usd) {
    p.known = true;
    const double p0 = *in.do_nothing_profit_usd, pref = *in.reference_profit_usd;
    // The zero of the scale: doing nothing, sliding to no profit as doing nothing comes within
    // kTradeOffProfitGap of the reference's profit (a level whose lesson is a trade-off).
    const double gap = pref > 0 ? (pref - p0) / pref : 1.0;
    const double zero = p0 >= pref ? 0.0 : p0 * std::clamp(gap / kTradeOffProfitGap, 0.0, 1.0);
    const double span = pref - zero;
    // A reference that earns nothing over the zero (never in a shipped level: the balance test)
    // leaves only "did you at least match it".
    const double x = span > 1.0 ? (profit - zero) / span : (profit >= pref ? 1.0 : 0.0);
    // Linear up to the reference; beyond it the last points come ever more slowly (they never
    // saturate, so doing still better always shows).
    p.points = x <= 1.0 ? std::max(kProfitPoints * x, kProfitPointsMin)
                        : kProfitPoints + (kProfitPointsMax - kProfitPoints) *
                                              (1.0 - std::exp(-kProfitSlopeBeyondReference * (x - 1.0)));
    p.detail = fmt("$%.0f against $%.0f doing nothing and $%.0f for the reference", profit, p0, pref);
  }
  sc.components.push_back(p);

  const double target = slo_target(scenario), slo = slo_attainment(s);
  ScoreComponent v{"service", "Service", 0, kServicePoints, true, ""};
  v.points = std::clamp(kServicePoints * (slo - 0.5) / (target - 0.5), 0.0, kServicePoints);
  v.detail = fmt("SLO attainment %.1f%% (full points at %.0f%%, none at 50%%)", 100 * slo, 100 * target);
  sc.components.push_back(v);

  ScoreComponent solv{"solvency", "Solvency", 0, kSolvencyPoints, true, ""};
  const double lived = s.company.bankrupt ? static_cast<double>(s.company.bankrupt_at_hour.value_or(s.hour)) /
                                                static_cast<double>(std::max<std::int64_t>(1, s.end_hour))
                                          : 1.0;
  solv.points = kSolvencyPoints * std::clamp(lived, 0.0, 1.0);
  solv.detail = s.company.bankrupt ? fmt("bankrupt after %.0f%% of the game", 100 * lived) : "solvent throughout";
  sc.components.push_back(solv);

  ScoreComponent j{"judgement", "Advice calls",
                   0,           kJudgementPoints,
                   false,       "known at the end: your calls on the advisor's proposals against the truth"};
  if (in.judgement) {
    j.known = true;
    if (in.judgement->proposals > 0) {
      const auto& jd = *in.judgement;
      j.points = std::clamp(kJudgementPoints * (jd.right_calls - jd.bad_accepted - jd.good_missed) / jd.proposals, 0.0,
                            kJudgementPoints);
      j.detail = fmt("%.0f of %.0f proposals called right", jd.right_calls, jd.proposals);
      auto count = [](int n, const char* one, const char* many) {
        return std::to_string(n) + " " + (n == 1 ? one : many);
      };
      if (jd.bad_accepted > 0) j.detail += "; " + count(jd.bad_accepted, "bad proposal", "bad proposals") + " accepted";
      if (jd.good_missed > 0) j.detail += "; " + count(jd.good_missed, "good proposal", "good proposals") + " missed";
      if (jd.bad_accepted + jd.good_missed > 0) j.detail += " (each mistake takes a right call back)";
      sc.components.push_back(j);
    }
  } else {
    sc.components.push_back(j);
  }

  double got = 0, max = 0;
  for (const auto& c : sc.components) {
    if (!c.known) continue;
    got += c.points;
    max += c.max_points;
  }
  sc.final = std::all_of(sc.components.begin(), sc.components.end(), [](const ScoreComponent& c) { return c.known; });
  sc.points = max > 0 ? std::max(0.0, 100.0 * got / max) : 0.0;
  sc.max_points = 100;
  // A game handed in unfinished: the share of it played.
  const bool stopped = in.stopped_at_hour && *in.stopped_at_hour < s.end_hour;
  if (stopped) {
    sc.played_share = std::clamp(static_cast<double>(*in.stopped_at_hour) / static_cast<double>(s.end_hour), 0.0, 1.0);
    sc.points *= sc.played_share;
  }
  // The judgement component is only dropped when there was nothing to judge: `max` is then 90.
  if (s.company.bankrupt) {
    sc.stars = 0;
  } else if (!sc.passed || !sc.final) {
    sc.stars = 1;
  } else {
    const auto judged = std::find_if(sc.components.begin(), sc.components.end(),
                                     [](const ScoreComponent& c) { return c.id == "judgement" && c.known; });
    const bool calls_ok =
        judged == sc.components.end() || judged->points >= kThreeStarJudgementShare * judged->max_points;
    sc.stars = sc.points >= kThreeStarScore && calls_ok ? 3 : sc.points >= kTwoStarScore ? 2 : 1;
  }
  if (stopped) sc.stars = std::min(sc.stars, 1);
  return sc;
}

std::string score_rules() {
  return "Score out of 100: profit 50 (doing nothing earns 0, the reference strategy 40, beating it approaches 50, "
         "losing more than doing nothing down to -20; where doing nothing earns over half the reference's profit, the "
         "scale starts nearer no profit), "
         "service 25 (SLO attainment from 50% to the level's target), solvency 15, advice calls 10 (the share of the "
         "advisor's proposals called right, less one for each bad one accepted and each good one missed; without an "
         "advisor, out of 90 scaled to 100). The reference takes the advisor's good proposals. A game handed in "
         "unfinished scores that × the share of the game played.\n"
         "Stars: 1 solvent at the end; 2 every goal met and a score of 55; 3 every goal met and a score of 75.";
}

std::optional<std::string> level_to_pass_before(int level, const std::vector<std::pair<int, std::string>>& campaign) {
  const std::pair<int, std::string>* previous = nullptr;
  for (const auto& x : campaign) {
    if (x.first < level && (!previous || x.first > previous->first)) previous = &x;
  }
  if (!previous) return std::nullopt;
  return previous->second;
}

bool counts_for_progress(const Scenario& played, const Scenario& level, bool level_open) {
  return level_open && to_json(played) == to_json(level);
}

bool campaign_level_open(int level, const std::vector<std::pair<int, std::string>>& campaign,
                         const std::map<std::string, int>& best_stars) {
  const auto before = level_to_pass_before(level, campaign);
  if (!before) return true;
  const auto it = best_stars.find(*before);
  return it != best_stars.end() && unlocks_next_level(it->second);
}

}  // namespace tycoon::game
