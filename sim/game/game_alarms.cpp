// The game's alarms: what went wrong this hour (SLO, losses, bankruptcy ahead), with its likely
// cause from the recent log, each raised once until it re-arms.
#include "sim/game/game.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/game/slo.h"

namespace tycoon::game {

NewsTone alarm_tone(AlarmKind kind) {
  switch (kind) {
    case AlarmKind::kSloDrop:
    case AlarmKind::kReputationDrop:
    case AlarmKind::kCashRunway:
      return NewsTone::kWarning;
    case AlarmKind::kNewProposal:
    case AlarmKind::kCheckReady:
      return NewsTone::kAdvice;
    case AlarmKind::kTutorialStep:
      return NewsTone::kInfo;
  }
  return NewsTone::kInfo;
}

void Game::alarm(AlarmKind kind, std::string text) {
  state_.news.push_back({state_.hour, std::move(text), kind, std::nullopt, alarm_tone(kind)});
}

std::string Game::recent_cause(std::int64_t hours, std::optional<std::string>* advice_id) const {
  const auto& s = state_;
  for (auto it = s.log.rbegin(); it != s.log.rend() && it->at_hour + hours >= s.hour; ++it) {
    const std::string when = " at hour " + std::to_string(it->at_hour);
    if (const auto* acc = std::get_if<AcceptAdvice>(&it->command)) {
      for (const auto& a : s.inbox) {
        if (a.id == acc->advice_id && a.status == AdviceStatus::kAccepted && !a.reverted_at_hour) {
          if (advice_id) *advice_id = a.id;
          return " after you accepted " + a.id + " (" + a.title + ")" + when;
        }
      }
    } else if (std::holds_alternative<ChangeRecipe>(it->command)) {
      return " after you changed a recipe" + when;
    } else if (std::holds_alternative<SetPrices>(it->command)) {
      return " after you changed your prices" + when;
    } else if (std::holds_alternative<ScaleReplicas>(it->command) || std::holds_alternative<Undeploy>(it->command) ||
               std::holds_alternative<ReleaseGpus>(it->command)) {
      return " after you cut capacity" + when;
    }
  }
  return "";
}

bool Game::slo_alarm_rearmed(std::int64_t h, double slo) const {
  // Hysteresis, read from the game's own history (nothing new to save): after an SLO alarm at
  // hour a, the next one needs the fall to have cleared (attainment back at kSloRearm in some
  // hour after a) or a fall into a worse band than the one reported (under 50% after 50-90%).
  constexpr double kSloRearm = 0.93;
  auto band = [](double x) { return x >= 0.9 ? 0 : x >= 0.5 ? 1 : 2; };
  const auto& series = state_.history[Series::kSloAttainment];
  for (auto it = state_.news.rbegin(); it != state_.news.rend(); ++it) {
    if (it->alarm != AlarmKind::kSloDrop) continue;
    const auto a = static_cast<std::size_t>(std::max<std::int64_t>(0, it->at_hour));
    if (a >= series.size()) return true;
    for (std::size_t k = a + 1; k < static_cast<std::size_t>(h) && k < series.size(); ++k) {
      if (series[k] >= kSloRearm) return true;
    }
    return band(slo) > band(series[a]);
  }
  return true;
}

void Game::raise_alarms(std::int64_t h, const std::array<double, kNumSeries>& row, const double* prev_slo,
                        const double* prev_reputation) {
  auto pct = [](double x) { return std::to_string(static_cast<int>(std::lround(100 * x))) + "%"; };
  const double slo = row[static_cast<std::size_t>(Series::kSloAttainment)];
  const double offered = row[static_cast<std::size_t>(Series::kRequestsOffered)];
  if (prev_slo && offered > 0) {
    // Through 90% or 50%, or more than halved (by at least ten points), in one hour.
    // A fall of under 5 points is noise around a threshold, not news.
    const bool through =
        *prev_slo - slo >= 0.05 && ((*prev_slo >= 0.9 && slo < 0.9) || (*prev_slo >= 0.5 && slo < 0.5));
    const bool halved = slo < 0.5 * *prev_slo && *prev_slo - slo >= 0.1;
    if ((through || halved) && slo_alarm_rearmed(h, slo)) {
      std::optional<std::string> cause;
      const std::string why = recent_cause(12, &cause);
      alarm(AlarmKind::kSloDrop, "SLO attainment fell to " + pct(slo) + " (from " + pct(*prev_slo) + ") in hour " +
                                     std::to_string(h) + why +
                                     (cause ? ". Undo it from this alarm or the deployment if it is the cause"
                                            : ". Requests beyond your capacity wait, time out and cost reputation") +
                                     ".");
      state_.news.back().advice_id = cause;
    }
  }
  const double rep = row[static_cast<std::size_t>(Series::kReputation)];
  if (prev_reputation) {
    for (double t : {0.75, 0.5, 0.25}) {
      if (*prev_reputation >= t && rep < t) {
        std::optional<std::string> cause;
        const std::string why = recent_cause(24, &cause);
        alarm(AlarmKind::kReputationDrop, "Reputation fell below " + pct(t) + " (now " + pct(rep) + ")" + why +
                                              ": demand follows reputation." +
                                              (cause ? " Undoing the change stops further harm; customers "
                                                       "remember the incident."
                                                     : ""));
        state_.news.back().advice_id = cause;
        break;
      }
    }
  }
  // Money: at this hour's loss, when does cash hit the credit line? Once a day at most.
  const double profit = row[static_cast<std::size_t>(Series::kProfitUsd)];
  const double room = state_.company.cash_usd + scenario_.company.credit_line_usd;
  if (profit < 0 && room > 0 && room / -profit < 72) {
    bool recent = false;
    for (auto it = state_.news.rbegin(); it != state_.news.rend() && it->at_hour + 24 > state_.hour; ++it) {
      recent = recent || it->alarm == AlarmKind::kCashRunway;
    }
    if (!recent) {
      alarm(AlarmKind::kCashRunway, "Cash runs out in about " + std::to_string(static_cast<int>(room / -profit)) +
                                        " hours at this hour's loss of $" + std::to_string(static_cast<int>(-profit)) +
                                        ": cut GPUs you do not use or raise prices.");
    }
  }
}

}  // namespace tycoon::game
