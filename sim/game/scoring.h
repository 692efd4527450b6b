// Goals and score: how a game is judged at its end (or so far).
#pragma once

#include <string>
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

struct Score {
  double points = 0;
  double max_points = 0;
  bool passed = false;
  int stars = 0;  // 0 bankrupt; 1 survived; 2 passed; 3 passed with profit at least 1.5× every profit target
};
Score score(const Scenario& scenario, const GameState& state, const std::vector<GoalResult>& goals);

// SLO attainment so far: requests within SLO / requests offered (1 with no requests).
double slo_attainment(const GameState& state);

}  // namespace tycoon::game
