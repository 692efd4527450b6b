#include "sim/game/tutorial.h"

#include <algorithm>

#include "sim/game/fleet.h"
#include "sim/game/scenario.h"
#include "sim/game/state.h"

namespace tycoon::game {

namespace {

template <typename T, typename Pred>
bool logged(const GameState& s, Pred pred) {
  return std::any_of(s.log.begin(), s.log.end(), [&](const LoggedCommand& c) {
    const auto* x = std::get_if<T>(&c.command);
    return x && pred(*x);
  });
}

}  // namespace

const TutorialStep* current_step(const std::vector<TutorialStep>& steps, const GameState& s) {
  if (s.finished || s.world.tutorial_step >= steps.size()) return nullptr;
  return &steps[s.world.tutorial_step];
}

const TutorialHint* current_hint(const std::vector<TutorialHint>& hints, const GameState& s) {
  const std::size_t shown = std::min<std::size_t>(s.world.next_hint, hints.size());
  return shown == 0 ? nullptr : &hints[shown - 1];
}

bool step_done(const TutorialStep& step, const GameState& s) {
  switch (step.when) {
    case StepCondition::kGpusRented:
      return contracted_gpus(s.company) >= step.count;
    case StepCondition::kDeployments:
      return static_cast<double>(s.company.deployments.size()) >= step.count;
    case StepCondition::kReplicas: {
      int replicas = 0;
      for (const auto& d : s.company.deployments) replicas += d.replicas;
      return replicas >= step.count;
    }
    case StepCondition::kPricesSet:
      return logged<SetPrices>(s, [](const SetPrices&) { return true; });
    case StepCondition::kPanelViewed:
      return logged<ViewPanel>(s, [&](const ViewPanel& v) { return v.panel == step.panel; });
    case StepCondition::kHour:
      return static_cast<double>(s.hour) >= step.count;
    case StepCondition::kProposalPosted:
      return !s.inbox.empty();
    case StepCondition::kProposalChecked:
      return std::any_of(s.inbox.begin(), s.inbox.end(), [](const Advice& a) { return !a.checks.empty(); });
    case StepCondition::kCheckReady:
      return std::any_of(s.inbox.begin(), s.inbox.end(), [&](const Advice& a) {
        return std::any_of(a.checks.begin(), a.checks.end(), [&](const AdviceCheck& c) { return c.ready(s.hour); });
      });
    case StepCondition::kCheckedDecided:
      return std::any_of(s.inbox.begin(), s.inbox.end(),
                         [](const Advice& a) { return !a.checks.empty() && a.status != AdviceStatus::kPending; });
    case StepCondition::kFinished:
      return s.finished;
  }
  return false;
}

std::string step_target(const TutorialStep& step, const GameState& s) {
  if (step.target != kDecideTarget) return step.target;
  for (const auto& a : s.inbox) {
    if (a.status != AdviceStatus::kPending || a.checks.empty()) continue;
    const AdviceCheck& newest = a.checks.back();
    // A longer check bought on the ring below is still running: run the clock until it is in.
    if (a.checks.size() > 1 && !newest.ready(s.hour)) return std::string(kRunClockTarget);
    // The first benchmark or canary cannot tell: the longer one, not a coin toss on Accept or Reject.
    if (a.checks.size() == 1 && newest.ready(s.hour) && newest.kind != AdviceCheckKind::kComponentTest &&
        check_undecided(newest)) {
      return std::string(newest.kind == AdviceCheckKind::kBenchmark ? "advisor.check.benchmark_more."
                                                                    : "advisor.check.canary_more.") +
             a.id;
    }
    if (auto call = evidence_call(a, s.hour)) {
      return std::string(*call == AdviceStatus::kAccepted ? "advisor.accept." : "advisor.reject.") + a.id;
    }
  }
  return step.target;
}

}  // namespace tycoon::game
