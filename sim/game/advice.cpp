#include "sim/game/advice.h"

#include <algorithm>

#include "sim/econ/prices.h"
#include "sim/game/scenario.h"
#include "sim/game/state.h"

namespace tycoon::game {

CheckVerdict check_verdict(double estimate, double interval_low, double interval_high, bool quality_flag,
                           bool rejection_flag) {
  if (quality_flag || rejection_flag) return CheckVerdict::kFlagged;
  if (interval_high < 1.0) return CheckVerdict::kRegression;
  if (interval_low > 1.0 && estimate >= 1.0 + kMaterialGain) return CheckVerdict::kGain;
  return CheckVerdict::kNoMeasurableChange;
}

std::string describe_verdict(CheckVerdict v) {
  switch (v) {
    case CheckVerdict::kGain:
      return "gain: the whole interval is above 1 and the gain is worth a change";
    case CheckVerdict::kNoMeasurableChange:
      return "no measurable change: the interval holds 1 (or the gain is under 1%), so the check cannot tell this "
             "change from its own noise";
    case CheckVerdict::kRegression:
      return "regression: the whole interval is below 1, the change makes you slower";
    case CheckVerdict::kFlagged:
      return "flagged: outputs differed beyond tolerance or requests were refused";
  }
  return "";
}

std::optional<std::size_t> deciding_check(const Advice& advice, std::int64_t hour) {
  for (std::size_t i = advice.checks.size(); i-- > 0;) {
    if (advice.checks[i].ready(hour)) return i;
  }
  return std::nullopt;
}

std::optional<AdviceStatus> evidence_call(const Advice& advice, std::int64_t hour) {
  const auto i = deciding_check(advice, hour);
  if (!i) return std::nullopt;
  return advice.checks[*i].verdict == CheckVerdict::kGain ? AdviceStatus::kAccepted : AdviceStatus::kRejected;
}

bool check_undecided(const AdviceCheck& c) {
  return c.verdict == CheckVerdict::kNoMeasurableChange && c.interval_high >= 1.0 + kMaterialGain &&
         c.interval_low < 1.0 + kMaterialGain;
}

std::optional<std::string> check_refusal(const Scenario& scenario, const GameState& state, const Advice& advice,
                                         AdviceCheckKind kind, double cost_usd) {
  std::string name(kAdviceCheckKindNames[static_cast<std::size_t>(kind)]);
  std::replace(name.begin(), name.end(), '_', ' ');
  for (const auto& c : advice.checks) {
    if (c.kind == kind && !c.ready(state.hour)) {
      return "a " + name + " of '" + advice.id + "' is running: its result comes at hour " +
             std::to_string(c.ready_at_hour);
    }
  }
  const double room = state.company.cash_usd + scenario.company.credit_line_usd;
  if (cost_usd > room) {
    return "the " + name + " costs " + econ::usd_text(cost_usd) + ", more than the cash and credit left (" +
           econ::usd_text(std::max(0.0, room)) + ")";
  }
  return std::nullopt;
}

std::optional<std::string> revert_refusal(const GameState& state, const Advice& advice) {
  if (advice.status != AdviceStatus::kAccepted) return "advice '" + advice.id + "' was not accepted";
  if (advice.reverted_at_hour) return "advice '" + advice.id + "' was already reverted";
  if (!state.company.find_deployment(advice.deployment_id)) {
    return "the advice's deployment " + std::to_string(advice.deployment_id) + " is gone";
  }
  if (!advice.previous_recipe) return "advice '" + advice.id + "' was accepted before undo existed";
  return std::nullopt;
}

std::string_view decision_label(const Advice& advice) {
  if (advice.status == AdviceStatus::kAccepted && advice.reverted_at_hour) return "undone";
  return kAdviceStatusNames[static_cast<std::size_t>(advice.status)];
}

}  // namespace tycoon::game
