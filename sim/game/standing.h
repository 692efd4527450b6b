// How a money figure stands, for the colour every front end gives it (the dashboard's cards, the
// top bar, the deploy preview, the debrief): one rule, so that the same margin is never green in
// one place and amber in another.
#pragma once

#include <optional>

#include "sim/game/counterfactual.h"

namespace tycoon::game {

enum class MoneyStanding { kGain, kEven, kLoss };

// A profit, a cash change or a profit gap: even within kSameProfitUsd of zero (cents are neither a
// gain nor a loss, as the debrief's gap rows judge them: profit_difference_sign).
inline MoneyStanding money_standing(double usd) {
  const int sign = profit_difference_sign(usd);
  return sign > 0 ? MoneyStanding::kGain : sign < 0 ? MoneyStanding::kLoss : MoneyStanding::kEven;
}
// A gross margin: a gain above zero, a loss at zero or below; even without revenue (no margin).
inline MoneyStanding margin_standing(std::optional<double> margin) {
  if (!margin) return MoneyStanding::kEven;
  return *margin > 0 ? MoneyStanding::kGain : MoneyStanding::kLoss;
}
// Cash in the bank: a loss below zero (the company is spending its credit line), else a gain.
inline MoneyStanding cash_standing(double cash_usd) {
  return cash_usd < 0 ? MoneyStanding::kLoss : MoneyStanding::kGain;
}

}  // namespace tycoon::game
