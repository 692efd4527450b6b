// Applies one command to a game's state at an hour boundary (internal to Game).
#pragma once

#include <optional>
#include <string>

#include "sim/game/command.h"
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
  CommandResult check_recipe_locks(const RecipeOverrides& o) const;
  // Checks that `recipe` runs and fits for `model` on `chip` serving `segment`; refuses with the
  // numbers when not.
  CommandResult check_runs(const std::string& model, const std::string& chip, const std::string& segment,
                           const RecipeSettings& recipe) const;
  // Checks that disaggregated deployment `probe` (its decode pool set, with the replicas it would
  // run) runs: the decode recipe fits its chip and the KV link reaches both pools.
  CommandResult check_disaggregated(const DeploymentState& probe) const;
  // Refuses when the fleet lacks the GPUs `probe`'s decode pool wants on its own chip (a decode
  // pool on the prefill chip is counted with the prefill pool). `existing`: the deployment it
  // replaces, whose GPUs count as free.
  CommandResult check_decode_gpus(const DeploymentState& probe, std::optional<std::int64_t> existing) const;
  CommandResult change_recipe(std::int64_t deployment_id, const RecipeOverrides& o, bool check_locks);
};

}  // namespace tycoon::game
