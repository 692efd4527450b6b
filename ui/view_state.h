// The UI's own state: which tab is open, what is typed into forms, messages shown. Never game
// state: everything about the business is read from `const GameState&` each frame.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/econ/prices.h"
#include "sim/game/command.h"
#include "sim/game/recipe_settings.h"
#include "sim/game/state.h"
#include "sim/game/tutorial.h"
#include "ui/automation.h"

namespace tycoon::ui {

enum class Tab { kDashboard, kMarket, kDeployments, kPricing, kTraffic, kProfiler, kPareto, kAdvisor, kDebrief };
inline constexpr std::array<std::string_view, 9> kTabNames = {
    "Dashboard", "GPU market", "Deployments", "Pricing", "Traffic", "Profiler", "Pareto", "Advisor", "Debrief"};
// The tabs' tags are the game's panel names (a ViewPanel command names one).
inline constexpr const auto& kTabTags = game::kPanelNames;
static_assert(kTabTags.size() == kTabNames.size());

enum class Screen { kStart, kGame };

// A line in the message strip: a command's outcome or a refusal the UI caught first.
struct Message {
  std::string text;
  bool ok = true;
  double shown_at_s = 0;
  std::int64_t at_hour = 0;
  bool guide = false;  // a tutorial instruction: the tutorial's colour, never the error colour
};

// The new-deployment form (or, with `editing`, a recipe change for an existing deployment).
struct DeployForm {
  std::string segment;
  std::string chip;
  int replicas = 1;
  game::RecipeSettings recipe;
  std::string recipe_for;  // "model|chip" the recipe was defaulted for; a new pair reloads it
  std::optional<std::int64_t> editing;
  // The form as it was when its Deploy went through (what_if_key): while it is unchanged, its
  // GPUs are the ones just claimed, and "rent more first" would wrongly read as a problem.
  std::string deployed_key;
  // Disaggregated serving (scenarios that allow it): a decode pool of its own; the fields above
  // are then the prefill pool.
  bool split = false;
  std::string decode_chip;
  int decode_replicas = 1;
  int decode_tp = 0;  // GPUs per decode replica; 0: the decode chip's starting recipe
  serving::KvLinkKind decode_link = game::DecodePoolSpec{}.link;  // the game's default link
};

struct StartForm {
  std::string classroom_scenario;  // scenario id
  std::string classroom_code;
  std::string load_path;
  // Class setup (instructors): the choices of a new class, as `tycoon class new` takes them.
  std::string setup_scenario;  // scenario id
  std::string setup_class_id;
  std::string setup_title;
  std::string setup_seed;                   // digits; empty: the scenario's
  int setup_days = 0;                       // 0: the scenario's
  std::string setup_history_days;           // digits; empty: the scenario's (0 is a choice: no history)
  std::map<std::string, bool> setup_locks;  // lever -> locked by the class
  int setup_advisor = 0;                    // 0: the default, 1: on, 2: off
  std::string setup_out;                    // the class file to write; empty: only the link
  // Starting a class: a class file, or a link (its query string).
  std::string class_file;
  std::string class_link;
  // Class report: the JSON `tycoon class report` writes beside its HTML, and the student to find.
  std::string report_path;
  std::string report_student;
};

struct ViewState {
  Screen screen = Screen::kStart;
  double time_s = 0;  // wall time since the app started
  Tab tab = Tab::kDashboard;
  std::optional<Tab> tab_request;  // switch to this tab on the next frame

  std::map<std::string, int> rent_counts;  // "chip|contract" -> GPUs to rent
  DeployForm deploy;
  std::map<std::string, econ::TokenPrices> price_drafts;  // per model, while editing
  std::optional<std::int64_t> selected_deployment;        // traffic, profiler, Pareto
  int pareto_alternatives = 3;

  std::vector<Message> messages;
  bool advisor_opened = false;
  bool debrief_opened = false;

  bool save_popup_requested = false;
  std::filesystem::path save_dir;  // where saves go by default
  std::string save_path;
  std::vector<std::filesystem::path> save_files;  // listed when the popup opens

  StartForm start;
  WidgetTags tags;

  void open_tab(Tab t) { tab_request = t; }
  // Which alarms stop the clock (the player's setting, kept across games of a session): the
  // game's defaults (game::kAlarmPausesByDefault); the news feed's "Pause the clock on" switches each.
  std::array<bool, game::kAlarmKindNames.size()> pause_on = game::kAlarmPausesByDefault;

  std::size_t first_message_of_game = 0;  // the strip shows messages from this index on

  void message(std::string text, bool ok, std::int64_t hour, bool guide = false) {
    messages.push_back({std::move(text), ok, time_s, hour, guide});
  }
};

}  // namespace tycoon::ui
