// The game state: everything that changes while a game runs. A plain value (copyable, saved and
// loaded whole); front ends read it as `const GameState&` and change it only through commands.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/random/mersenne_twister.hpp>

#include "sim/core/types.h"
#include "sim/econ/gpu_market.h"
#include "sim/econ/ledger.h"
#include "sim/econ/prices.h"
#include "sim/game/advice.h"
#include "sim/game/advisor_state.h"
#include "sim/game/command.h"
#include "sim/game/history.h"
#include "sim/game/recipe_settings.h"

namespace tycoon::game {

// GPUs rented under one contract.
struct GpuContract {
  std::int64_t id = 0;
  std::string chip;
  Contract contract = Contract::kOnDemand;
  int num_gpus = 0;
  double signed_price_usd_per_gpu_hour = 0;  // reserved pay this; on-demand and spot pay the market's
  std::int64_t signed_at_hour = 0;
  std::int64_t ready_at_hour = 0;      // serving (and paid) from this hour on
  std::int64_t term_ends_at_hour = 0;  // reserved: the commitment ends (the contract expires); else 0

  bool ready(std::int64_t hour) const { return hour >= ready_at_hour; }
  bool operator==(const GpuContract&) const = default;
};

// The GPUs `replicas` replicas of `recipe` hold: tensor_parallel each.
inline int gpus_of(int replicas, const RecipeSettings& recipe) { return replicas * recipe.tensor_parallel; }

// The GPUs of one pool of a deployment (a disaggregated deployment has two).
struct PoolGpus {
  std::string chip;
  int num_gpus = 0;
  bool operator==(const PoolGpus&) const = default;
};

// The decode pool of a disaggregated deployment. The deployment's own chip, recipe and replicas
// are its prefill pool; the prompts' KV caches cross `link` to this pool, which streams the output.
struct DecodePoolState {
  std::string chip;
  RecipeSettings recipe;
  int replicas = 1;
  serving::KvLinkKind link = serving::KvLinkKind::kInfiniband;
  int active_replicas = 0;  // replicas with GPUs in the last simulated hour

  // Every replica holds `recipe.tensor_parallel` GPUs.
  PoolGpus gpus() const { return {chip, gpus_of(replicas, recipe)}; }
  bool operator==(const DecodePoolState&) const = default;
};

// The pools of a deployment of `replicas` x `recipe` on `chip`, and `decode`'s when split: each
// pool's chip and the GPUs its replicas want (tensor_parallel per replica). The one rule for a
// deployment's GPU count, for the game, the deploy form and its preview.
inline std::vector<PoolGpus> pools_of(const std::string& chip, int replicas, const RecipeSettings& recipe,
                                      const std::optional<DecodePoolState>& decode) {
  std::vector<PoolGpus> pools = {{chip, gpus_of(replicas, recipe)}};
  if (decode) pools.push_back(decode->gpus());
  return pools;
}

struct DeploymentState {
  std::int64_t id = 0;
  std::string model;
  std::string segment;
  std::string chip;
  RecipeSettings recipe;
  int replicas = 1;      // wanted
  double speedup = 1.0;  // accepted code changes (AdviceEffect::speedup), multiplied together
  std::int64_t created_at_hour = 0;
  int active_replicas = 0;                // replicas with GPUs in the last simulated hour
  std::optional<DecodePoolState> decode;  // set: disaggregated (the fields above are the prefill pool)

  // Its pools at the replicas it wants (pools_of).
  std::vector<PoolGpus> pools() const { return pools_of(chip, replicas, recipe, decode); }
  // GPUs of `chip` the deployment's replicas want (both pools when disaggregated).
  int gpus_wanted(const std::string& on_chip) const {
    int n = 0;
    for (const auto& p : pools()) n += p.chip == on_chip ? p.num_gpus : 0;
    return n;
  }
  // GPUs of all chips it wants.
  int gpus_wanted() const {
    int n = 0;
    for (const auto& p : pools()) n += p.num_gpus;
    return n;
  }
  // GPUs serving in the last simulated hour.
  int gpus_active() const {
    return gpus_of(active_replicas, recipe) + (decode ? gpus_of(decode->active_replicas, decode->recipe) : 0);
  }
  // It can serve: every pool has a replica with GPUs.
  bool serving() const { return active_replicas > 0 && (!decode || decode->active_replicas > 0); }
  // The replicas a look at it now weighs and simulates, per pool: those with GPUs while it serves;
  // the replicas it wants while it does not (a preview of what it does once its GPUs arrive).
  // load_share weighs a deployment by these, and the UI's traffic and profiler panels simulate them.
  int replicas_now() const { return serving() ? active_replicas : replicas; }
  int decode_replicas_now() const { return !decode ? 0 : serving() ? decode->active_replicas : decode->replicas; }
  bool operator==(const DeploymentState&) const = default;
};

struct SegmentState {
  std::string id;
  double reputation = 1.0;
  double demand_multiplier = 1.0;  // set by demand events
  double last_offered_requests_per_s = 0;
  double last_slo_attainment = 1.0;
  // Share of input tokens billed at the cached price last hour: what customers see on their bill
  // and compare with the market (starts at the scenario's cached_input_share).
  double billed_cached_share = 0;

  bool operator==(const SegmentState&) const = default;
};

struct Company {
  double cash_usd = 0;
  std::vector<GpuContract> contracts;               // by id
  std::vector<DeploymentState> deployments;         // by id
  std::map<std::string, econ::TokenPrices> prices;  // per model
  std::int64_t next_contract_id = 1;
  std::int64_t next_deployment_id = 1;
  bool bankrupt = false;
  std::optional<std::int64_t> bankrupt_at_hour;

  const GpuContract* find_contract(std::int64_t id) const;
  const DeploymentState* find_deployment(std::int64_t id) const;
  DeploymentState* find_deployment(std::int64_t id);
};

struct World {
  econ::GpuMarket market;
  std::vector<SegmentState> segments;                        // in scenario order
  std::map<std::string, double> reference_price_multiplier;  // per model; competitors' moves
  std::size_t next_event = 0;                                // index into Scenario::events
  std::size_t next_hint = 0;                                 // index into Scenario::hints
  std::size_t tutorial_step = 0;  // index into Scenario::tutorial_steps: the step waiting (size: all done)
};

// News that should stop the clock (front ends pause and show it): the service collapsing, money
// running out, something the player must decide or read. Each names its cause when the game knows it.
enum class AlarmKind { kSloDrop, kReputationDrop, kCashRunway, kNewProposal, kCheckReady, kTutorialStep };
inline constexpr std::array<std::string_view, 6> kAlarmKindNames = {"slo_drop",     "reputation_drop", "cash_runway",
                                                                    "new_proposal", "check_ready",     "tutorial_step"};

// Which alarms stop a running clock unless the player says otherwise (front ends offer a switch
// per kind): the ones that need a decision now. A check's result waits on its card until the
// player looks; it does not stop the clock by default.
inline constexpr std::array<bool, 6> kAlarmPausesByDefault = {true, true, true, true, false, true};

// What a news item means for the business, set where the game writes it (front ends colour by it):
// a loss or a refusal, a warning (capacity lost or short), the advisor's business, or plain news.
enum class NewsTone { kInfo, kLoss, kWarning, kAdvice };
inline constexpr std::array<std::string_view, 4> kNewsToneNames = {"info", "loss", "warning", "advice"};

struct NewsItem {
  std::int64_t at_hour = 0;
  std::string text;
  std::optional<AlarmKind> alarm;        // set: this item is an alarm
  std::optional<std::string> advice_id;  // an alarm that names an accepted proposal as its likely cause
  NewsTone tone = NewsTone::kInfo;
  bool operator==(const NewsItem&) const = default;
};
// An alarm's tone follows its kind (the service or the money in danger: a warning; the advisor's
// proposals and checks: advice; a tutorial step: news).
NewsTone alarm_tone(AlarmKind kind);

// Running totals of service, for SLO attainment and the summary.
struct ServiceTotals {
  double requests_offered = 0;
  double requests_completed = 0;
  double requests_failed = 0;
  double requests_within_slo = 0;
  econ::TokenCounts tokens;
  double gpu_hours_rented = 0;
  double gpu_hours_serving = 0;
  int spot_interruptions = 0;
};

// One Boost.Random stream per purpose, seeded from the scenario seed (never <random> distributions).
struct RngStreams {
  boost::random::mt19937_64 demand;  // hourly demand noise
  boost::random::mt19937_64 market;  // spot interruptions
};

struct GameState {
  std::string scenario_id;
  std::uint64_t seed = 0;
  std::int64_t hour = 0;      // hours simulated so far; the next hour to simulate
  std::int64_t end_hour = 0;  // the game ends when hour reaches it
  bool finished = false;

  Company company;
  World world;
  econ::Ledger ledger;
  ServiceTotals service;
  History history;
  PastHistory past;  // the days before hour 0 (empty unless the scenario has history_days)
  std::vector<DeploymentHour> deployment_history;
  std::vector<NewsItem> news;
  std::vector<Advice> inbox;
  AdvisorState advisor;            // the advisor's memory (hidden: never in a client view, sealed in saves)
  std::vector<LoggedCommand> log;  // every command applied, with its hour
  RngStreams rng;
};

}  // namespace tycoon::game
