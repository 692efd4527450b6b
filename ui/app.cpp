#include "ui/app.h"

#include <algorithm>
#include <cmath>

#include "sim/advisor/advisor.h"
#include "sim/classroom/answer_key.h"
#include "sim/classroom/class_report.h"
#include "sim/classroom/class_spec.h"
#include "sim/core/atomic_file.h"
#include "sim/game/fleet.h"
#include "sim/game/save.h"
#include "sim/game/scoring.h"
#include "sim/game/state_json.h"
#include "sim/game/tallies.h"
#include "ui/panels.h"
#include "ui/theme.h"

namespace tycoon::ui {

namespace {
// The news sidebar: a quarter of the window, within readable bounds (px).
float sidebar_width(float window_width) { return std::clamp(window_width * 0.24f, 240.0f, 360.0f); }
}  // namespace

App::App(AppOptions options) : options_(std::move(options)), catalog_(data::load_catalog(options_.data_root)) {
  scenarios_ = list_scenario_entries(catalog_, options_.data_root, options_.scenario_dirs);
  std::string error;
  progress_ = load_progress(options_.progress_file, &error);
  if (!error.empty()) start_error_ = "Campaign progress could not be read (starting fresh): " + error;
  saves_ = list_saves(options_.save_dir);
  theme::set_model_errors(analysis::load_model_errors(options_.data_root));
  view_.save_dir = options_.save_dir;
  if (!options_.make_advisor && options_.advisor) {
    code_changes_ = advisor::load_code_change_catalog_from_root(options_.data_root);
  }
}

std::shared_ptr<game::Advisor> App::make_advisor(const game::Scenario& scenario) const {
  if (!scenario.advisor_allowed()) return nullptr;
  if (options_.make_advisor) return options_.make_advisor(scenario);
  if (code_changes_) return advisor::default_advisor(catalog_, scenario, *code_changes_);
  return nullptr;
}

App::~App() {
  runner_.reset();
  previews_.reset();
}

std::int64_t App::hour() const { return runner_ ? runner_->snapshot()->hour : -1; }

std::optional<App::CurrentGame> App::current_game(bool with_text) const {
  if (!runner_) return std::nullopt;
  const auto snap = runner_->snapshot();
  CurrentGame g{snap->hour,
                snap->end_hour,
                snap->finished,
                snap->scenario_id,
                game::save_file_name(snap->scenario_id, snap->hour, class_id_, student_),
                {}};
  if (with_text) g.save_text = game::save_text(game::Game(runner_->scenario(), *snap, catalog_));
  return g;
}

bool App::busy() const { return (runner_ && runner_->busy()) || (previews_ && previews_->pending() > 0); }

std::optional<RunnerStats> App::runner_stats() const {
  if (!runner_) return last_runner_stats_;
  return runner_->stats();
}

std::shared_ptr<const game::GameSummary> App::shown_final_summary() const {
  auto f = runner_ ? runner_->final_summary() : nullptr;
  if (!f || !answer_key_hidden_) return f;
  if (shown_summary_of_ != f) {
    shown_summary_of_ = f;
    shown_summary_ = std::make_shared<const game::GameSummary>(classroom::without_answer_key(*f));
  }
  return shown_summary_;
}

void App::end_game() {
  if (!runner_) return;
  last_state_ = runner_->snapshot();
  last_runner_stats_ = runner_->stats();
  runner_.reset();
  previews_.reset();
}

void App::wait_idle() {
  if (runner_) runner_->wait_idle();
  if (previews_) previews_->wait_idle();
}

void App::set_speed(Speed s) {
  if (runner_) runner_->set_speed(s);
}

bool App::submit(game::Command c) {
  if (!runner_) return false;
  runner_->submit(std::move(c));
  return true;
}

void App::reset_view_for_game() {
  ViewState fresh;
  fresh.time_s = view_.time_s;
  // The strip shows only the messages of the game in play: a new game starts with an empty strip
  // (the session's messages stay in the log the automation dump reads).
  fresh.messages = std::move(view_.messages);
  fresh.first_message_of_game = fresh.messages.size();
  fresh.save_dir = view_.save_dir;
  fresh.start = view_.start;
  fresh.advisor_opened = view_.advisor_opened;  // a session fact, for tests and the dump
  fresh.pause_on = view_.pause_on;              // the player's setting
  fresh.screen = Screen::kGame;
  // ImGui remembers the tab bar's selection: a new game would open on the last game's tab.
  fresh.tab_request = Tab::kDashboard;
  view_ = std::move(fresh);
  progress_recorded_ = false;
  finish_seen_ = false;
  // A loaded game's old news are not new alarms.
  news_seen_ = runner_ ? runner_->snapshot()->news.size() : 0;
}

bool App::start(const std::string& scenario, std::optional<std::uint64_t> seed, const std::string& label) {
  try {
    std::filesystem::path path = scenario;
    if (!std::filesystem::exists(path)) {
      path.clear();
      for (const auto& e : scenarios_) {
        if (e.id == scenario || e.path.stem() == scenario) path = e.path;
      }
      if (path.empty()) path = game::find_scenario(scenario, options_.data_root);
    }
    auto sc = game::load_scenario(path, catalog_);
    game::GameOptions go;
    go.seed = seed;
    auto g = std::make_unique<game::Game>(std::move(sc), catalog_, go);
    g->set_advisor(make_advisor(g->scenario()));
    end_game();
    previews_ = std::make_unique<Previews>(catalog_, options_.threaded);
    runner_ = std::make_unique<GameRunner>(std::move(g), options_.threaded);
    label_ = label;
    class_id_.clear();
    answer_key_hidden_ = classroom::answer_key_hidden_in_play(runner_->scenario());
    start_error_.clear();
    reset_view_for_game();
    return true;
  } catch (const std::exception& e) {
    start_error_ = "Could not start " + scenario + ": " + e.what();
    view_.message(start_error_, false, 0);
    return false;
  }
}

bool App::load(const std::filesystem::path& save) {
  try {
    auto data = game::load_save(save, catalog_);
    auto g = std::make_unique<game::Game>(std::move(data.scenario), std::move(data.state), catalog_);
    g->set_advisor(make_advisor(g->scenario()));
    end_game();
    previews_ = std::make_unique<Previews>(catalog_, options_.threaded);
    runner_ = std::make_unique<GameRunner>(std::move(g), options_.threaded);
    label_ = "loaded " + save.filename().string();
    class_id_.clear();
    answer_key_hidden_ = classroom::answer_key_hidden_in_play(runner_->scenario());
    start_error_.clear();
    reset_view_for_game();
    view_.message("Loaded " + save.string(), true, runner_->snapshot()->hour);
    return true;
  } catch (const std::exception& e) {
    start_error_ = "Could not load " + save.string() + ": " + e.what();
    view_.message(start_error_, false, hour() < 0 ? 0 : hour());
    return false;
  }
}

void App::handle(const SessionRequest& r) {
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, StartGame>) {
          start(x.scenario.string(), x.seed, x.label);
        } else if constexpr (std::is_same_v<T, LoadGame>) {
          load(x.path);
        } else if constexpr (std::is_same_v<T, SaveGame>) {
          if (runner_) {
            std::error_code ec;
            if (x.path.has_parent_path()) std::filesystem::create_directories(x.path.parent_path(), ec);
            runner_->request_save(x.path);
          }
        } else if constexpr (std::is_same_v<T, SetSpeed>) {
          set_speed(x.speed);
        } else if constexpr (std::is_same_v<T, ToMenu>) {
          // Leaving a game in progress never loses it: it is saved first (from the newest snapshot).
          if (runner_) {
            auto snap = runner_->snapshot();
            if (!snap->finished && snap->hour > 0) {
              const auto path = options_.save_dir / game::autosave_file_name(snap->scenario_id, class_id_, student_);
              try {
                std::error_code ec;
                std::filesystem::create_directories(path.parent_path(), ec);
                game::save_game(game::Game(runner_->scenario(), *snap, catalog_), path);
                view_.message(
                    "Your game is saved as " + path.filename().string() + ": continue it from the start screen.", true,
                    snap->hour);
              } catch (const std::exception& e) {
                view_.message(std::string("Could not save your game, so it stays open: ") + e.what(), false,
                              snap->hour);
                return;
              }
            }
          }
          end_game();
          saves_ = list_saves(options_.save_dir);
          scenarios_ = list_scenario_entries(catalog_, options_.data_root, options_.scenario_dirs);
          view_.screen = Screen::kStart;
        } else if constexpr (std::is_same_v<T, QuitApp>) {
          quit_ = true;
        } else if constexpr (std::is_same_v<T, SetUpClass>) {
          set_up_class(x);
        } else if constexpr (std::is_same_v<T, StartClass>) {
          if (x.file.empty()) {
            start_class_link(x.link_query);
          } else {
            start_class_file(x.file);
          }
        } else if constexpr (std::is_same_v<T, LoadClassReport>) {
          load_class_report(x.path);
        }
      },
      r);
}

bool App::load_class_report(const std::filesystem::path& file) {
  try {
    class_report_ = classroom::load_class_report_view(file);
    class_report_error_.clear();
    return true;
  } catch (const std::exception& e) {
    class_report_.reset();
    class_report_error_ = std::string("Could not load the class report: ") + e.what();
    view_.message(class_report_error_, false, 0);
    return false;
  }
}

void App::set_up_class(const SetUpClass& r) {
  class_setup_ = ClassSetupOutcome{};
  try {
    const auto scenario = game::load_scenario(r.scenario, catalog_);
    const auto spec = classroom::make_class(scenario, r.choices);
    class_setup_.link_query = classroom::class_link_query(spec);
    class_setup_.page_url = page_url_;
    if (!r.out.empty()) {
      core::write_file_atomically(r.out, classroom::to_json(spec).dump(2) + "\n");
      class_setup_.message = "Class " + spec.class_id + " written to " + r.out.string() +
                             ": share the file, or the link below (the browser game opens it).";
    } else {
      class_setup_.message = "Class " + spec.class_id + ": share the link below; it opens this exact class.";
    }
    class_setup_.ok = true;
  } catch (const std::exception& e) {
    class_setup_.message = std::string("Could not set up the class: ") + e.what();
  }
}

bool App::start_class(const classroom::ClassSpec& spec, const std::string& source) {
  try {
    auto world = classroom::class_world(spec, source, catalog_, options_.data_root);
    auto g = world.new_game(catalog_);
    // The class's advisor is the class's (on or off), not the app's default.
    if (!spec.advisor) g->set_advisor(nullptr);
    end_game();
    previews_ = std::make_unique<Previews>(catalog_, options_.threaded);
    runner_ = std::make_unique<GameRunner>(std::move(g), options_.threaded);
    label_ = "class " + spec.class_id;
    class_id_ = spec.class_id;
    answer_key_hidden_ = !classroom::answer_key_shown(std::nullopt, std::nullopt);
    start_error_.clear();
    reset_view_for_game();
    view_.message("Class " + spec.class_id + (spec.title.empty() ? "" : " (" + spec.title + ")") + ": seed " +
                      std::to_string(spec.seed) + ", " + std::to_string(spec.days) +
                      (spec.days == 1 ? " day." : " days."),
                  true, 0);
    return true;
  } catch (const std::exception& e) {
    start_error_ = "Could not start the class from " + source + ": " + e.what();
    view_.message(start_error_, false, hour() < 0 ? 0 : hour());
    return false;
  }
}

bool App::start_class_file(const std::filesystem::path& file) {
  try {
    return start_class(classroom::load_class(file), file.string());
  } catch (const std::exception& e) {
    start_error_ = std::string("Could not start the class: ") + e.what();
    view_.message(start_error_, false, hour() < 0 ? 0 : hour());
    return false;
  }
}

bool App::start_class_link(std::string_view query) {
  try {
    const auto link = classroom::parse_class_link(query);
    const auto scenario = game::load_scenario(game::find_scenario(link.scenario, options_.data_root), catalog_);
    const auto spec = classroom::make_class(scenario, link.choices);
    return start_class(spec, "the class link");
  } catch (const std::exception& e) {
    start_error_ = std::string("The class link does not open a class: ") + e.what();
    view_.message(start_error_, false, hour() < 0 ? 0 : hour());
    return false;
  }
}

void App::take_outcomes() {
  if (!runner_) return;
  for (auto& o : runner_->take_outcomes()) {
    if (o.result.message.empty()) continue;
    std::string text = o.result.ok ? o.result.message : "Refused " + o.what + ": " + o.result.message;
    if (o.what == "step" || o.what == "save") text = o.result.message;
    if (!o.result.ok && o.what == "step") runner_->set_speed(Speed::kPaused);
    if (o.what == "save" && o.result.ok) saves_ = list_saves(options_.save_dir);
    view_.message(std::move(text), o.result.ok, o.at_hour);
  }
}

void App::record_progress(const game::GameState& s) {
  if (progress_recorded_ || !s.finished || !runner_) return;
  // The score is complete once the comparison runs are in.
  auto final_summary = runner_->final_summary();
  if (!final_summary) return;
  progress_recorded_ = true;
  const auto& sc = runner_->scenario();
  // Only a game of an open level as its file sets it counts (game::counts_for_progress).
  const auto entry = std::find_if(scenarios_.begin(), scenarios_.end(),
                                  [&](const ScenarioEntry& e) { return e.id == sc.id && e.error.empty(); });
  if (entry == scenarios_.end()) return;
  try {
    if (!game::counts_for_progress(sc, game::load_scenario(entry->path, catalog_),
                                   unlocked(scenarios_, *entry, progress_)))
      return;
  } catch (const std::exception&) {
    return;
  }
  const auto& result = final_summary->score;
  int& best = progress_.best_stars[sc.id];
  best = std::max(best, result.stars);
  std::string error;
  if (!save_progress(progress_, options_.progress_file, &error)) view_.message(error, false, s.hour);
  if (sc.kind == game::ScenarioKind::kCampaign && game::unlocks_next_level(result.stars)) {
    view_.message("Level passed: the next campaign level is unlocked.", true, s.hour);
  }
}

void App::frame(double dt_s) {
  view_.time_s += dt_s;
  view_.tags.clear();
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  if (view_.screen == Screen::kStart || !runner_) {
    view_.screen = Screen::kStart;
    const float status_h = messages_strip_height(view_, vp->Size.x, options_.status_right_inset);
    ImGui::SetNextWindowPos(vp->Pos);
    ImGui::SetNextWindowSize(ImVec2(vp->Size.x, vp->Size.y - status_h));
    ImGui::SetNextWindowBgAlpha(0.0f);  // the shell's clear color is the background
    ImGui::Begin("##start", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                     ImGuiWindowFlags_NoBringToFrontOnFocus);
    CommandQueue out;
    StartScreenData data{scenarios_,
                         progress_,
                         saves_,
                         start_error_,
                         options_.load_by_path,
                         &class_setup_,
                         class_report_ ? &*class_report_ : nullptr,
                         class_report_error_};
    draw_start_screen(data, view_, out);
    ImGui::End();
    draw_messages(view_, options_.status_right_inset);
    for (const auto& r : out.requests) handle(r);
    return;
  }
  draw_game(dt_s);
}

void App::draw_game(double dt_s) {
  runner_->tick(dt_s);
  if (previews_) previews_->run_pending();
  take_outcomes();
  auto snapshot = runner_->snapshot();
  last_state_ = snapshot;
  const game::GameState& s = *snapshot;
  // Alarms stop the clock (when the game is running) and say why.
  if (news_seen_ > s.news.size()) news_seen_ = 0;
  for (; news_seen_ < s.news.size(); ++news_seen_) {
    const auto& n = s.news[news_seen_];
    if (!n.alarm) continue;
    const bool pause = options_.auto_pause && view_.pause_on[static_cast<std::size_t>(*n.alarm)] &&
                       runner_->speed() != Speed::kPaused && !s.finished;
    if (pause) runner_->set_speed(Speed::kPaused);
    const bool guide = n.alarm == game::AlarmKind::kTutorialStep;
    // Not a warning (sim's tone of the alarm: game::alarm_tone): shown as news, not as trouble.
    view_.message((pause ? "Paused: " : "") + n.text,
                  n.tone != game::NewsTone::kWarning && n.tone != game::NewsTone::kLoss, n.at_hour, guide);
  }
  GameView game{s, runner_->scenario(), catalog_, runner_->speed(), runner_->busy(), label_};
  if (const auto* chien = dynamic_cast<const advisor::Chien*>(runner_->advisor())) {
    game.advisor_options = &chien->options();
  }
  // The control the tutorial rings is scrolled into view where it is drawn (ui/automation.h).
  const auto* ringed = game::current_step(runner_->scenario().tutorial_steps, s);
  view_.tags.want_visible(ringed ? game::step_target(*ringed, s) : std::string());
  auto revealed = runner_->revealed_debrief();
  if (revealed && !revealed->is_null() && !answer_key_hidden_) game.revealed_debrief = revealed.get();
  auto final_summary = shown_final_summary();
  game.final_summary = final_summary.get();
  game.answer_key_hidden = answer_key_hidden_;
  game.class_id = class_id_;
  game.student = student_;
  CommandQueue out;
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const ImGuiWindowFlags fixed = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus;

  // Keyboard: space pauses and resumes (not while typing).
  ImGuiIO& io = ImGui::GetIO();
  if (!io.WantTextInput && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Space), false) && !s.finished) {
    out.request(SetSpeed{runner_->speed() == Speed::kPaused ? Speed::k1x : Speed::kPaused});
  }

  // Top bar, tabs | news, and the status strip along the bottom: nothing overlaps.
  const float top_h = top_bar_height(vp->Size.x);
  const float side_w = sidebar_width(vp->Size.x);
  const float body_h = vp->Size.y - top_h - messages_strip_height(view_, vp->Size.x, options_.status_right_inset);
  ImGui::SetNextWindowPos(vp->Pos);
  ImGui::SetNextWindowSize(ImVec2(vp->Size.x, top_h));
  ImGui::PushStyleColor(ImGuiCol_WindowBg, theme::kPanelRaised);
  ImGui::Begin("##topbar", nullptr, fixed);
  draw_time_controls(game, view_, out);
  draw_save_load_popup(game, view_, out);
  ImGui::End();
  ImGui::PopStyleColor();

  ImGui::SetNextWindowPos(ImVec2(vp->Pos.x, vp->Pos.y + top_h));
  ImGui::SetNextWindowSize(ImVec2(vp->Size.x - side_w, body_h));
  // The clear color already paints the main area: a transparent window saves rasterizing a
  // screen-sized rectangle every frame on software GL.
  ImGui::PushStyleColor(ImGuiCol_WindowBg, IM_COL32(0, 0, 0, 0));
  ImGui::Begin("##main", nullptr, fixed);
  if (s.finished && !finish_seen_) {
    finish_seen_ = true;
    view_.open_tab(Tab::kDebrief);
    runner_->set_speed(Speed::kPaused);
  }
  record_progress(s);
  if (ImGui::BeginTabBar("##tabs")) {
    const int pending = game::advice_tally(s.inbox).num_pending;
    for (std::size_t i = 0; i < kTabNames.size(); ++i) {
      const Tab t = static_cast<Tab>(i);
      std::string label(kTabNames[i]);
      if (t == Tab::kAdvisor && pending > 0) label += " (" + std::to_string(pending) + ")";
      label += "###" + std::string(kTabTags[i]);
      ImGuiTabItemFlags flags = view_.tab_request == t ? ImGuiTabItemFlags_SetSelected : 0;
      const bool open = ImGui::BeginTabItem(label.c_str(), nullptr, flags);
      tag(view_.tags, "tab." + std::string(kTabTags[i]));
      if (!open) continue;
      view_.tab = t;
      ImGui::BeginChild("##content", ImVec2(0, 0), false);
      switch (t) {
        case Tab::kDashboard:
          draw_dashboard_panel(game, view_, out);
          break;
        case Tab::kMarket:
          draw_market_panel(game, view_, out);
          break;
        case Tab::kDeployments:
          draw_deployments_panel(game, view_, out, *previews_);
          break;
        case Tab::kPricing:
          draw_pricing_panel(game, view_, out);
          break;
        case Tab::kTraffic:
          draw_traffic_panel(game, view_, out, *previews_);
          break;
        case Tab::kProfiler:
          draw_profiler_panel(game, view_, out, *previews_);
          break;
        case Tab::kPareto:
          draw_pareto_panel(game, view_, out, *previews_);
          break;
        case Tab::kAdvisor:
          draw_advisor_panel(game, view_, out);
          break;
        case Tab::kDebrief:
          draw_debrief_panel(game, view_, out);
          break;
      }
      ImGui::EndChild();
      ImGui::EndTabItem();
    }
    // The request is honoured once the tab bar has seen it.
    view_.tab_request.reset();
    ImGui::EndTabBar();
  }
  ImGui::End();
  ImGui::PopStyleColor();

  ImGui::SetNextWindowPos(ImVec2(vp->Pos.x + vp->Size.x - side_w, vp->Pos.y + top_h));
  ImGui::SetNextWindowSize(ImVec2(side_w, body_h));
  ImGui::SetNextWindowBgAlpha(0.0f);  // see ##main; its border separates it
  ImGui::Begin("##sidebar", nullptr, fixed);
  draw_news_panel(game, view_, out);
  ImGui::End();

  draw_messages(view_, options_.status_right_inset);
  draw_tutorial_overlay(game, out);

  for (auto& c : out.commands) runner_->submit(std::move(c));
  for (const auto& r : out.requests) handle(r);
}

static Tab tab_of(std::string_view panel) {
  for (std::size_t i = 0; i < kTabTags.size(); ++i) {
    if (kTabTags[i] == panel) return static_cast<Tab>(i);
  }
  return Tab::kDashboard;
}

static const TaggedRect* find_tutorial_target(const WidgetTags& tags, const game::TutorialStep& step,
                                              const game::GameState& s) {
  // The rule of what to ring is the game's (the decide step rings what the evidence supports).
  const std::string target = game::step_target(step, s);
  if (!target.empty()) {
    if (target.back() == '.') {
      for (const auto& [name, r] : tags.all()) {
        if (name.starts_with(target)) return &r;
      }
    } else if (const auto* r = tags.find(target)) {
      return r;
    }
  }
  // Not on screen (another tab): point at the tab.
  if (!step.tab.empty()) return tags.find("tab." + step.tab);
  return nullptr;
}

void App::draw_tutorial_overlay(const GameView& game, CommandQueue& out) {
  const auto* step = game::current_step(game.scenario.tutorial_steps, game.state);
  if (!step) return;
  // A step that asks the player to read a panel is done when they open it.
  if (step->when == game::StepCondition::kPanelViewed && view_.tab == tab_of(step->panel) &&
      viewed_panel_sent_ != step->id) {
    viewed_panel_sent_ = step->id;
    out.push(game::ViewPanel{step->panel});
  }
  const TaggedRect* r = find_tutorial_target(view_.tags, *step, game.state);
  if (!r) return;
  // A pulsing frame around the control, over everything.
  const float pulse = 0.55f + 0.45f * std::sin(static_cast<float>(view_.time_s) * 5.0f);
  ImDrawList* dl = ImGui::GetForegroundDrawList();
  const float pad = 4;
  dl->AddRect(ImVec2(r->x0 - pad, r->y0 - pad), ImVec2(r->x1 + pad, r->y1 + pad),
              theme::with_alpha(theme::kAccent, pulse), 6, 0, 3.0f);
  tutorial_target_ = *r;
}

nlohmann::json App::dump() const {
  nlohmann::json j;
  if (runner_) {
    const auto snap = runner_->snapshot();
    const auto& sc = runner_->scenario();
    if (!sc.tutorial_steps.empty()) {
      nlohmann::json t = {{"steps", sc.tutorial_steps.size()},
                          {"done", snap->world.tutorial_step},
                          {"holds_clock", game::tutorial_holds_clock(sc, *snap)}};
      if (const auto* step = game::current_step(sc.tutorial_steps, *snap)) {
        t["id"] = step->id;
        t["text"] = step->text;
        t["tab"] = step->tab;
        t["target"] = game::step_target(*step, *snap);
        t["highlight"] = {tutorial_target_.x0, tutorial_target_.y0, tutorial_target_.x1, tutorial_target_.y1};
      }
      j["tutorial"] = t;
    }
  }
  j["screen"] = view_.screen == Screen::kStart ? "start" : "game";
  nlohmann::json messages = nlohmann::json::array();
  for (const auto& m : view_.messages) messages.push_back({{"text", m.text}, {"ok", m.ok}, {"at_hour", m.at_hour}});
  j["ui"] = {{"tab", std::string(kTabTags[static_cast<std::size_t>(view_.tab)])},
             {"advisor_opened", view_.advisor_opened},
             {"debrief_opened", view_.debrief_opened},
             {"speed", runner_ ? std::string(kSpeedNames[static_cast<std::size_t>(runner_->speed())]) : "paused"},
             {"auto_pause", options_.auto_pause},
             {"messages", messages},
             {"start_error", start_error_},
             {"label", label_}};
  auto snap = runner_ ? runner_->snapshot() : last_state_;
  if (!snap) return j;
  const auto& s = *snap;
  const int gpus = game::contracted_gpus(s.company);
  const int pending = game::advice_tally(s.inbox).num_pending;
  j["summary"] = {{"scenario", s.scenario_id},
                  {"seed", s.seed},
                  {"hour", s.hour},
                  {"finished", s.finished},
                  {"past_hours", s.past.num_hours()},
                  {"cash_usd", s.company.cash_usd},
                  {"contracts", s.company.contracts.size()},
                  {"gpus", gpus},
                  {"deployments", s.company.deployments.size()},
                  {"inbox", s.inbox.size()},
                  {"pending_advice", pending},
                  {"revenue_usd", s.ledger.totals().revenue_usd},
                  {"output_tokens", s.service.tokens.output_tokens},
                  {"commands_logged", s.log.size()}};
  j["state"] = game::player_view_json(s);  // never the hidden truths
  // ... until the game is over: then the debrief reveals them.
  if (runner_) {
    if (auto revealed = runner_->revealed_debrief(); revealed && !revealed->is_null() && !answer_key_hidden_)
      j["advisor_debrief"] = *revealed;
    if (auto f = shown_final_summary()) j["final_summary"] = game::to_json(*f);
  }
  return j;
}

}  // namespace tycoon::ui
