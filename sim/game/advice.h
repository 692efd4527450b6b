// The extension point for the advisor (sim/advisor, a separate issue): proposals the player
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
struct AdvisorState;  // sim/game/advisor_state.h

// What accepting a proposal changes on its deployment. The truth: front ends show the claim and
// the checks' measurements, never this (the debrief reveals it after the fact).
struct AdviceEffect {
  RecipeOverrides recipe;       // recipe fields to change (as ChangeRecipe)
  std::optional<int> replicas;  // with a tensor-parallel change: the replicas on the same GPUs
  double speedup = 1.0;         // code change: every GPU op and engine step runs this many times faster
  // Share of the deployment's segment reputation lost when accepted, in [0, 1]: outputs that
  // drift beyond tolerance, or a change that games the benchmark by rejecting requests.
  double reputation_hit = 0.0;
};

enum class AdviceStatus { kPending, kAccepted, kRejected };
inline constexpr std::array<std::string_view, 3> kAdviceStatusNames = {"pending", "accepted", "rejected"};

// The checks a player can pay for before deciding (CheckAdvice): a component test (cheap, its
// fixed shapes can mislead), an end-to-end benchmark (GPU hours and game hours, ±3.5% run to run),
// or a canary on a slice of real traffic (game hours; the slice bears what the change really does).
enum class AdviceCheckKind { kComponentTest, kBenchmark, kCanary };
inline constexpr std::array<std::string_view, 3> kAdviceCheckKindNames = {"component_test", "benchmark", "canary"};

// What a paid check measured: what the player may see once it is ready.
struct AdviceCheck {
  AdviceCheckKind kind = AdviceCheckKind::kComponentTest;
  std::int64_t requested_at_hour = 0;
  std::int64_t ready_at_hour = 0;                    // results are known from this hour on
  double measured_speedup = 1;                       // end to end (component test: Amdahl of the kernel it saw)
  std::optional<double> measured_component_speedup;  // component test only
  bool quality_flag = false;                         // outputs differed beyond tolerance
  bool rejection_flag = false;                       // requests were refused or failed
  double cost_usd = 0;                               // charged to cash when requested
  double reputation_hit = 0;                         // canary: share of reputation the slice's customers cost
  std::string note;

  bool ready(std::int64_t hour) const { return hour >= ready_at_hour; }
  bool operator==(const AdviceCheck&) const = default;
};

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
};

// How well the player judged the advisor, once the truth is known: proposals that counted (those
// posted at least kJudgedAfterHours before the end), the calls that were right (accepted a good
// one, rejected a bad one; undecided is never right) and the bad proposals accepted (the harmful
// mistake; rejecting a good one only misses a gain).
struct AdviceJudgement {
  int proposals = 0;
  int right_calls = 0;
  int bad_accepted = 0;
};
inline constexpr std::int64_t kJudgedAfterHours = 12;

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
  virtual AdviceCheck check(const GameState& state, AdvisorState& memory, const Advice& advice, AdviceCheckKind kind);
  // A copy for Game::fork (sim/game/sim_tape.h): caches may be shared or copied; it holds no state.
  virtual std::shared_ptr<Advisor> clone() const = 0;
  // The truth behind every proposal once the game is over (claim, truth, the call made, what it
  // cost or earned), for the debrief; null when the advisor keeps no such record. Game only
  // reveals it when the game has finished (Game::revealed_debrief).
  virtual nlohmann::json debrief_json(const GameState&) const { return nullptr; }
  // The calls against the truth, for the score (a hidden truth: Game only gives it once finished).
  virtual std::optional<AdviceJudgement> judgement(const GameState&) const { return std::nullopt; }
};

inline AdviceCheck Advisor::check(const GameState&, AdvisorState&, const Advice&, AdviceCheckKind) {
  throw core::InputError("this advisor sells no checks");
}

}  // namespace tycoon::game
