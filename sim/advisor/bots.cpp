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
          if (a->checks.empty()) {
            if (!game.apply(game::CheckAdvice{id, game::AdviceCheckKind::kBenchmark}).ok) {
              game.apply(game::RejectAdvice{id});
            }
            break;
          }
          const game::AdviceCheck& c = a->checks.back();
          if (!c.ready(game.state().hour)) break;  // the benchmark is still running
          bool good = c.measured_speedup >= options.min_measured_gain && !c.quality_flag && !c.rejection_flag;
          if (!good || !game.apply(game::AcceptAdvice{id}).ok) game.apply(game::RejectAdvice{id});
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
