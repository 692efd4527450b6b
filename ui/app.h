// The game's front end, platform-free: owns the catalog, the running game (through a
// GameRunner), the what-if previews and the ViewState, and draws one ImGui frame at a time.
// A platform shell (ui/desktop with SFML, web/ with GLFW) creates the window, feeds input to
// ImGui, calls frame() between NewFrame and Render, and renders.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/advisor/code_change_catalog.h"
#include "sim/classroom/class_report.h"
#include "sim/data/catalog.h"
#include "ui/command_queue.h"
#include "ui/game_runner.h"
#include "ui/library.h"
#include "ui/previews.h"
#include "ui/view_state.h"

namespace tycoon::ui {

struct AppOptions {
  std::filesystem::path data_root;                   // catalogs and scenarios/
  std::vector<std::filesystem::path> scenario_dirs;  // more scenario folders
  std::filesystem::path save_dir = "saves";
  std::filesystem::path progress_file = "saves/progress.json";
  bool threaded = true;  // simulate on worker threads (false: inside frames, an hour at most)
  // The advisor hook (sim/advisor): called for every game started or loaded; the
  // advisor it returns posts proposals to the game's inbox, which the Advisor panel shows. A loaded
  // game's advisor continues from the save: its memory is the GameState's (sim/game/advisor_state.h).
  // Unset: `advisor` decides. Returning null: no advisor, and the panel says there are no proposals.
  std::function<std::shared_ptr<game::Advisor>(const game::Scenario&)> make_advisor;
  // Without make_advisor: attach sim/advisor's Chien (its code-change catalog is read from
  // data_root/hardware_db/advisor_catalog.json when the App is made) to every game. The web
  // shell sets it; the desktop shell does not yet (its Xvfb script expects an empty inbox).
  bool advisor = false;
  // Alarms (sim's news with an alarm kind: the SLO or reputation collapsing, cash running out, a
  // new proposal, a check's result) pause the clock and show as a message. Automation that must
  // run through them (frame-time tests) turns it off.
  bool auto_pause = true;
  // The start screen offers a file-path field to load a save (the browser lists its saves instead).
  bool load_by_path = true;
  // Px at the right end of the status strip (the bottom line of messages) left empty: the
  // browser page draws its Import and Export buttons there.
  float status_right_inset = 0;
};

struct GameView;

class App {
 public:
  // Loads the catalog and lists the scenarios. Throws data::LoadError on a bad catalog.
  explicit App(AppOptions options);
  ~App();

  // Starts a scenario (a path, or an id or name from the library) or loads a save, as the start
  // screen would. On failure the start screen shows why; returns false.
  bool start(const std::string& scenario, std::optional<std::uint64_t> seed, const std::string& label);
  bool load(const std::filesystem::path& save);
  // Starts a class: from a class file, or from a link's query string (the browser's
  // ?class=…&scenario=… link). Checked by sim/classroom as `tycoon class` checks it; a bad one
  // leaves the start screen up with the reason.
  bool start_class_file(const std::filesystem::path& file);
  bool start_class_link(std::string_view query);
  // Loads a class report's JSON (`tycoon class report` writes it beside the HTML) into the start
  // screen's Class report section; false with the reason shown there.
  bool load_class_report(const std::filesystem::path& file);
  // The address the browser build was opened at ("https://host/path/"): class links are shown
  // whole, that address and their query string. Empty on the desktop.
  void set_page_url(std::string url) { page_url_ = std::move(url); }
  void set_speed(Speed s);
  void set_auto_pause(bool on) { options_.auto_pause = on; }
  // Queues a game command for the running game, as a panel would (applied at the next hour
  // boundary; its outcome shows as a message). Returns false when no game is running.
  bool submit(game::Command c);

  // Draws one frame; call between ImGui::NewFrame() and ImGui::Render().
  void frame(double dt_s);

  bool quit_requested() const { return quit_; }
  const ViewState& view() const { return view_; }
  const WidgetTags& tags() const { return view_.tags; }
  // For widgets the platform shell draws over the app's frame (the desktop's Hand in button).
  WidgetTags& tags() { return view_.tags; }
  // The game hour, or -1 on the start screen.
  std::int64_t hour() const;
  // Simulation hours, commands or previews outstanding.
  bool busy() const;
  // The game on screen: its clock, and its save file's text (game::save_text, from the newest
  // snapshot) when `with_text`. Nullopt on the start screen. A class server's hand-in sends this
  // text: the game being played, never the newest file in the save folder.
  struct CurrentGame {
    std::int64_t hour = 0, end_hour = 0;
    bool finished = false;
    std::string scenario_id;
    std::string save_name;  // game::save_file_name
    std::string save_text;  // empty unless asked for
  };
  // The student playing a class game (a class server's link): its saves carry their name.
  void set_student(std::string student) { student_ = std::move(student); }
  std::optional<CurrentGame> current_game(bool with_text) const;
  std::optional<RunnerStats> runner_stats() const;
  // Blocks until the simulation and previews are idle (tests, exit).
  void wait_idle();

  // The state reached and what the UI showed, for tests: {"screen", "state", "summary", "ui"}.
  nlohmann::json dump() const;

 private:
  void handle(const SessionRequest& r);
  void set_up_class(const SetUpClass& r);
  bool start_class(const classroom::ClassSpec& spec, const std::string& source);
  void draw_game(double dt_s);
  // The tutorial's highlight on its step's control, and the ViewPanel a reading step waits for.
  void draw_tutorial_overlay(const GameView& game, CommandQueue& out);
  void take_outcomes();
  void record_progress(const game::GameState& s);
  void reset_view_for_game();
  // Ends the running game (if any), keeping its last snapshot and statistics.
  void end_game();
  // The advisor for a new or loaded game (make_advisor, else the Chien, else none).
  std::shared_ptr<game::Advisor> make_advisor(const game::Scenario& scenario) const;

  AppOptions options_;
  data::Catalog catalog_;
  std::optional<advisor::CodeChangeCatalog> code_changes_;  // when the Chien advises
  std::vector<ScenarioEntry> scenarios_;
  Progress progress_;
  std::vector<std::filesystem::path> saves_;
  std::unique_ptr<GameRunner> runner_;
  std::unique_ptr<Previews> previews_;
  std::string label_;
  std::string class_id_, student_;
  std::string page_url_;  // a class game's (GameView::class_id, student)
  // A class game: its debrief keeps the answer key back (classroom::answer_key_shown; the class's
  // deadline is not known here, so until the instructor shows it from the report).
  bool answer_key_hidden_ = false;
  // The final summary as the debrief shows it (the answer key taken out in a class game), made
  // once from the runner's.
  mutable std::shared_ptr<const game::GameSummary> shown_summary_, shown_summary_of_;
  std::shared_ptr<const game::GameSummary> shown_final_summary() const;
  ViewState view_;
  std::string start_error_;
  // The last game's newest snapshot, kept after going back to the menu so that dump() can
  // report the state a session reached.
  std::shared_ptr<const game::GameState> last_state_;
  std::optional<RunnerStats> last_runner_stats_;  // the previous game's, likewise
  bool quit_ = false;
  bool progress_recorded_ = false;
  std::string viewed_panel_sent_;  // the tutorial step whose ViewPanel was submitted
  TaggedRect tutorial_target_;     // where the tutorial's highlight was last drawn
  std::size_t news_seen_ = 0;      // news items of the running game already checked for alarms
  bool finish_seen_ = false;
  ClassSetupOutcome class_setup_;
  std::optional<classroom::ClassReportView> class_report_;
  std::string class_report_error_;
};

}  // namespace tycoon::ui
