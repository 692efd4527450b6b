// A scenario: the world a game starts in (market, customers, company), what happens during it
// (scheduled events), what the player may touch (locked levers) and how the game is scored.
// Loaded strictly from scenarios/*.json; `to_json` writes the resolved form (defaults filled in),
// which loads back to the same scenario.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/data/catalog.h"
#include "sim/econ/demand.h"
#include "sim/econ/gpu_market.h"
#include "sim/econ/prices.h"
#include "sim/game/command.h"
#include "sim/game/recipe_settings.h"
#include "sim/game/tutorial.h"
#include "sim/serving/serving_sim.h"

namespace tycoon::game {

inline constexpr int kScenarioFormatVersion = 1;

enum class ScenarioKind { kTutorial, kCampaign, kSandbox, kClassroom, kAnalyst };
inline constexpr std::array<std::string_view, 5> kScenarioKindNames = {"tutorial", "campaign", "sandbox", "classroom",
                                                                       "analyst"};
inline std::string_view to_string(ScenarioKind k) { return name_of(k, kScenarioKindNames); }

struct CompanySpec {
  double starting_cash_usd = 100000;
  double fixed_cost_usd_per_day = 0;  // staff, offices, support: paid every hour, 1/24 each
  double credit_line_usd = 0;         // bankrupt when cash falls below −credit_line
  double starting_reputation = 1.0;   // in [0, 1]
};

struct OfferSpec {
  econ::GpuOffer offer;
  std::string price_source;  // the catalog price's source, or the scenario's reason for its own price
};

// The latency a segment's customers expect; a request meets the SLO when both hold.
struct SloTargets {
  double ttft_s = 2.0;  // time to first token
  double tpot_s = 0.1;  // time per output token after the first
};

// One customer segment: users of one model sending one workload shape.
struct SegmentSpec {
  std::string id;
  std::string name;
  std::string model;
  serving::WorkloadSpec workload;
  double cached_input_share = 0;  // share of input tokens customers expect billed as cached (price perception)
  econ::DemandCurve demand;
  double demand_noise = 0;  // hourly multiplicative noise, uniform in [1 − noise, 1 + noise]
  SloTargets slo;
  double reputation_half_life_hours = 24;
  // Chance that a draft token is accepted after an accepted one on this traffic (speculative
  // decoding); nullopt: the recipe's acceptance length is used.
  std::optional<double> spec_acceptance_per_token;
};

struct StartContract {
  std::string chip;
  Contract contract = Contract::kOnDemand;
  int num_gpus = 0;
};

struct StartDeployment {
  std::string model;
  std::string chip;
  std::optional<std::string> segment;
  int replicas = 1;
  serving::ServingOverrides recipe;
  double speedup = 1.0;  // what-if: every GPU op and engine step this many times faster
};

// Scheduled events. Multipliers are set (not compounded) relative to the scenario's base value.
struct GpuPriceEvent {
  std::string chip;
  Contract contract = Contract::kOnDemand;
  double multiplier = 1;
};
struct GpuAvailabilityEvent {
  std::string chip;
  Contract contract = Contract::kOnDemand;
  int available_gpus = 0;
};
struct SpotRiskEvent {
  std::string chip;
  double interruptions_per_hour = 0;
};
struct DemandEvent {
  std::string segment;
  double multiplier = 1;
};
struct ReferencePriceEvent {  // competitors change their list price for a model
  std::string model;
  double multiplier = 1;
};
struct NewsEvent {};
using EventPayload =
    std::variant<GpuPriceEvent, GpuAvailabilityEvent, SpotRiskEvent, DemandEvent, ReferencePriceEvent, NewsEvent>;
inline constexpr std::array<std::string_view, 6> kEventKindNames = {"gpu_price", "gpu_availability", "spot_risk",
                                                                    "demand",    "reference_price",  "news"};

struct ScheduledEvent {
  std::int64_t at_hour = 0;
  std::string news;  // shown to the player when it happens
  EventPayload payload;
};

enum class GoalKind { kProfitUsd, kGrossMargin, kSloAttainment, kSurvive, kCashUsd, kOutputTokens, kTutorialComplete };
inline constexpr std::array<std::string_view, 7> kGoalKindNames = {
    "profit_usd", "gross_margin", "slo_attainment", "survive", "cash_usd", "output_tokens", "tutorial_complete"};
inline std::string_view to_string(GoalKind k) { return name_of(k, kGoalKindNames); }

// "At the end, <kind> is at least <target>" (survive: not bankrupt). Worth `points`.
struct Goal {
  GoalKind kind = GoalKind::kSurvive;
  double target = 0;
  double points = 100;
};

// How each deployment-hour is simulated.
struct ServingSettings {
  double window_s = 120;           // simulated seconds of arrivals per sample window (after warmup)
  double warmup_s = 30;            // arrivals before this are not counted
  int min_window_requests = 150;   // windows stretch (up to an hour) to see at least this many arrivals
  double load_bucket_step = 0.08;  // loads within ±4% share one cached window
  double queue_timeout_s = 30;     // a customer gives up on a request queued this long
  int max_queue = 256;             // per replica; arrivals beyond it are rejected
  // Replicas behind one router see statistically alike traffic: a window simulates at most this
  // many of a deployment's replicas at their share of the load and scales the result.
  int max_simulated_replicas = 2;
  bool full_hour = false;  // simulate the whole hour at its exact load (slow; no buckets)
};

struct TutorialHint {
  std::int64_t at_hour = 0;
  std::string text;
};

// The level's reference strategy: a scripted player the debrief compares the player with (played
// on the same seed, sim/game/counterfactual.h) and the score measures profit against. Like the
// lesson, it is the level's answer key: never shown during play.
struct ReferenceStrategy {
  std::string description;
  std::vector<LoggedCommand> commands;  // at_hour never decreasing
};

struct Scenario {
  int format_version = kScenarioFormatVersion;
  std::string id;
  std::string name;
  ScenarioKind kind = ScenarioKind::kSandbox;
  std::optional<int> level;
  std::string lesson;  // the lesson's answer: shown in the debrief (and in play when there is no question)
  // The lesson asked as a question to answer by playing ("Can you ...?"): shown in play; the
  // debrief reveals `lesson` beside it. Player-facing text: no internal references.
  std::string question;
  std::string lesson_source;  // where the lesson's facts come from (documentation, never shown in play)
  std::string briefing;
  std::uint64_t seed = 1;
  int days = 7;
  // Days of past traffic, prices and market on the charts at hour 0 (GameState::past); 0: none.
  int history_days = 0;
  CompanySpec company;
  std::vector<OfferSpec> offers;
  std::vector<SegmentSpec> segments;
  std::map<std::string, econ::TokenPrices> reference_prices;  // market list price per model sold
  std::map<std::string, econ::TokenPrices> starting_prices;   // the company's prices at hour 0
  std::vector<StartContract> start_contracts;
  std::vector<StartDeployment> start_deployments;
  std::vector<ScheduledEvent> events;  // sorted by at_hour, stable
  std::vector<Goal> goals;
  std::vector<std::string> locked_levers;
  // Deployments may split prefill and decode into pools of their own (Deploy::decode): a
  // sandbox-level option, off unless the scenario sets it.
  bool allow_disaggregated = false;
  ServingSettings serving;
  std::vector<TutorialHint> hints;
  std::vector<TutorialStep> tutorial_steps;  // in order; the game moves to the next when one is done
  std::optional<ReferenceStrategy> reference_strategy;
  std::string file;  // where it was loaded from (not written by to_json)

  const SegmentSpec* find_segment(std::string_view id) const;
  bool lever_locked(std::string_view lever) const;
  // Whether the scenario locks `c`: its command's lever, and for a rental its contract type too
  // ("contract.spot"). The game refuses a locked command; the front ends grey its control by this.
  bool command_locked(const Command& c) const;
  // Whether the scenario locks a recipe field ("recipe.max_num_seqs"): a deploy or recipe change
  // that sets it is refused.
  bool recipe_field_locked(std::string_view field) const;
  // A level that locks accepting advice has no advisor: proposals nobody may accept teach nothing.
  // Game::set_advisor keeps none there, whichever front end attaches one.
  bool advisor_allowed() const { return !lever_locked("accept_advice"); }
  // What play shows as the level's lesson: its question when it has one (the lesson is then the
  // answer, kept for the debrief), else the lesson itself.
  const std::string& lesson_in_play() const { return question.empty() ? lesson : question; }
  // Whether the lesson may be shown as the answer to the level's question: the game is over and
  // the answer key is not kept back (a class keeps it back until its deadline).
  bool answer_shown(bool finished, bool answer_key_hidden) const {
    return !question.empty() && finished && !answer_key_hidden;
  }
  std::int64_t end_hour() const { return static_cast<std::int64_t>(days) * 24; }
};

// The most days of history a scenario may put before hour 0.
inline constexpr int kMaxHistoryDays = 60;
// The longest game a scenario (or a --days, or a contract's term) may ask for: ten years.
inline constexpr int kMaxScenarioDays = 3650;

// Levers a scenario may lock: every command type, `recipe.<field>` for each recipe field, and
// `contract.<on_demand|reserved|spot>`.
bool is_known_lever(std::string_view lever);

// Strict load; ids are checked against the catalog and defaults resolved from it.
// Throws data::LoadError naming the file and JSON pointer.
Scenario load_scenario(const std::filesystem::path& path, const data::Catalog& catalog);
Scenario scenario_from_json(const nlohmann::json& j, const std::string& file, const data::Catalog& catalog);
nlohmann::json to_json(const Scenario& s);

// Finds a scenario by path, or by file stem or id under `<data_root>/scenarios` ("default",
// "campaign-01-thin-margin", "01-thin-margin"). Throws data::UnknownIdError listing what exists.
std::filesystem::path find_scenario(std::string_view name_or_path, const std::filesystem::path& data_root);
// Every scenario file under `<data_root>/scenarios`, sorted.
std::vector<std::filesystem::path> list_scenarios(const std::filesystem::path& data_root);

}  // namespace tycoon::game
