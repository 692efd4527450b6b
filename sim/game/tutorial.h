// A tutorial that waits for the player: each step names what to do and where (a tab and a widget
// the front end highlights), and is done when the game's state shows it was done, never on a
// timer. Steps that ask for an action hold the clock (front ends do not run it while one waits);
// steps that ask the player to watch something happen let it run.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tycoon::game {

struct GameState;

enum class StepCondition {
  kGpusRented,       // at least `count` GPUs under contract
  kDeployments,      // at least `count` deployments
  kReplicas,         // at least `count` replicas wanted, over all deployments
  kPricesSet,        // the player set prices (a SetPrices command in the log)
  kPanelViewed,      // the player opened `panel` (a ViewPanel command in the log)
  kHour,             // the clock reached hour `count`
  kProposalPosted,   // the advisor has posted a proposal
  kProposalChecked,  // the player paid for a check of a proposal
  kCheckReady,       // a paid check's result is in
  kCheckedDecided,   // a proposal that was checked has been accepted or rejected
  kFinished,         // the game is over
};
inline constexpr std::array<std::string_view, 11> kStepConditionNames = {
    "gpus_rented",     "deployments",      "replicas",    "prices_set",      "panel_viewed", "hour",
    "proposal_posted", "proposal_checked", "check_ready", "checked_decided", "finished"};

// Panels a ViewPanel command may name (the front ends' tabs).
inline constexpr std::array<std::string_view, 9> kPanelNames = {
    "dashboard", "market", "deployments", "pricing", "traffic", "profiler", "pareto", "advisor", "debrief"};

struct TutorialStep {
  std::string id;
  std::string text;    // what to do, and why; player-facing
  std::string tab;     // the panel the step happens in ("" = anywhere)
  std::string target;  // the widget to highlight (a front-end tag; a trailing '.' matches a prefix)
  StepCondition when = StepCondition::kHour;
  double count = 1;   // kGpusRented, kDeployments, kReplicas, kHour
  std::string panel;  // kPanelViewed
  // An action step holds the clock; a step that waits for time to pass does not.
  bool holds_clock() const {
    return when != StepCondition::kHour && when != StepCondition::kProposalPosted &&
           when != StepCondition::kCheckReady && when != StepCondition::kFinished;
  }
};

// Whether `step` is done in `state`.
bool step_done(const TutorialStep& step, const GameState& state);

// The step the player is on in a game with these `steps`: none once every step is done or the
// game has ended (GameState's world.tutorial_step, which the game advances).
const TutorialStep* current_step(const std::vector<TutorialStep>& steps, const GameState& state);
// The newest of a scenario's `hints` shown so far (world.next_hint counts them), or none.
struct TutorialHint;
const TutorialHint* current_hint(const std::vector<TutorialHint>& hints, const GameState& state);

// The widget tag the front end highlights for `step` now. A step's target is fixed, except
// `kDecideTarget`: on the first pending proposal with a check, the button the evidence points at
// (game::evidence_call), "advisor.accept.<id>" or "advisor.reject.<id>"; where its first benchmark
// cannot tell (game::check_undecided), the longer benchmark "advisor.check.benchmark_more.<id>"
// (after a canary, the longer canary "advisor.check.canary_more.<id>"), and `kRunClockTarget`
// while that one runs (the prefix "advisor.decide." when no check is ready).
inline constexpr std::string_view kDecideTarget = "advisor.decide.";
// What the decide step rings while a longer benchmark or canary it asked for runs: the clock's 4x.
inline constexpr std::string_view kRunClockTarget = "time.4x";
std::string step_target(const TutorialStep& step, const GameState& state);

}  // namespace tycoon::game
