// Goals and score: how a game is judged at its end (or so far).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/game/scenario.h"
#include "sim/game/state.h"

namespace tycoon::game {

struct GoalResult {
  Goal goal;
  double achieved = 0;  // the measured value (survive: 1 alive, 0 bankrupt)
  double progress = 0;  // in [0, 1]: share of the goal's points earned
  bool met = false;
  double points = 0;
  std::string description;  // "profit at least $5,000"
};

// Each goal earns points × progress, where progress is achieved / target clipped to [0, 1] (1 when
// met; 0 for a positive target missed with a negative value); survive earns the share of the game
// lived through. A scenario is passed when every goal is met.
std::vector<GoalResult> evaluate_goals(const Scenario& scenario, const GameState& state);

// The score, out of 100, from continuous components (the rules the level card and the debrief
// state, score_rules()):
//   profit     x = (your profit − zero) / (the reference's − zero), where zero is doing
//              nothing's profit (or $0 when doing nothing earns at least the reference): 40 × x
//              up to the reference (down to −20 for losing what doing nothing would not have),
//              then 40 + 10 × (1 − e^−4(x−1)) beyond it, approaching 50 (the total never goes
//              below 0). The curve's slope is 40 on both sides of the reference, so a dollar
//              earned just past the reference counts as much as one just short of it: a kink
//              there squeezed every strategy that beat the reference into a point or two.
//   service    25 × (SLO attainment − 50%) / (the level's SLO target − 50%), clipped to [0, 25]
//   solvency   15 × the share of the game played before going bankrupt (15 when solvent)
//   judgement  10 × (right calls − bad proposals accepted − good proposals missed) / proposals,
//              clipped to [0, 10]: a right call accepts a good proposal or rejects a bad one;
//              accepting a bad one, or rejecting or ignoring a good one, takes a right call back
//              (proposals in the last 12 hours and minor ones, worth less than a check, do not count)
// A game handed in before its end (ScoreInputs::stopped_at_hour: the player stopped at hour h
// of H, and the game was then run to its end without another command, as a class replays it)
// scores those points × h / H, the share of the game played, and at most one star: a week
// abandoned on day 2 is judged as the fraction of a week it is, never as a played one.
// Profit needs the counterfactual runs and judgement the advisor's truth, both known at the end:
// until then those components are unknown and not counted. A level without proposals to judge
// scores out of 90, scaled to 100.
// Stars: 0 bankrupt; 1 solvent; 2 every goal met and a score of at least 55; 3 every goal met,
// at least 75 and, where there was advice to judge, at least half the advice-call points: a
// company run well on the numbers that accepted or refused its advisor blindly earns two.
inline constexpr double kProfitPoints = 40, kProfitPointsMin = -20, kProfitPointsMax = 50, kServicePoints = 25,
                        kSolvencyPoints = 15, kJudgementPoints = 10;
inline constexpr double kProfitSlopeBeyondReference = 4;  // the 4 in e^−4(x−1): 10 × 4 = 40, the slope below
inline constexpr double kTwoStarScore = 55, kThreeStarScore = 75, kThreeStarJudgementShare = 0.5;
// A campaign level unlocks the next one at this many stars (every goal met and at least
// kTwoStarScore points): meeting the goals with a low score is not enough.
inline constexpr int kStarsToUnlockNextLevel = 2;
inline constexpr int kMaxStars = 3;
inline bool unlocks_next_level(int stars) { return stars >= kStarsToUnlockNextLevel; }
// A campaign level opens once the level before it is passed (unlocks_next_level): the highest
// lower level among `campaign` (each level's number and id; levels that fail to load left out).
// Unset for the first level, which is always open; other kinds of scenario are always open too.
std::optional<std::string> level_to_pass_before(int level, const std::vector<std::pair<int, std::string>>& campaign);
// Whether campaign level `level` is open to a player whose best stars per scenario id are
// `best_stars`: the level before it passed (level_to_pass_before, unlocks_next_level).
bool campaign_level_open(int level, const std::vector<std::pair<int, std::string>>& campaign,
                         const std::map<std::string, int>& best_stars);
// Whether a finished game of `played` counts toward the player's progress on `level` (the level
// as its file sets it): the whole scenario the same as the file's (its seed, length, locks, goals,
// cash, market), and the level open to the player (`level_open`: campaign_level_open when the
// game ends; progress never goes back, so a level open now was open at the start). A class's
// game of a campaign level (another length, more locks), one started from a code (another seed),
// an edited copy under the level's id, or a game of a level still locked is no pass of it.
bool counts_for_progress(const Scenario& played, const Scenario& level, bool level_open);
// The profit scale's zero is doing nothing's profit, except on a level where doing nothing earns
// nearly what the reference earns (its lesson a trade-off, not more profit): there the zero
// slides to no profit at all, continuously, as doing nothing comes within this share of the
// reference's profit (at the reference's profit or above, the zero is no profit). A zero that
// jumped from doing nothing's profit to no profit made a level's scores swing by tens of points
// when doing nothing's profit crossed the reference's by a dollar.
inline constexpr double kTradeOffProfitGap = 0.5;

struct ScoreComponent {
  std::string id;  // profit | service | solvency | judgement
  std::string name;
  double points = 0;
  double max_points = 0;
  bool known = true;   // false: not known until the game is over
  std::string detail;  // how the points came about, with the numbers
};

// What the score needs from outside the state.
struct ScoreInputs {
  std::optional<double> do_nothing_profit_usd;  // the counterfactual runs (counterfactual.h)
  std::optional<double> reference_profit_usd;
  std::optional<AdviceJudgement> judgement;  // Game::revealed_judgement()
  // The hour a game handed in unfinished had reached when the player stopped (unset: played to
  // its end, or still being played).
  std::optional<std::int64_t> stopped_at_hour;
};

struct Score {
  double points = 0;  // out of 100 once final
  double max_points = 100;
  bool passed = false;  // every goal met
  bool final = false;   // every component known
  int stars = 0;
  // The share of the game the player played (1 unless handed in unfinished): the points above
  // are already multiplied by it.
  double played_share = 1;
  std::vector<ScoreComponent> components;
};
Score score(const Scenario& scenario, const GameState& state, const std::vector<GoalResult>& goals,
            const ScoreInputs& inputs = {});
// The rules above in two lines for the level card and the debrief.
std::string score_rules();

// SLO attainment so far: requests within SLO / requests offered (1 with no requests).
double slo_attainment(const GameState& state);

}  // namespace tycoon::game
