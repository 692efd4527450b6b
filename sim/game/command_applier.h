// Applies one command to a game's state at an hour boundary (internal to Game).
#pragma once

#include <optional>
#include <string>

#include "sim/game/command.h"
#include "sim/game/deploy_checks.h"
#include "sim/game/state.h"

namespace tycoon::game {

class Game;

struct CommandApplier {
  Game& game;
  bool enforce_locks = true;  // false for the scenario's own starting setup

  CommandResult apply(const Command& c);

  CommandResult operator()(const RentGpus& c);
  CommandResult operator()(const ReleaseGpus& c);
  CommandResult operator()(const Deploy& c);
  CommandResult operator()(const Undeploy& c);
  CommandResult operator()(const ChangeRecipe& c);
  CommandResult operator()(const ScaleReplicas& c);
  CommandResult operator()(const SetPrices& c);
  CommandResult operator()(const AcceptAdvice& c);
  CommandResult operator()(const RejectAdvice& c);
  CommandResult operator()(const Advance& c);
  CommandResult operator()(const CheckAdvice& c);
  CommandResult operator()(const ViewPanel& c);
  CommandResult operator()(const RevertAdvice& c);

 private:
  bool locked(std::string_view lever) const;
  // What the checks of deploy_checks.h read: this game's catalog, scenario and state.
  CheckContext context() const;
  CommandResult change_recipe(std::int64_t deployment_id, const serving::ServingOverrides& o, bool check_locks);
};

}  // namespace tycoon::game
