// Player actions as values. The game loop applies them at hour boundaries; a log of them (JSONL)
// plus the scenario and seed replays a game exactly.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/types.h"
#include "sim/data/json_reader.h"
#include "sim/game/advice.h"
#include "sim/game/recipe_settings.h"

namespace tycoon::game {

struct RentGpus {
  std::string chip;
  Contract contract = Contract::kOnDemand;
  int num_gpus = 1;
};
// Releases `num_gpus` of a contract (all of them when unset). Reserved GPUs released before the
// end of their term pay the rest of the commitment at once.
struct ReleaseGpus {
  std::int64_t contract_id = 0;
  std::optional<int> num_gpus;
};
// The decode pool of a disaggregated deployment (scenarios that allow it): the same model on its
// own chip, replicas and recipe (the catalog recipe for the model on that chip + overrides). The
// prompts' KV caches cross `link` from the prefill pool to it.
struct DecodePoolSpec {
  std::string chip;
  int replicas = 1;
  serving::ServingOverrides recipe;
  serving::KvLinkKind link = serving::KvLinkKind::kInfiniband;

  bool operator==(const DecodePoolSpec&) const = default;
};
// Serves `model` on `chip` with `replicas` copies of a recipe (catalog recipe + overrides), for
// one customer segment (the model's only one when unset). With `decode` set, these replicas run
// the prompts only (the prefill pool) and the decode pool streams the output.
struct Deploy {
  std::string model;
  std::string chip;
  std::optional<std::string> segment;
  int replicas = 1;
  serving::ServingOverrides recipe;
  std::optional<DecodePoolSpec> decode;
};
struct Undeploy {
  std::int64_t deployment_id = 0;
};
struct ChangeRecipe {
  std::int64_t deployment_id = 0;
  serving::ServingOverrides recipe;
};
// Sets a deployment's replicas (a disaggregated one's prefill pool), and its decode pool's when
// `decode_replicas` is set.
struct ScaleReplicas {
  std::int64_t deployment_id = 0;
  int replicas = 1;
  std::optional<int> decode_replicas;
};
// Sets the company's list prices for a model; unset token types keep their price.
struct SetPrices {
  std::string model;
  std::optional<double> input_usd_per_mtok;
  std::optional<double> cached_input_usd_per_mtok;
  std::optional<double> output_usd_per_mtok;
};
// Decisions on the advisor's proposals (sim/game/advice.h).
struct AcceptAdvice {
  std::string advice_id;
};
struct RejectAdvice {
  std::string advice_id;
};
// Undoes an accepted proposal: the deployment's recipe and replicas as they were before it, and
// its code change taken out (a quality incident it caused is not undone: customers remember).
struct RevertAdvice {
  std::string advice_id;
};
// Pays for a check of a pending proposal; its result shows on the advice from its ready hour.
struct CheckAdvice {
  std::string advice_id;
  AdviceCheckKind check = AdviceCheckKind::kBenchmark;
  // In all: a benchmark's paired runs (0: kDefaultBenchmarkRepetitions), a canary's hours (0: the
  // advisor's default, 6); ignored by a component test.
  int repetitions = 0;
};
// Runs the clock forward.
struct Advance {
  int hours = 1;
};
// The player opened a panel (one of kPanelNames, sim/game/tutorial.h). Changes nothing in the
// business; logged so a tutorial step that asks the player to read a panel sees it was read.
struct ViewPanel {
  std::string panel;
};

using Command = std::variant<RentGpus, ReleaseGpus, Deploy, Undeploy, ChangeRecipe, ScaleReplicas, SetPrices,
                             AcceptAdvice, RejectAdvice, Advance, CheckAdvice, ViewPanel, RevertAdvice>;
inline constexpr std::array<std::string_view, 13> kCommandNames = {
    "rent_gpus",     "release_gpus",  "deploy",  "undeploy",     "change_recipe", "scale_replicas", "set_prices",
    "accept_advice", "reject_advice", "advance", "check_advice", "view_panel",    "revert_advice"};
inline std::string_view command_name(const Command& c) { return kCommandNames[c.index()]; }

// What applying a command did: ok, or why it was refused (with the numbers).
struct CommandResult {
  bool ok = true;
  std::string message;
  bool warning = false;  // done, but with a consequence the player should see (GPUs short after a release)
};

// A command and the game hour it was applied at.
struct LoggedCommand {
  std::int64_t at_hour = 0;
  Command command;
};

// {"type": "rent_gpus", "chip": "h200", ...}
nlohmann::json to_json(const Command& c);
// Reads the command's fields from `in` (its "type" included); the caller calls finish().
Command command_from_json(data::ObjectReader& in);

// One line per command: {"at_hour": 5, "type": "rent_gpus", ...}.
std::string to_jsonl(const std::vector<LoggedCommand>& log);
nlohmann::json to_json(const LoggedCommand& c);
LoggedCommand logged_command_from_json(const nlohmann::json& j, const std::string& file, const std::string& pointer);
// Reads a JSONL command log; errors name `file:line` and the JSON pointer. Blank lines and lines
// starting with '#' are skipped. `at_hour` must not decrease.
std::vector<LoggedCommand> read_command_log(const std::filesystem::path& path);
std::vector<LoggedCommand> parse_command_log(std::string_view text, const std::string& name);

}  // namespace tycoon::game
