#include "sim/game/advice.h"

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

std::optional<AdviceStatus> evidence_call(const Advice& advice, std::int64_t hour) {
  for (auto it = advice.checks.rbegin(); it != advice.checks.rend(); ++it) {
    if (!it->ready(hour)) continue;
    return it->verdict == CheckVerdict::kGain ? AdviceStatus::kAccepted : AdviceStatus::kRejected;
  }
  return std::nullopt;
}

bool check_undecided(const AdviceCheck& c) {
  return c.verdict == CheckVerdict::kNoMeasurableChange && c.interval_high >= 1.0 + kMaterialGain &&
         c.interval_low < 1.0 + kMaterialGain;
}

}  // namespace tycoon::game
