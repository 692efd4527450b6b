// tycoon_game: the native game window (SFML + Dear ImGui + OpenGL 3).
//
//   tycoon_game                          start screen
//   tycoon_game --scenario tutorial      straight into a scenario
//   tycoon_game --script steps.txt --screenshot-dir out/ --dump-state out/state.json
//                                        scripted input for tests (see ui/automation.h)
//   tycoon_game --class-link 'http://host:8080/?code=CODE'
//                                        a student's class from a class server; the game is handed
//                                        in to it at the end and on demand (ui/desktop/class_hand_in.h)
//   tycoon_game --scenario X --speed 16 --frames 900 --frame-stats
//                                        frame-time statistics (median, p99, worst)
//   tycoon_game --script s --width 1024 --height 640 --check-text-fit
//                                        every screenshot frame is checked for clipped labels
//                                        (ui/text_fit.h); exit 5 when any is found
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>
#include <CLI/CLI.hpp>
#include <SFML/Graphics/Image.hpp>
#include <SFML/Graphics/Texture.hpp>
#include <SFML/OpenGL.hpp>
#include <SFML/Window.hpp>
#include <nlohmann/json.hpp>

#include "sim/advisor/advisor.h"
#include "sim/data/catalog.h"
#include "sim/game/rng.h"
#include "ui/app.h"
#include "ui/automation.h"
#include "ui/desktop/class_hand_in.h"
#include "ui/desktop/frame_stats.h"
#include "ui/desktop/sfml_imgui.h"
#include "ui/draw_hash.h"
#include "ui/text_fit.h"
#include "ui/theme.h"

namespace {

using tycoon::ui::InputEvent;
using Clock = std::chrono::steady_clock;
using tycoon::ui::desktop::frame_stats_json;
using tycoon::ui::desktop::FrameLog;
using tycoon::ui::desktop::percentiles;
using tycoon::ui::desktop::print_frame_stats;

struct Options {
  std::string data;
  std::vector<std::string> scenario_dirs;
  std::string scenario;
  std::string class_file;  // --class: a class file (tycoon class new)
  std::string class_link;  // --class-link: a class link's query string
  std::optional<std::uint64_t> seed;
  std::string load;
  std::string save_dir;
  std::string progress;
  std::string script;
  std::string screenshot_dir = ".";
  std::string screenshot;  // one screenshot after --frames, then exit
  std::string dump_state;
  std::string font;
  int width = 1280, height = 800;
  int frames = 0;               // stop after this many frames (0: run until closed)
  double max_frame_gap_ms = 0;  // fail (exit 4) when a frame interval exceeds it (0: no limit)
  int fps = 60;
  std::string speed;
  bool frame_stats = false;
  bool no_threads = false;
  bool no_auto_pause = false;
  bool check_text_fit = false;
  std::string text_fit_known;
  std::string antialias = "auto";
};

std::optional<sf::Keyboard::Key> key_of(const std::string& name) {
  static const std::map<std::string, sf::Keyboard::Key> kKeys = {
      {"Enter", sf::Keyboard::Enter},         {"Escape", sf::Keyboard::Escape}, {"Tab", sf::Keyboard::Tab},
      {"Backspace", sf::Keyboard::Backspace}, {"Space", sf::Keyboard::Space},   {"Delete", sf::Keyboard::Delete},
      {"Left", sf::Keyboard::Left},           {"Right", sf::Keyboard::Right},   {"Up", sf::Keyboard::Up},
      {"Down", sf::Keyboard::Down},           {"Home", sf::Keyboard::Home},     {"End", sf::Keyboard::End},
      {"Ctrl", sf::Keyboard::LControl},       {"Shift", sf::Keyboard::LShift}};
  if (auto it = kKeys.find(name); it != kKeys.end()) return it->second;
  if (name.size() == 1 && name[0] >= 'A' && name[0] <= 'Z')
    return static_cast<sf::Keyboard::Key>(sf::Keyboard::A + (name[0] - 'A'));
  return std::nullopt;
}

// A scripted event as the SFML event the window would have delivered.
std::optional<sf::Event> to_sfml(const InputEvent& in) {
  sf::Event e{};
  switch (in.kind) {
    case InputEvent::Kind::kMove:
      e.type = sf::Event::MouseMoved;
      e.mouseMove = {static_cast<int>(in.x), static_cast<int>(in.y)};
      return e;
    case InputEvent::Kind::kPress:
    case InputEvent::Kind::kRelease:
      e.type = in.kind == InputEvent::Kind::kPress ? sf::Event::MouseButtonPressed : sf::Event::MouseButtonReleased;
      e.mouseButton = {static_cast<sf::Mouse::Button>(in.button), static_cast<int>(in.x), static_cast<int>(in.y)};
      return e;
    case InputEvent::Kind::kWheel:
      e.type = sf::Event::MouseWheelScrolled;
      e.mouseWheelScroll = {sf::Mouse::VerticalWheel, in.y, 0, 0};
      return e;
    case InputEvent::Kind::kKeyDown:
    case InputEvent::Kind::kKeyUp: {
      auto k = key_of(in.key);
      if (!k) return std::nullopt;
      e.type = in.kind == InputEvent::Kind::kKeyDown ? sf::Event::KeyPressed : sf::Event::KeyReleased;
      e.key = {*k, false, false, false, false};
      return e;
    }
    case InputEvent::Kind::kText:
      e.type = sf::Event::TextEntered;
      e.text = {in.codepoint};
      return e;
  }
  return std::nullopt;
}

std::filesystem::path user_dir() {
  if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x) return std::filesystem::path(x) / "inference-tycoon";
  if (const char* h = std::getenv("HOME"); h && *h) return std::filesystem::path(h) / ".local/share/inference-tycoon";
  return "inference-tycoon";
}

bool save_screenshot(const sf::Window& window, const std::filesystem::path& path) {
  sf::Texture tex;
  const auto size = window.getSize();
  if (!tex.create(size.x, size.y)) return false;
  tex.update(window);
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  return tex.copyToImage().saveToFile(path.string());
}

// Options from the command line; nothing when parsed, else the exit code (--help, a bad option).
std::optional<int> parse_options(int argc, char** argv, Options& o) {
  CLI::App cli{"Inference Tycoon: the game (SFML + Dear ImGui)"};
  cli.add_option("--data", o.data, "Folder holding models/, hardware_db/ and scenarios/ (default: the source tree)");
  cli.add_option("--scenario-dir", o.scenario_dirs, "More scenario folders for the start screen (repeatable)");
  cli.add_option("--scenario", o.scenario, "Start this scenario (a file, id or name) instead of the start screen");
  cli.add_option("--seed", o.seed, "Seed for --scenario (classroom: same seed, same world)")
      ->check(CLI::Range(std::uint64_t{0}, tycoon::game::kMaxGameSeed));
  cli.add_option("--load", o.load, "Resume a saved game");
  cli.add_option("--class", o.class_file, "Start the class of this class file (tycoon class new)");
  cli.add_option("--class-link", o.class_link,
                 "Start the class of this link: a class server's student link (http://host:port/?code=CODE: the "
                 "game is handed in to that server) or a link query (class=...&scenario=...&seed=...&days=...)");
  cli.add_option("--save-dir", o.save_dir,
                 "Folder for saves and campaign progress (default: ~/.local/share/inference-tycoon)");
  cli.add_option("--progress", o.progress, "Campaign progress file (default: <save-dir>/progress.json)");
  cli.add_option("--script", o.script, "Scripted input, one step per line (ui/automation.h)");
  cli.add_option("--screenshot-dir", o.screenshot_dir, "Where the script's screenshots go");
  cli.add_option("--screenshot", o.screenshot, "Save one screenshot after --frames frames, then exit");
  cli.add_option("--dump-state", o.dump_state, "Write the state reached and what the UI showed (JSON) on exit");
  cli.add_option("--font", o.font, "TTF font (default: DejaVu Sans when installed)");
  cli.add_option("--width", o.width, "Window width")->check(CLI::Range(640, 7680));
  cli.add_option("--height", o.height, "Window height")->check(CLI::Range(480, 4320));
  cli.add_option("--frames", o.frames, "Quit after this many frames")->check(CLI::Range(0, 100000000));
  cli.add_option("--fps", o.fps, "Frame rate cap (0: uncapped)")->check(CLI::Range(0, 1000));
  cli.add_option("--speed", o.speed, "Initial game speed")->check(CLI::IsMember({"paused", "1x", "4x", "16x"}));
  cli.add_flag("--frame-stats", o.frame_stats, "Print frame-time statistics on exit");
  cli.add_option("--max-frame-gap-ms", o.max_frame_gap_ms,
                 "Exit 4 when any interval between frames was longer (the freeze test; 0: no limit)")
      ->check(CLI::Range(0.0, 1e6));
  cli.add_option("--antialias", o.antialias,
                 "Anti-aliased edges: on, off (a third fewer triangles), or auto (off when rasterizing is slow)")
      ->check(CLI::IsMember({"auto", "on", "off"}));
  cli.add_flag("--check-text-fit", o.check_text_fit,
               "Check every screenshot frame for labels cut, squeezed, overlapping or wrapped inside a number; "
               "list them and exit 5 when any is found");
  cli.add_option("--text-fit-known", o.text_fit_known,
                 "Problems the text-fit check tolerates (owned elsewhere), one 'kind|window part|text start' a line");
  cli.add_flag("--no-auto-pause", o.no_auto_pause,
               "Alarms (SLO collapse, cash, new advice, check results) do not pause the clock");
  cli.add_flag("--no-threads", o.no_threads,
               "Simulate inside frames as a browser without threads (forks and a tape, simulations in slices "
               "within a frame budget)");
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e);
  }
  return std::nullopt;
}

// The --script file, parsed into `script`; nothing when fine, else exit code 2 (unreadable, bad step).
std::optional<int> load_script(const std::string& path, std::optional<tycoon::ui::ScriptPlayer>& script) {
  if (path.empty()) return std::nullopt;
  std::ifstream in(path);
  if (!in) {
    std::cerr << "tycoon_game: cannot read script " << path << "\n";
    return 2;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    script = tycoon::ui::ScriptPlayer::parse(ss.str(), path);
  } catch (const std::exception& e) {
    std::cerr << "tycoon_game: " << e.what() << "\n";
    return 2;
  }
  return std::nullopt;
}

void set_antialias(bool on) {
  ImGui::GetStyle().AntiAliasedFill = on;
  ImGui::GetStyle().AntiAliasedLines = on;
}

// The ImGui context, style and fonts (--font, else DejaVu Sans when installed).
void setup_imgui(const Options& o) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // layout is fixed; nothing to remember
  tycoon::ui::theme::apply_style();
  set_antialias(o.antialias != "off");
  std::string font = o.font;
  std::string bold;
  if (font.empty() && std::filesystem::exists("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")) {
    font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
    if (std::filesystem::exists("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")) {
      bold = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf";
    }
  }
  tycoon::ui::theme::load_fonts(font.c_str(), bold.empty() ? nullptr : bold.c_str(), 15.0f);
}

// The app with the options' data, save folders and start (a save, a scenario, the start screen);
// false when it cannot be made (the reason printed).
bool make_app(const Options& o, std::optional<tycoon::ui::App>& app,
              std::optional<tycoon::ui::desktop::StudentSession>& student) {
  const bool server_link = tycoon::ui::desktop::is_student_link(o.class_link);
  tycoon::ui::AppOptions ao;
  ao.data_root = o.data.empty() ? tycoon::data::default_data_root() : std::filesystem::path(o.data);
  for (const auto& d : o.scenario_dirs) ao.scenario_dirs.emplace_back(d);
  const auto base = o.save_dir.empty() ? user_dir() : std::filesystem::path(o.save_dir);
  ao.save_dir = base / "saves";
  ao.progress_file = o.progress.empty() ? base / "progress.json" : std::filesystem::path(o.progress);
  ao.threaded = !o.no_threads;
  ao.auto_pause = !o.no_auto_pause;
  ao.advisor = tycoon::advisor::kPlayedGamesHaveAdvisor;
  if (server_link) ao.status_right_inset = tycoon::ui::desktop::kHandInWidth;
  try {
    app.emplace(ao);
  } catch (const std::exception& e) {
    std::cerr << "tycoon_game: " << e.what() << "\n";
    return false;
  }
  if (!o.load.empty()) {
    if (!app->load(o.load)) std::cerr << "tycoon_game: " << app->view().messages.back().text << "\n";
  } else if (!o.class_file.empty()) {
    if (!app->start_class_file(o.class_file)) std::cerr << "tycoon_game: " << app->view().messages.back().text << "\n";
  } else if (server_link) {
    std::string error;
    student = tycoon::ui::desktop::start_student_link(*app, o.class_link, error);
    if (!student) {
      std::cerr << "tycoon_game: " << error << "\n";
      return false;
    }
  } else if (!o.class_link.empty()) {
    if (!app->start_class_link(o.class_link)) std::cerr << "tycoon_game: " << app->view().messages.back().text << "\n";
  } else if (!o.scenario.empty()) {
    if (!app->start(o.scenario, o.seed, o.seed ? "seed " + std::to_string(*o.seed) : "")) {
      std::cerr << "tycoon_game: " << app->view().messages.back().text << "\n";
    }
  }
  if (!o.speed.empty()) {
    auto s = tycoon::parse_enum<tycoon::ui::Speed>(o.speed, tycoon::ui::kSpeedNames);
    if (s) app->set_speed(*s);
  }
  return true;
}

// The --check-text-fit report: screens checked, problems found, problems tolerated (--text-fit-known).
struct TextFitLog {
  nlohmann::json report = {
      {"checked", nlohmann::json::array()}, {"problems", nlohmann::json::array()}, {"known", nlohmann::json::array()}};
  std::vector<tycoon::ui::KnownFitProblem> known;

  explicit TextFitLog(const std::string& known_file) {
    if (known_file.empty()) return;
    std::ifstream in(known_file);
    std::stringstream ss;
    ss << in.rdbuf();
    if (!in) std::cerr << "tycoon_game: cannot read " << known_file << "\n";
    known = tycoon::ui::parse_known_fit_problems(ss.str());
  }

  // Checks the frame just built (screen `name`).
  void check(const std::string& name) {
    report["checked"].push_back(name);
    for (const auto& problem : tycoon::ui::check_text_fit()) {
      auto p = tycoon::ui::to_json({problem})[0];
      p["screen"] = name;
      if (const auto* k = tycoon::ui::find_known(known, problem)) {
        std::cerr << "tycoon_game: text-fit [" << name << "] known (" << k->line
                  << "): " << p["what"].get<std::string>() << "\n";
        report["known"].push_back(std::move(p));
      } else {
        std::cerr << "tycoon_game: text-fit [" << name << "] " << p["what"].get<std::string>() << "\n";
        report["problems"].push_back(std::move(p));
      }
    }
  }
};

// The frame loop: input (window and script), the app's frame, the text-fit check, rendering only
// frames that changed, screenshots, pacing to --fps. Returns the exit code so far (3: the script
// failed).
class FrameLoop {
 public:
  FrameLoop(const Options& o, sf::Window& window, tycoon::ui::desktop::SfmlImGui& glue, tycoon::ui::App& app,
            std::optional<tycoon::ui::ScriptPlayer>& script, TextFitLog& text_fit, FrameLog& log)
      : o_(o),
        window_(window),
        glue_(glue),
        app_(app),
        script_(script),
        text_fit_(text_fit),
        log_(log),
        antialias_auto_(o.antialias == "auto") {}

  // A student's class server session: its Hand in button is drawn every frame.
  void set_student(tycoon::ui::desktop::StudentSession* s) { student_ = s; }

  int run() {
    const auto period = std::chrono::duration<double>(o_.fps > 0 ? 1.0 / o_.fps : 0.0);
    auto last = Clock::now();
    const auto started = last;
    while (window_.isOpen() && !quit_) {
      const auto t0 = Clock::now();
      const double dt = std::chrono::duration<double>(t0 - last).count();
      if (frame_ > 1 && !last_frame_shot_) log_.interval_ms.push_back(dt * 1e3);
      last = t0;
      std::optional<std::string> shot = read_input();
      glue_.new_frame(static_cast<float>(dt));
      ImGui_ImplOpenGL3_NewFrame();
      ImGui::NewFrame();
      app_.frame(frame_ == 0 ? 1.0 / 60 : dt);
      if (student_) tycoon::ui::desktop::draw_hand_in(*student_, app_.tags());
      if (app_.quit_requested()) quit_ = true;
      ImGui::Render();
      shot = hold_while_settling(std::move(shot));
      const auto t_ui = Clock::now();
      const bool shot_frame = shot || (!o_.screenshot.empty() && o_.frames > 0 && frame_ + 1 >= o_.frames);
      if (o_.check_text_fit && shot_frame) {
        text_fit_.check(shot ? *shot : std::filesystem::path(o_.screenshot).stem().string());
      }
      const bool rendered = render_if_changed(shot_frame);
      record_times(t0, t_ui, rendered, shot.has_value());
      ++frame_;
      save_screenshots(shot);
      if (rendered) window_.display();
      glue_.end_frame();
      last_frame_shot_ = shot.has_value();
      // Pace to --fps.
      const auto next = t0 + std::chrono::duration_cast<Clock::duration>(period);
      if (const auto now = Clock::now(); now < next) {
        sf::sleep(sf::microseconds(std::chrono::duration_cast<std::chrono::microseconds>(next - now).count()));
      }
      if (o_.frames > 0 && frame_ >= o_.frames) quit_ = true;
    }
    if (script_ && !script_->done() && exit_code_ == 0) {
      std::cerr << "tycoon_game: script did not finish: stopped at " << script_->current() << "\n";
      exit_code_ = 3;
    }
    log_.frames = frame_;
    log_.wall_s = std::chrono::duration<double>(Clock::now() - started).count();
    return exit_code_;
  }

 private:
  // The window's events, then the script's; the screenshot the script asks for this frame.
  std::optional<std::string> read_input() {
    sf::Event e;
    while (window_.pollEvent(e)) {
      if (e.type == sf::Event::Closed) quit_ = true;
      if (e.type == sf::Event::Resized)
        glViewport(0, 0, static_cast<GLsizei>(e.size.width), static_cast<GLsizei>(e.size.height));
      if (e.type == sf::Event::Resized || e.type == sf::Event::GainedFocus) force_render_ = true;
      glue_.process(e);
    }
    std::optional<std::string> shot;
    if (held_shot_) return std::exchange(held_shot_, std::nullopt);
    if (script_) {
      tycoon::ui::ScriptContext ctx{app_.tags(), app_.hour(), app_.busy()};
      auto actions = script_->next(ctx);
      for (const auto& ev : actions.events) {
        if (auto se = to_sfml(ev)) glue_.process(*se);
      }
      shot = actions.screenshot;
      if (actions.quit) quit_ = true;
      if (script_->failed()) {
        std::cerr << "tycoon_game: script failed: " << script_->error() << "\n";
        exit_code_ = 3;
        shot = "failure";
        quit_ = true;
      }
    }
    return shot;
  }

  // A script's screenshot waits (and the script with it) while the frame just built is still
  // laying itself out (a new table sizing its columns), at most kMaxHeldFrames frames: the
  // picture and its text-fit check are of the layout a player sees, not of its first frame.
  std::optional<std::string> hold_while_settling(std::optional<std::string> shot) {
    static constexpr int kMaxHeldFrames = 8;
    if (!shot || *shot == "failure") return shot;
    // The last frame (quit asked, window closed, --frames reached) takes the picture as it is.
    const bool last = quit_ || (o_.frames > 0 && frame_ + 1 >= o_.frames);
    if (!last && held_frames_ < kMaxHeldFrames && tycoon::ui::layout_settling()) {
      ++held_frames_;
      ++log_.screenshot_frames_held;
      held_shot_ = std::move(shot);
      return std::nullopt;
    }
    held_frames_ = 0;
    return shot;
  }

  // Rasterize and present only a frame that differs from the one on screen (or once a
  // second, and whenever a screenshot is due): software GL spends nearly all of a frame
  // there, and a paused game or an idle mouse draws the same pixels again.
  bool render_if_changed(bool screenshot_due) {
    const std::uint64_t hash = tycoon::ui::draw_data_hash(*ImGui::GetDrawData());
    const bool render =
        force_render_ || screenshot_due || hash != shown_hash_ || frames_since_render_ >= std::max(1, o_.fps);
    if (!render) {
      ++frames_since_render_;
      return false;
    }
    const auto size = window_.getSize();
    glViewport(0, 0, static_cast<GLsizei>(size.x), static_cast<GLsizei>(size.y));
    const ImVec4 bg = tycoon::ui::theme::vec4(tycoon::ui::theme::kBackground);
    glClearColor(bg.x, bg.y, bg.z, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    glFinish();  // count the rasterizing in this frame's time
    shown_hash_ = hash;
    force_render_ = false;
    frames_since_render_ = 0;
    ++log_.renders;
    return true;
  }

  // The frame's own work; screenshots (PNG encoding) and the first frame (font atlas,
  // shaders) are reported apart.
  void record_times(Clock::time_point t0, Clock::time_point t_ui, bool rendered, bool shot) {
    const double work = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    if (frame_ == 0) {
      log_.first_frame_ms = work;
      return;
    }
    if (shot || !o_.screenshot.empty()) return;
    log_.work_ms.push_back(work);
    log_.ui_ms.push_back(std::chrono::duration<double, std::milli>(t_ui - t0).count());
    if (rendered) {
      log_.gl_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t_ui).count());
      log_.triangles.push_back(ImGui::GetDrawData()->TotalIdxCount / 3.0);
    }
    // Auto quality: when rasterizing takes most of a 60 Hz frame, drop anti-aliasing (a
    // software rasterizer pays per triangle, and AA edges add a third of them).
    if (antialias_auto_ && log_.gl_ms.size() >= 20) {
      auto recent = std::vector<double>(log_.gl_ms.end() - 20, log_.gl_ms.end());
      if (percentiles(recent).median > 10.0) {
        set_antialias(false);
        antialias_auto_ = false;
        log_.antialias_dropped_at = frame_;
      }
    }
  }

  // --screenshot after --frames, and the script's screenshot of this frame.
  void save_screenshots(const std::optional<std::string>& shot) {
    if (!o_.screenshot.empty() && o_.frames > 0 && frame_ >= o_.frames) {
      if (!save_screenshot(window_, o_.screenshot)) std::cerr << "tycoon_game: cannot save " << o_.screenshot << "\n";
    }
    if (shot) {
      auto path = std::filesystem::path(o_.screenshot_dir) / (*shot + ".png");
      if (!save_screenshot(window_, path)) std::cerr << "tycoon_game: cannot save " << path << "\n";
    }
  }

  const Options& o_;
  sf::Window& window_;
  tycoon::ui::desktop::SfmlImGui& glue_;
  tycoon::ui::App& app_;
  std::optional<tycoon::ui::ScriptPlayer>& script_;
  TextFitLog& text_fit_;
  FrameLog& log_;
  bool antialias_auto_;
  bool last_frame_shot_ = false;
  std::optional<std::string> held_shot_;  // a script screenshot waiting for the layout to settle
  int held_frames_ = 0;
  std::uint64_t shown_hash_ = 0;  // the frame on screen
  int frames_since_render_ = 0;
  bool force_render_ = true;
  tycoon::ui::desktop::StudentSession* student_ = nullptr;
  int frame_ = 0;
  bool quit_ = false;
  int exit_code_ = 0;
};

// --dump-state: the app's state and what it showed, the frame statistics, the text-fit report
// and how the script went.
void write_dump(const Options& o, tycoon::ui::App& app, const nlohmann::json& stats, const TextFitLog& text_fit,
                const std::optional<tycoon::ui::ScriptPlayer>& script) {
  nlohmann::json j = app.dump();
  j["frame_stats"] = stats;
  if (o.check_text_fit) j["text_fit"] = text_fit.report;
  j["script"] = {{"ran", static_cast<bool>(script)},
                 {"ok", script ? !script->failed() && script->done() : true},
                 {"error", script ? script->error() : ""},
                 {"steps_run", script ? script->steps_run() : 0}};
  std::filesystem::path p(o.dump_state);
  std::error_code ec;
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
  std::ofstream out(p);
  out << j.dump(1) << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (auto code = parse_options(argc, argv, o)) return *code;
  std::optional<tycoon::ui::ScriptPlayer> script;
  if (auto code = load_script(o.script, script)) return *code;

  sf::ContextSettings gl(24, 8, 0, 3, 0);
  sf::Window window(sf::VideoMode(static_cast<unsigned>(o.width), static_cast<unsigned>(o.height)), "Inference Tycoon",
                    sf::Style::Default, gl);
  window.setVerticalSyncEnabled(false);
  window.setFramerateLimit(0);  // paced below, also on frames that present nothing
  window.setActive(true);
  setup_imgui(o);
  tycoon::ui::desktop::SfmlImGui glue(window);
  ImGui_ImplOpenGL3_Init("#version 130");

  int exit_code = 0;
  {
    std::optional<tycoon::ui::App> app;
    std::optional<tycoon::ui::desktop::StudentSession> student;
    if (!make_app(o, app, student)) {
      ImGui_ImplOpenGL3_Shutdown();
      ImGui::DestroyContext();
      return 1;
    }
    TextFitLog text_fit(o.text_fit_known);
    FrameLog log;
    FrameLoop loop(o, window, glue, *app, script, text_fit, log);
    if (student) loop.set_student(&*student);
    exit_code = loop.run();
    if (student) {  // a hand-in under way is not dropped at exit, nor the end's still to go
      for (int i = 0; i < 2; ++i) {
        if (i == 1) student->client->poll();
        if (!student->client->busy()) continue;
        student->client->wait();
        std::cout << "tycoon_game: " << student->client->message() << "\n";
      }
    }

    const nlohmann::json stats = frame_stats_json(log, *app);
    if (o.frame_stats) print_frame_stats(log, stats);
    if (o.check_text_fit) {
      std::printf("text-fit: %zu screen(s) checked at %dx%d, %zu problem(s), %zu known and tolerated\n",
                  text_fit.report["checked"].size(), o.width, o.height, text_fit.report["problems"].size(),
                  text_fit.report["known"].size());
      if (!text_fit.report["problems"].empty() && exit_code == 0) exit_code = 5;
    }
    const double max_gap_ms = percentiles(log.interval_ms).max;
    if (o.max_frame_gap_ms > 0 && max_gap_ms > o.max_frame_gap_ms) {
      std::fprintf(stderr, "tycoon_game: a frame gap of %.1f ms exceeds --max-frame-gap-ms %.1f\n", max_gap_ms,
                   o.max_frame_gap_ms);
      if (exit_code == 0) exit_code = 4;
    }
    if (!o.dump_state.empty()) write_dump(o, *app, stats, text_fit, script);
  }
  ImGui_ImplOpenGL3_Shutdown();
  ImGui::DestroyContext();
  window.close();
  return exit_code;
}
