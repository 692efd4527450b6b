// The extension point for the advisor (sim/advisor, which the game does not depend on): proposals the player
// accepts or rejects. The game stores the inbox and applies accepted effects; it proposes nothing
// itself. An Advisor plugged into the Game posts proposals at the end of each hour.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/input_error.h"
#include "sim/game/recipe_settings.h"

namespace tycoon::game {

struct GameState;
struct Scenario;
struct AdvisorState;  // sim/game/advisor_state.h

// What accepting a proposal changes on its deployment. The truth: front ends show the claim and
// the checks' measurements, never this (the debrief reveals it after the fact).
struct AdviceEffect {
  serving::ServingOverrides recipe;  // recipe fields to change (as ChangeRecipe)
  std::optional<int> replicas;       // with a tensor-parallel change: the replicas on the same GPUs
  double speedup = 1.0;              // code change: every GPU op and engine step runs this many times faster
  // Share of the deployment's segment reputation lost when accepted, in [0, 1]: outputs that
  // drift beyond tolerance, or a change that games the benchmark by rejecting requests.
  double reputation_hit = 0.0;
};

enum class AdviceStatus { kPending, kAccepted, kRejected };
inline constexpr std::array<std::string_view, 3> kAdviceStatusNames = {"pending", "accepted", "rejected"};

// The checks a player can pay for before deciding (CheckAdvice): a component test (cheap, its
// fixed shapes can mislead), an end-to-end benchmark (GPU hours and game hours; paired runs with
// the hardware's run-to-run noise, reported as an interval and a verdict),
// or a canary on a slice of real traffic (game hours; the slice bears what the change really does).
enum class AdviceCheckKind { kComponentTest, kBenchmark, kCanary };
inline constexpr std::array<std::string_view, 3> kAdviceCheckKindNames = {"component_test", "benchmark", "canary"};

// What a check can tell, computed once here and shown by every front end (the card's colour, the
// tutorial's ring, the bots, the debrief): never the point estimate alone.
//   flagged               outputs differed beyond tolerance, or requests were refused
//   regression            the whole 95% interval of the end-to-end ratio is below 1
//   gain                  the interval is above 1 and the estimate is a material gain (kMaterialGain)
//   no_measurable_change  anything else: the check cannot tell the change from its own noise, or the
//                         gain is too small to be worth a change
enum class CheckVerdict { kGain, kNoMeasurableChange, kRegression, kFlagged };
inline constexpr std::array<std::string_view, 4> kCheckVerdictNames = {"gain", "no_measurable_change", "regression",
                                                                       "flagged"};
// A gain under 1% end to end is not worth a change: the same bar decides a proposal's truth
// (ProposalRecord::good) and a check's verdict.
inline constexpr double kMaterialGain = 0.01;
// A claim under this gain is minor whatever it is worth: even the longest benchmark (3 x the default
// runs, a 95% half width of about 1.1% at the hardware's run-to-run noise) cannot tell it from no
// gain worth a change (kMaterialGain). It goes to the advisor's digest.
inline constexpr double kMinorClaim = 0.025;
CheckVerdict check_verdict(double estimate, double interval_low, double interval_high, bool quality_flag,
                           bool rejection_flag);
// One sentence on a verdict for the player ("no measurable change: the interval x0.98-x1.03 holds 1").
std::string describe_verdict(CheckVerdict v);

// A benchmark is `repetitions` paired runs, a canary `repetitions` paired hours: more of them
// narrow its interval (and cost more, or take longer).
inline constexpr int kDefaultBenchmarkRepetitions = 4, kMaxCheckRepetitions = 64;

// What a paid check measured: what the player may see once it is ready.
struct AdviceCheck {
  AdviceCheckKind kind = AdviceCheckKind::kComponentTest;
  std::int64_t requested_at_hour = 0;
  std::int64_t ready_at_hour = 0;              // results are known from this hour on
  double measured_speedup = 1;                 // end to end (component test: Amdahl of the kernel it saw)
  double interval_low = 1, interval_high = 1;  // the 95% interval of the end-to-end ratio
  int repetitions = 1;                         // paired runs (benchmark), hours (canary), 1 (component)
  CheckVerdict verdict = CheckVerdict::kNoMeasurableChange;
  std::optional<double> measured_component_speedup;  // component test only
  bool quality_flag = false;                         // outputs differed beyond tolerance
  bool rejection_flag = false;                       // requests were refused or failed
  double cost_usd = 0;                               // charged to cash when requested
  double reputation_hit = 0;                         // canary: share of reputation the slice's customers cost
  std::string note;

  bool ready(std::int64_t hour) const { return hour >= ready_at_hour; }
  bool operator==(const AdviceCheck&) const = default;
};

// The call the evidence supports, by the one rule above: accept on a ready check whose verdict is
// a gain, reject on any other ready verdict (the newest ready check decides); none before a check
// is ready. The tutorial rings this button and the verify-then-decide bot presses it.
struct Advice;
std::optional<AdviceStatus> evidence_call(const Advice& advice, std::int64_t hour);
// The check that decides at `hour` (the newest ready one), as an index into advice.checks; none
// before a check is ready.
std::optional<std::size_t> deciding_check(const Advice& advice, std::int64_t hour);
// A check that cannot tell no gain from a material one: no measurable change, with its interval
// reaching a material gain (kMaterialGain) but not all above it. More runs or hours can settle it
// (the tutorial then rings the longer benchmark or canary; the verify-then-decide bot buys it where
// what the change is most likely worth, once the result is in, pays for it); deciding now would be
// a coin toss on a good proposal.
bool check_undecided(const AdviceCheck& c);

struct Advice {
  std::string id;
  std::int64_t deployment_id = 0;
  std::string title;
  std::string rationale;
  double claimed_speedup = 1.0;  // what the advisor claims; the simulator decides what is true
  AdviceEffect effect;
  AdviceStatus status = AdviceStatus::kPending;
  std::int64_t posted_at_hour = 0;
  std::optional<std::int64_t> decided_at_hour;
  std::vector<AdviceCheck> checks;  // paid for by the player, in order
  // Accepting keeps what it replaced, so that RevertAdvice can put it back.
  std::optional<RecipeSettings> previous_recipe;
  std::optional<int> previous_replicas;
  std::optional<std::int64_t> reverted_at_hour;
  // A minor proposal (its claimed gain is worth less than a check would cost): listed in the
  // advisor's digest, it stops no clock and the score does not judge it.
  bool minor = false;
};

// The player's decision on a proposal in words: "pending", "accepted", "rejected", or "undone" for
// one accepted and then reverted (RevertAdvice), whose change no longer serves.
std::string_view decision_label(const Advice& advice);

// How well the player judged the advisor, once the truth is known: proposals that counted (those
// posted at least kJudgedAfterHours before the end, minor ones left out), the calls that were
// right (accepted a good one, rejected a bad one; undecided is never right), the bad proposals
// accepted and the good ones missed (rejected or ignored): each of the two mistakes takes a right
// call back.
struct AdviceJudgement {
  int proposals = 0;
  int right_calls = 0;
  int bad_accepted = 0;
  int good_missed = 0;  // good proposals rejected or left undecided: a gain the player gave up
};
inline constexpr std::int64_t kJudgedAfterHours = 12;

// Why the player cannot start a check of `kind` costing `cost_usd` on `advice` now (nullopt: they
// can): one of that kind is still running on it (its result comes at its hour; a second would
// measure the same thing again), or paying would take cash below the credit line (which bankrupts
// the company). CheckAdvice refuses with this reason; the front ends grey the button and say it.
std::optional<std::string> check_refusal(const Scenario& scenario, const GameState& state, const Advice& advice,
                                         AdviceCheckKind kind, double cost_usd);

// Why an accepted proposal cannot be undone now (nullopt: RevertAdvice would undo it): it was not
// accepted, it was undone already, its deployment is gone, or it was accepted in a save written
// before undo existed (no recipe to go back to). The front ends offer Undo only where this is nullopt.
std::optional<std::string> revert_refusal(const GameState& state, const Advice& advice);

class Advisor {
 public:
  virtual ~Advisor() = default;
  // An advisor keeps no game state of its own: what it must remember (random streams, records,
  // counters) lives in `memory`, the game's own state.advisor, so that saves hold it. Whatever an
  // advisor keeps itself is a cache: a pure function of its inputs.
  //
  // Called after every simulated hour. Must be a deterministic function of the state (memory
  // included) so that a command log replays the same game. Returned proposals are appended to the inbox.
  virtual std::vector<Advice> propose(const GameState& state, AdvisorState& memory) = 0;
  // Runs a check the player pays for (CheckAdvice). Must be a deterministic function of the state
  // and memory. Throws std::invalid_argument when the check cannot run (by default: an advisor
  // that sells no checks).
  virtual AdviceCheck check(const GameState& state, AdvisorState& memory, const Advice& advice, AdviceCheckKind kind,
                            int repetitions);
  // A copy for Game::fork (sim/game/sim_tape.h): caches may be shared or copied; it holds no state.
  virtual std::shared_ptr<Advisor> clone() const = 0;
  // The truth behind every proposal once the game is over (claim, truth, the call made, what it
  // cost or earned), for the debrief; null when the advisor keeps no such record. Game only
  // reveals it when the game has finished (Game::revealed_debrief).
  virtual nlohmann::json debrief_json(const GameState&) const { return nullptr; }
  // The calls against the truth, for the score (a hidden truth: Game only gives it once finished).
  virtual std::optional<AdviceJudgement> judgement(const GameState&) const { return std::nullopt; }
};

inline AdviceCheck Advisor::check(const GameState&, AdvisorState&, const Advice&, AdviceCheckKind, int) {
  throw core::InputError("this advisor sells no checks");
}

}  // namespace tycoon::game
