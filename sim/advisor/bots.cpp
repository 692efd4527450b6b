#include "sim/advisor/bots.h"

#include <string>

namespace tycoon::advisor {

namespace {

const game::Advice* find_advice(const game::GameState& s, const std::string& id) {
  for (const auto& a : s.inbox) {
    if (a.id == id) return &a;
  }
  return nullptr;
}

}  // namespace

BotResult play_bot(game::Game& game, const std::shared_ptr<Chien>& advisor, BotPolicy policy,
                   const BotOptions& options) {
  game.set_advisor(advisor);
  const double start_cash = game.state().company.cash_usd;
  while (!game.finished()) {
    if (options.script) {
      for (const auto& c : *options.script) {
        if (c.at_hour == game.state().hour) game.apply(c.command);
      }
    }
    // Copy the ids first: applying a decision changes the inbox.
    std::vector<std::string> pending;
    for (const auto& a : game.state().inbox) {
      if (a.status == game::AdviceStatus::kPending) pending.push_back(a.id);
    }
    for (const auto& id : pending) {
      switch (policy) {
        case BotPolicy::kAcceptAll:
          if (!game.apply(game::AcceptAdvice{id}).ok) game.apply(game::RejectAdvice{id});
          break;
        case BotPolicy::kRejectAll:
          game.apply(game::RejectAdvice{id});
          break;
        case BotPolicy::kVerifyThenDecide: {
          const game::Advice* a = find_advice(game.state(), id);
          if (a->minor) {  // worth less than a check even if true
            game.apply(game::RejectAdvice{id});
            break;
          }
          if (a->checks.empty()) {
            // The cheaper of the two end-to-end checks: a benchmark on one replica, or a canary on
            // live traffic (cheaper where a replica is a whole node of dear GPUs).
            const auto bench =
                quote_check(advisor->options(), game.catalog(), game.state(), *a, game::AdviceCheckKind::kBenchmark);
            const auto canary =
                quote_check(advisor->options(), game.catalog(), game.state(), *a, game::AdviceCheckKind::kCanary);
            const auto kind = canary.available && canary.cost_usd < bench.cost_usd ? game::AdviceCheckKind::kCanary
                                                                                   : game::AdviceCheckKind::kBenchmark;
            if (!game.apply(game::CheckAdvice{id, kind}).ok) game.apply(game::RejectAdvice{id});
            break;
          }
          const game::AdviceCheck& c = a->checks.back();
          if (!c.ready(game.state().hour)) break;  // the check is still running
          // Undecided between no gain and a material one: the same check again for longer (more
          // runs, or more hours), once, if what the change is most likely worth (the estimate, or
          // the claim when that is lower) over the hours left once its result is in pays for it.
          if (game::check_undecided(c) && a->checks.size() == 1 && c.kind != game::AdviceCheckKind::kComponentTest) {
            const auto* d = game.state().company.find_deployment(a->deployment_id);
            const int more =
                c.kind == game::AdviceCheckKind::kBenchmark ? options.more_repetitions : options.more_canary_hours;
            const auto q = quote_check(advisor->options(), game.catalog(), game.state(), *a, c.kind, more);
            const double likely = std::min(a->claimed_speedup, c.measured_speedup);
            const auto left = static_cast<double>(game.state().end_hour - game.state().hour);
            const double after = std::max(0.0, left - static_cast<double>(q.hours));
            if (d && q.repetitions > c.repetitions && left > 0 &&
                claim_value_usd(game.catalog(), game.state(), *d, likely) * after / left > q.cost_usd &&
                game.apply(game::CheckAdvice{id, c.kind, more}).ok) {
              break;
            }
          }
          const auto call = game::evidence_call(*a, game.state().hour);
          if (call != game::AdviceStatus::kAccepted || !game.apply(game::AcceptAdvice{id}).ok) {
            game.apply(game::RejectAdvice{id});
          }
          break;
        }
      }
    }
    game.step();
  }
  BotResult r;
  r.profit_usd = game.state().company.cash_usd - start_cash;
  r.checks_usd = game.state().advisor.check_spend_usd;
  r.debrief = make_debrief(game.state());
  r.advisor = advisor;
  r.final_state = game.state();
  return r;
}

}  // namespace tycoon::advisor
