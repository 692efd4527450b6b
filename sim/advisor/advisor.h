// Chien, the advisor: profiles each deployment on its own traffic, proposes recipe changes found
// by searching with the simulator and code changes from the catalog, sells checks (component test,
// end-to-end benchmark, canary), and keeps the record the debrief reads. Plugs into the game
// through game::Advisor (sim/game/advice.h); the truth of each proposal is the simulator's, on the
// player's traffic, and travels in the Advice's effect.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <boost/random/mersenne_twister.hpp>
#include <nlohmann/json.hpp>

#include "sim/advisor/code_change_catalog.h"
#include "sim/advisor/deployment_setup.h"
#include "sim/advisor/recipe_search.h"
#include "sim/game/advice.h"
#include "sim/game/counterfactual.h"
#include "sim/perf/profile_lookup.h"

namespace tycoon::game {
class Game;
}

namespace tycoon::advisor {

struct AdvisorOptions {
  std::int64_t first_proposal_hour = 2;          // after the deployments have served some traffic
  std::int64_t code_change_interval_hours = 12;  // one code change per deployment this often
  std::int64_t recipe_search_interval_hours = 24;
  bool recipe_search = true;
  int max_pending_per_deployment = 3;  // no new proposals while this many wait for a decision
  double min_op_share = 0.02;          // only op classes with at least this share of step time
  RecipeSearchOptions search;
  // Checks.
  double component_test_usd = 25;        // a few minutes of one GPU and an engineer
  double component_noise = 0.02;         // ± on the kernel speedup
  double component_catches_drift = 0.5;  // chance the tolerance check catches quality drift
  double benchmark_hours = 2;            // GPU hours per GPU of a replica, and game hours, for the
                                         // default number of paired runs (game::kDefaultBenchmarkRepetitions)
  // The hardware's run-to-run jitter of one run's throughput (a standard deviation). Seed 000
  // section 8: repeated one-hour runs of the same setup differ by up to about 3.5%; two runs'
  // difference has a standard deviation of sqrt(2) x 1.2% = 1.7%, so about 3.5% at two of them.
  double run_jitter = 0.012;
  double benchmark_catches_drift = 0.9;   // the benchmark's accuracy eval
  int benchmark_concurrency = 32;         // users a benchmark run keeps busy when the live load is unknown
  std::int64_t benchmark_requests = 160;  // at least this many requests a run
  std::int64_t benchmark_requests_per_user = 5;
  double canary_share = 0.1;     // share of the deployment's traffic
  double canary_hours = 6;       // one paired hour of live traffic each
  double canary_setup_usd = 40;  // an engineer's rollout and rollback
  // Recipe truth: the paired gain over this many seeds of `truth_window_factor` × the search window.
  int truth_seeds = 6;
  double truth_window_factor = 1;  // the game's own window length, more seeds than the search
};

using game::kProposalKindNames;
using game::ProposalKind;

// The checks are the game's (sim/game/advice.h): the player pays for them with CheckAdvice, which
// the command log records, so a replay runs the same checks on the same random stream.
using CheckKind = game::AdviceCheckKind;
using CheckResult = game::AdviceCheck;
inline std::string_view to_string(CheckKind k) { return game::kAdviceCheckKindNames[static_cast<std::size_t>(k)]; }

using game::ProposalRecord;  // the records live in the game state (sim/game/advisor_state.h)

class Chien final : public game::Advisor {
 public:
  Chien(const data::Catalog& catalog, game::Scenario scenario, CodeChangeCatalog changes, AdvisorOptions options = {});

  std::vector<game::Advice> propose(const game::GameState& state, game::AdvisorState& memory) override;
  std::shared_ptr<game::Advisor> clone() const override { return std::make_shared<Chien>(*this); }
  nlohmann::json debrief_json(const game::GameState& state) const override;
  std::optional<game::AdviceJudgement> judgement(const game::GameState& state) const override;

  // Profiles every serving deployment on its last hour's traffic, one replica in the game's own
  // window at that load (game::window_of); cached by the window's identity.
  std::vector<DeploymentProfile> profile_all(const game::GameState& state);
  // Runs a check of a proposal (the game calls it for CheckAdvice, which charges the cost); its
  // result is known from `ready_at_hour` on. Throws std::invalid_argument for an unknown id or a
  // deployment that is gone. Players go through the game: game.apply(game::CheckAdvice{...}).
  CheckResult check(const game::GameState& state, game::AdvisorState& memory, const game::Advice& advice,
                    CheckKind kind, int repetitions) override;

  const AdvisorOptions& options() const { return options_; }

 private:
  const perf::CalibrationProfile& calibration(const std::string& chip);
  std::optional<DeploymentProfile> profile(const game::GameState& state, const game::DeploymentState& d);
  std::optional<game::Advice> propose_code_change(const game::GameState& state, game::AdvisorState& memory,
                                                  const game::DeploymentState& d, const DeploymentProfile& p);
  std::optional<game::Advice> propose_recipe(const game::GameState& state, game::AdvisorState& memory,
                                             const game::DeploymentState& d, double rate);
  double gpu_price_usd_per_hour(const game::GameState& state, const std::string& chip) const;
  // Marks a proposal minor when its claim, even if true, is worth less than the benchmark that
  // would check it (claim_value_usd), and says so in its rationale.
  void mark_minor(const game::GameState& state, const game::DeploymentState& d, game::Advice& a) const;
  double hourly_revenue_usd(const game::GameState& state, std::int64_t deployment_id) const;

  const data::Catalog* catalog_;
  game::Scenario scenario_;
  CodeChangeCatalog changes_;
  AdvisorOptions options_;
  // Caches only (pure functions of their keys): the advisor's memory is the game's state.advisor.
  perf::CalibrationCache calibrations_;
  std::map<std::string, DeploymentProfile> profile_cache_;
  GoodputMemo search_memo_;  // recipe-search and truth runs, reused across days at the same load
};

// Whether a game a person plays (the desktop's, the browser's) has the advisor: yes, where its
// level allows one. It changes the score: "advice calls" is a component only with an advisor
// (game/scoring.h). Scripted runs choose for themselves (`tycoon run --advisor`, a class's
// `advisor` field).
inline constexpr bool kPlayedGamesHaveAdvisor = true;

// The advisor a front end attaches to a player's game (desktop, browser, `tycoon run`, a class):
// the Chien with the project's code changes and default options; none (null) on a level that
// does not allow an advisor (game::Scenario::advisor_allowed).
std::shared_ptr<Chien> default_advisor(const data::Catalog& catalog, const game::Scenario& scenario,
                                       const CodeChangeCatalog& changes);
// The same, reading the code changes from the project's data under `data_root`.
std::shared_ptr<Chien> default_advisor(const data::Catalog& catalog, const game::Scenario& scenario,
                                       const std::filesystem::path& data_root);

// The end-of-game debrief: every proposal, the player's call, what was true, what it cost or earned.
struct DebriefRow {
  ProposalRecord record;  // a copy: a debrief outlives the state it was made from
  game::AdviceStatus decision = game::AdviceStatus::kPending;
  std::optional<std::int64_t> decided_at_hour;
  bool right_call = false;  // accepted a good one or rejected a bad one
  bool minor = false;       // a digest item (worth less than a check): not judged
  double checks_usd = 0;
  double value_usd = 0;  // estimated: GPU time saved (or lost) while live; incidents not priced
  // Outcome tracking of an accepted change, from the game's own hours on its deployment: output
  // tok/s per serving GPU and its segment's reputation over up to `kOutcomeHours` before and after.
  std::optional<double> tok_per_gpu_before, tok_per_gpu_after;
  std::optional<double> reputation_before, reputation_after;
  std::string truth;    // what the proposal really does, one phrase (the debrief's truth)
  std::string verdict;  // one line
  // The score judges this call (game::AdviceJudgement counts only these): not one left undecided
  // that was posted too late to decide (kJudgedAfterHours before the end), and not a minor claim,
  // unless it was accepted and did harm.
  bool judged = true;
};
struct Debrief {
  std::vector<DebriefRow> rows;
  int num_accepted = 0, num_rejected = 0, num_pending = 0, num_right = 0;
  int num_incidents = 0;    // accepted with a reputation hit
  int num_regressions = 0;  // accepted and slower end to end
  double checks_usd = 0;
  double value_usd = 0;
};
inline constexpr int kOutcomeHours = 6;
// From the records in `state.advisor`.
Debrief make_debrief(const game::GameState& state);

nlohmann::json to_json(const DeploymentProfile& p);
nlohmann::json to_json(const CheckResult& c);
nlohmann::json to_json(const ProposalRecord& r, bool reveal_truth);
nlohmann::json to_json(const CheckResult& c, std::int64_t now_hour);  // measurements only once ready
// What the player may see of a proposal at `now_hour`: the claim and its evidence, and the checks
// they paid for (measurements only once ready). Never the truth.
nlohmann::json player_view_json(const ProposalRecord& r, const game::Advice& a, std::int64_t now_hour);
nlohmann::json to_json(const Debrief& d);

// What a check will cost before the player pays for it (the Advisor panel's buttons): the money
// charged when it is requested, the game hours until its result, and one sentence on what it
// measures. A pure function of the state, the same numbers Chien::check charges (a canary adds the
// revenue its slice loses if the change is really slower, which no quote can know).
struct CheckQuote {
  double cost_usd = 0;
  std::int64_t hours = 0;
  std::string what;
  bool available = true;  // false: this check cannot run on this proposal (`what` says why)
  int repetitions = 1;    // paired runs (benchmark) or paired hours (canary)
};
// The longer benchmark the advisor offers beside the default one, paired runs in all: three times
// the default, which narrows the 95% interval by more than √3 (its width goes as 1/√runs, and the
// Student-t quantile falls with the runs): most claims the default leaves open are settled.
inline constexpr int kLongerBenchmarkRepetitions = 3 * game::kDefaultBenchmarkRepetitions;
// The longer canary, paired hours in all: three times the default canary (AdvisorOptions::
// canary_hours, 6). Each hour is one window's mix of live requests, so its ratios spread more
// than a benchmark run's; where a replica is a node of dear GPUs the canary is the check a player
// can afford, and more hours settle the gains of a few percent the default leaves open.
inline constexpr int kLongerCanaryHours = 18;

// A check the player can pay for on a proposal: its kind and a benchmark's paired runs or a
// canary's hours in all (0: the check's default).
struct CheckOffer {
  game::AdviceCheckKind kind;
  int repetitions = 0;
};
// What the advisor offers on each proposal, in the order it offers them: a component test, the
// default benchmark, the longer benchmark, a canary, the longer canary.
inline constexpr std::array<CheckOffer, 5> kCheckOffers = {
    CheckOffer{game::AdviceCheckKind::kComponentTest, 0}, CheckOffer{game::AdviceCheckKind::kBenchmark, 0},
    CheckOffer{game::AdviceCheckKind::kBenchmark, kLongerBenchmarkRepetitions},
    CheckOffer{game::AdviceCheckKind::kCanary, 0}, CheckOffer{game::AdviceCheckKind::kCanary, kLongerCanaryHours}};

// `repetitions`: a benchmark's paired runs in all (0: game::kDefaultBenchmarkRepetitions), a
// canary's paired hours in all (0: AdvisorOptions::canary_hours). When the proposal already has a
// ready check of that kind with fewer (pooled_check), only the runs or hours it lacks are run and
// charged, and the result pools them with it (a canary pays its rollout again: it was rolled back).
CheckQuote quote_check(const AdvisorOptions& options, const data::Catalog& catalog, const game::GameState& state,
                       const game::Advice& advice, game::AdviceCheckKind kind, int repetitions = 0);
// The ready benchmark or canary (`kind`) of `advice` that one of `repetitions` runs or hours in
// all extends: its latest of that kind, if it has at least 2 and fewer than `repetitions` (none: a
// fresh check). A component test is never pooled.
const game::AdviceCheck* pooled_check(const game::Advice& advice, game::AdviceCheckKind kind, std::int64_t hour,
                                      int repetitions);
// Paired ratios -> the check's estimate, its 95% interval and the verdict by the game's one rule
// (game::check_verdict). A speedup is a ratio: runs that measured x2 and x0.5 average to x1, not
// x1.25. The estimate and its Student-t interval are taken on the log of each run's ratio and
// mapped back (the geometric mean), so an interval never reaches below zero, and a wide spread of
// a large gain (x2 to x8) still tells a gain. With `prior`, its runs (recovered from its estimate,
// interval and count, which determine their mean and spread) are pooled with these. Reads the
// flags already set on `c`.
void conclude_check(CheckResult& c, const std::vector<double>& ratios, const CheckResult* prior = nullptr);
// What a claimed end-to-end speedup is worth if true: the GPU time it frees on deployment `d` at
// on-demand rent over the rest of the game (rent × hours × (1 − 1/speedup)).
double claim_value_usd(const data::Catalog& catalog, const game::GameState& state, const game::DeploymentState& d,
                       double claimed_speedup);
// The on-demand price of one GPU-hour of `chip` in the game's market (the catalog's if none is offered).
double gpu_price_usd_per_hour(const data::Catalog& catalog, const game::GameState& state, const std::string& chip);

// The summary of a headless game as `tycoon run --json` prints it and the browser's tycoon_run
// returns it (the determinism check compares the two): the game's summary, how many commands of
// the log were refused, and the advisor's debrief when one played.
nlohmann::json run_summary_json(const game::Game& game, bool with_advisor, std::size_t commands_refused,
                                const game::Counterfactuals* counterfactuals = nullptr);

}  // namespace tycoon::advisor
