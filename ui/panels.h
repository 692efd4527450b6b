// Every panel of the game, one per file. A panel reads the game through `const GameView&`, keeps
// its own form state in ViewState, and changes the game only by pushing commands.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "sim/classroom/class_report.h"
#include "sim/data/catalog.h"
#include "sim/game/scenario.h"
#include "sim/game/state.h"
#include "ui/command_queue.h"
#include "ui/game_runner.h"
#include "ui/library.h"
#include "ui/previews.h"
#include "ui/view_state.h"

namespace tycoon::advisor {
struct AdvisorOptions;
}

namespace tycoon::ui {

// The game as a panel sees it: read-only.
struct GameView {
  const game::GameState& state;
  const game::Scenario& scenario;
  const data::Catalog& catalog;
  Speed speed = Speed::kPaused;
  bool sim_busy = false;  // an hour or a command is being simulated
  std::string label;      // "classroom code X" or "" (how the game was started)
  // The advisor's debrief with the truth of each proposal: only once the game is over (else null).
  const nlohmann::json* revealed_debrief = nullptr;
  // Once the game is over and the comparison runs have been played: the complete score, the
  // counterfactuals and the gap to the reference (else null: "computing").
  const game::GameSummary* final_summary = nullptr;
  // The settings of the advisor attached to the game, which quote its checks (null: no advisor
  // that sells checks).
  const advisor::AdvisorOptions* advisor_options = nullptr;
  // A class game whose answer key is kept back (classroom/answer_key.h): no level answer, no
  // reference strategy, gap or what to try next, no truth of the advisor's proposals.
  bool answer_key_hidden = false;
  // A class game: its class and the student playing it where known (the save's name,
  // game::save_file_name); empty otherwise.
  std::string class_id = {}, student = {};
};

// Top bar: company, clock, headline numbers, time controls (pause, 1x, 4x, 16x, +1 hour), save.
// It takes one row where the window is wide enough and two rows below that; top_bar_height says
// how tall the bar is at a window width (px), so that the panels start under it.
void draw_time_controls(const GameView& game, ViewState& view, CommandQueue& out);
float top_bar_height(float window_width);
void draw_dashboard_panel(const GameView& game, ViewState& view, CommandQueue& out);
void draw_market_panel(const GameView& game, ViewState& view, CommandQueue& out);
void draw_deployments_panel(const GameView& game, ViewState& view, CommandQueue& out, Previews& previews);
void draw_pricing_panel(const GameView& game, ViewState& view, CommandQueue& out);
void draw_traffic_panel(const GameView& game, ViewState& view, CommandQueue& out, Previews& previews);
void draw_profiler_panel(const GameView& game, ViewState& view, CommandQueue& out, Previews& previews);
void draw_pareto_panel(const GameView& game, ViewState& view, CommandQueue& out, Previews& previews);
void draw_advisor_panel(const GameView& game, ViewState& view, CommandQueue& out);
// News and events feed, with the tutorial's current hint on top.
void draw_news_panel(const GameView& game, ViewState& view, CommandQueue& out);
void draw_debrief_panel(const GameView& game, ViewState& view, CommandQueue& out);
// The save / load popup (opened by the top bar).
void draw_save_load_popup(const GameView& game, ViewState& view, CommandQueue& out);
// The status strip: recent command outcomes and alarms (refusals in red with their reason), in a
// strip of its own along the bottom of the window that the rest of the layout leaves free, so a
// message never covers a control. `right_inset` px at its right end stay empty (the browser page
// puts its Import and Export buttons there). messages_strip_height: how tall the strip is this
// frame for a window `width` px wide (one line when idle, more while messages are fresh).
float messages_strip_height(const ViewState& view, float width, float right_inset);
void draw_messages(ViewState& view, float right_inset);

struct StartScreenData {
  const std::vector<ScenarioEntry>& scenarios;
  const Progress& progress;
  const std::vector<std::filesystem::path>& saves;
  std::string error;         // the last start or load that failed
  bool load_by_path = true;  // offer a path field (not in the browser: its saves are listed)
  // Class setup's last outcome (a message, the class's link), and the class report loaded (null:
  // none yet) or why it did not load.
  const ClassSetupOutcome* class_setup = nullptr;
  const classroom::ClassReportView* class_report = nullptr;
  std::string class_report_error;
};
// Tutorial, campaign (levels unlock), sandbox, classroom code or seed, load a saved game.
void draw_start_screen(const StartScreenData& data, ViewState& view, CommandQueue& out);

}  // namespace tycoon::ui
