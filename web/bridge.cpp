// The JavaScript bridge: C functions exported to the page (Module.ccall / cwrap), each taking
// and returning UTF-8 strings, JSON for anything structured. A returned string stays valid until
// the next call of the same function (ccall copies it at once).
//
//   tycoon_state()                   {"ready", "screen", "hour", "busy", "speed", "summary", "state", "ui"}
//   tycoon_widgets()                 {"<tag>": {"x0","y0","x1","y1","cx","cy"}} in CSS pixels
//   tycoon_command(json)             {"ok", "message"} — see apply_command() for the types
//   tycoon_run(scenario, seed, log, advisor, save_hours)  summary JSON of a headless game (the
//                                    determinism check; advisor != 0 attaches the advisor as `tycoon
//                                    run --advisor`); save_hours "[h, ...]" saves and loads the game
//                                    at those hours and adds "final_save", the end's save file text
//   tycoon_stats() / _reset()        frame and simulation timing
//   tycoon_import(name, text)        a save or scenario file from the page, validated, then played;
//                                    a class file starts its class; a class report shows on the
//                                    start screen
//   tycoon_export(name)              {"ok", "name", "text"}: a save ("" = the newest)
//   tycoon_set_page_url(url)         the page's address: class links are shown whole
//   tycoon_current_game(with_text, student)  {"ok", "hour", "end_hour", "finished", "scenario", "save_name",
//                                    "text"}: the game
//                                    on screen and (with_text != 0) its save file's text, for a
//                                    class server's hand-in; {"ok": false} on the start screen
//   tycoon_hand_in_due()             1 when the class game's end is to be handed in now
//                                    (classroom::EndOfGameHandIn), else 0
//   tycoon_hand_in_sent(finished)    a hand-in of the game on screen was sent
//   tycoon_saves()                   ["name.json", ...], newest first
//   tycoon_text_fit()                [{"kind", "text", "window", "rect", "what"}]: labels of the last
//                                    frame cut, squeezed, overlapping or wrapped inside a number
#include <emscripten.h>

#include <charconv>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <system_error>

#include <nlohmann/json.hpp>

#include "sim/advisor/advisor.h"
#include "sim/classroom/class_report.h"
#include "sim/classroom/class_spec.h"
#include "sim/classroom/hand_in.h"
#include "sim/core/version.h"
#include "sim/data/catalog.h"
#include "sim/data/json_reader.h"
#include "sim/game/command.h"
#include "sim/game/game.h"
#include "sim/game/save.h"
#include "sim/game/summary.h"
#include "ui/library.h"
#include "ui/text_fit.h"
#include "web/web_shell.h"

namespace tycoon::web {

namespace {

using nlohmann::json;

// Largest file the page may import.
constexpr std::size_t kMaxImportBytes = 16u << 20;

const char* hold(std::string& slot, std::string text) {
  slot = std::move(text);
  return slot.c_str();
}

// A seed as the page may send it: decimal digits only, within uint64 (CLI: --seed).
std::optional<std::uint64_t> parse_seed(std::string_view text) {
  std::uint64_t v = 0;
  if (text.empty() || text.size() > 20) return std::nullopt;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

json ok(std::string message) { return {{"ok", true}, {"message", std::move(message)}}; }
json refused(std::string error) { return {{"ok", false}, {"error", std::move(error)}}; }

std::string last_message(const ui::App& app) {
  const auto& m = app.view().messages;
  return m.empty() ? std::string() : m.back().text;
}

// A catalog of our own for headless runs, loaded on first use.
const data::Catalog& run_catalog() {
  static std::optional<data::Catalog> catalog;
  if (!catalog) catalog.emplace(data::load_catalog(kDataRoot));
  return *catalog;
}

bool write_file(const std::filesystem::path& path, std::string_view text) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return static_cast<bool>(out);
}

// `dir / name`, or "<stem>-2.json", "<stem>-3.json", ... when that exists: a path no file has.
std::optional<std::filesystem::path> unused_path(const std::filesystem::path& dir, const std::string& name) {
  std::error_code ec;
  const auto first = dir / name;
  if (!std::filesystem::exists(first, ec)) return first;
  const std::string stem = std::filesystem::path(name).stem().string();
  for (int i = 2; i < 1000; ++i) {
    const auto p = dir / (stem + "-" + std::to_string(i) + ".json");
    if (!std::filesystem::exists(p, ec)) return p;
  }
  return std::nullopt;
}

// {"type": "start", "scenario": id|name|path, "seed": "123" (optional), "label": "..."}
// {"type": "load", "save": "name.json"}
// {"type": "speed", "speed": "paused"|"1x"|"4x"|"16x"}
// {"type": "auto_pause", "on": true|false}   alarms pause the clock (default on)
// any game command of sim/game/command.h: {"type": "rent_gpus", "chip": "h200", ...}
json apply_command(ui::App& app, const json& j) {
  if (!j.is_object() || !j.contains("type") || !j["type"].is_string()) return refused("a command is {\"type\": ...}");
  const std::string type = j["type"];
  if (type == "start") {
    if (!j.contains("scenario") || !j["scenario"].is_string()) return refused("start needs \"scenario\"");
    std::optional<std::uint64_t> seed;
    if (j.contains("seed")) {
      const auto& s = j["seed"];
      if (s.is_string()) {
        seed = parse_seed(s.get<std::string>());
        if (!seed) return refused("seed must be a non-negative integer or a string of digits");
      } else if (s.is_number_unsigned()) {
        seed = s.get<std::uint64_t>();
      } else {
        return refused("seed must be a non-negative integer or a string of digits");
      }
    }
    const std::string label = j.value("label", seed ? "seed " + std::to_string(*seed) : std::string());
    if (!app.start(j["scenario"].get<std::string>(), seed, label)) return refused(last_message(app));
    return ok("started");
  }
  if (type == "load") {
    const std::string name = j.value("save", "");
    if (!safe_file_name(name)) return refused("load needs \"save\": a file name from tycoon_saves()");
    if (!app.load(kSaveDir / name)) return refused(last_message(app));
    return ok("loaded " + name);
  }
  if (type == "auto_pause") {
    if (!j.contains("on") || !j["on"].is_boolean()) return refused("auto_pause needs \"on\": true or false");
    app.set_auto_pause(j["on"].get<bool>());
    return ok(j["on"].get<bool>() ? "alarms pause the clock" : "alarms no longer pause the clock");
  }
  if (type == "speed") {
    auto s = parse_enum<ui::Speed>(j.value("speed", ""), ui::kSpeedNames);
    if (!s) return refused("speed is one of paused, 1x, 4x, 16x");
    app.set_speed(*s);
    return ok("speed " + j["speed"].get<std::string>());
  }
  data::ObjectReader in(j, "command", "");
  game::Command c = game::command_from_json(in);
  in.finish();
  // Applied at the next hour boundary like a click's command; its outcome becomes a UI message.
  if (!app.submit(std::move(c))) return refused("no game is running");
  return ok("submitted " + type);
}

}  // namespace

}  // namespace tycoon::web

using namespace tycoon;
using namespace tycoon::web;

namespace {
// The class game's end, handed in once (classroom::EndOfGameHandIn).
tycoon::classroom::EndOfGameHandIn& end_of_game_hand_in() {
  static tycoon::classroom::EndOfGameHandIn rule;
  return rule;
}
}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE const char* tycoon_state() {
  static std::string out;
  auto& sh = shell();
  if (!sh.app) return hold(out, json{{"ready", false}}.dump());
  json j = sh.app->dump();
  j["ready"] = true;
  j["hour"] = sh.app->hour();
  j["busy"] = sh.app->busy();
  return hold(out, j.dump());
}

EMSCRIPTEN_KEEPALIVE const char* tycoon_widgets() {
  static std::string out;
  auto& sh = shell();
  json j = json::object();
  if (sh.app) {
    for (const auto& [name, r] : sh.app->tags().all()) {
      j[name] = {{"x0", r.x0}, {"y0", r.y0}, {"x1", r.x1}, {"y1", r.y1}, {"cx", r.cx()}, {"cy", r.cy()}};
    }
  }
  return hold(out, j.dump());
}

EMSCRIPTEN_KEEPALIVE const char* tycoon_command(const char* text) {
  static std::string out;
  auto& sh = shell();
  if (!sh.app) return hold(out, refused("the game is still loading").dump());
  try {
    return hold(out, apply_command(*sh.app, data::parse_json_text(text ? text : "", "command")).dump());
  } catch (const std::exception& e) {
    return hold(out, refused(e.what()).dump());
  }
}

EMSCRIPTEN_KEEPALIVE const char* tycoon_run(const char* scenario, const char* seed, const char* commands,
                                            int with_advisor, const char* save_hours) {
  static std::string out;
  try {
    const auto& catalog = run_catalog();
    std::string sc = scenario ? scenario : "";
    std::filesystem::path path;
    if (!sc.empty() && sc.front() == '{') {
      path = kImportDir / "run-scenario.json";
      if (!write_file(path, sc)) throw std::runtime_error("cannot write " + path.string());
    } else {
      path = game::find_scenario(sc, kDataRoot);
    }
    game::GameOptions opts;
    if (seed && *seed) {
      opts.seed = parse_seed(seed);
      if (!opts.seed) throw std::invalid_argument(std::string("not a seed: '") + seed + "'");
    }
    auto game_ptr = std::make_unique<game::Game>(game::load_scenario(path, catalog), catalog, opts);
    std::shared_ptr<advisor::Chien> chien;
    auto attach_advisor = [&](game::Game& g) {
      if (!with_advisor) return;
      chien = advisor::default_advisor(catalog, g.scenario(), kDataRoot);
      g.set_advisor(chien);
    };
    attach_advisor(*game_ptr);
    const std::string log = commands ? commands : "";
    const auto cmds = log.empty() ? std::vector<game::LoggedCommand>{} : game::parse_command_log(log, "commands.jsonl");
    // Save + load at each of these hours (a JSON array; "" = none): the game continues from the
    // loaded save with a fresh advisor, as a player's browser tab does after a reload.
    const std::string cuts_text = save_hours ? save_hours : "";
    std::size_t refused = 0, next = 0;
    if (!cuts_text.empty()) {
      const json cuts = data::parse_json_text(cuts_text, "save_hours");
      if (!cuts.is_array()) throw std::invalid_argument("save_hours: expected an array of game hours");
      for (const auto& h : cuts) {
        if (!h.is_number_integer()) throw std::invalid_argument("save_hours: expected whole game hours");
        refused += game::replay_until(*game_ptr, cmds, next, h.get<std::int64_t>()).size();
        if (game_ptr->finished()) break;
        auto saved = game::load_save_text(game::save_text(*game_ptr), "cut.save", catalog);
        game_ptr = std::make_unique<game::Game>(std::move(saved.scenario), std::move(saved.state), catalog);
        attach_advisor(*game_ptr);
      }
    }
    game::Game& g = *game_ptr;
    refused += game::replay(g, cmds, next).size();
    const auto cf = game::end_of_run_counterfactuals(g, catalog);
    json summary = advisor::run_summary_json(g, chien != nullptr, refused, cf ? &*cf : nullptr);
    summary[core::kWrittenByKey] = core::build_json();  // as `tycoon run --json` writes it
    if (!cuts_text.empty()) summary["final_save"] = game::save_text(g);
    return hold(out, summary.dump());
  } catch (const std::exception& e) {
    return hold(out, json{{"error", e.what()}}.dump());
  }
}

EMSCRIPTEN_KEEPALIVE const char* tycoon_stats() {
  static std::string out;
  auto& sh = shell();
  json j;
  j["frames"] = sh.frames.work_ms.size();
  j["frame_work_ms"] = percentiles_json(sh.frames.work_ms);
  j["frame_interval_ms"] = percentiles_json(sh.frames.interval_ms);
  j["canvas"] = {{"css_width", sh.css_width}, {"css_height", sh.css_height}, {"pixel_ratio", sh.pixel_ratio}};
  if (sh.app) {
    if (auto rs = sh.app->runner_stats()) {
      // The same window as the frame statistics: since the last reset (a new game restarts them).
      const std::size_t from = std::min(sh.step_index_at_reset, rs->step_ms.size());
      j["game_hours_simulated"] = rs->hours_simulated;
      j["sim_step_ms"] = percentiles_json(
          std::vector<double>(rs->step_ms.begin() + static_cast<std::ptrdiff_t>(from), rs->step_ms.end()));
      j["runner"] = {{"simulations_sliced", rs->simulations_sliced},
                     {"forks", rs->forks},
                     {"tick_ms_max", rs->tick_ms_max},
                     {"tick_max_what", rs->tick_max_what}};
    }
  }
  j["startup_ms"] = {{"main", sh.main_at_ms},
                     {"window", sh.window_at_ms},
                     {"fonts_and_renderer", sh.fonts_at_ms},
                     {"app_and_catalog", sh.app_at_ms},
                     {"first_frame", sh.first_frame_at_ms}};
  if (sh.storage) j["storage_error"] = sh.storage->last_error();
  return hold(out, j.dump());
}

EMSCRIPTEN_KEEPALIVE void tycoon_stats_reset() {
  auto& sh = shell();
  sh.frames.clear();
  sh.step_index_at_reset = 0;
  if (sh.app) {
    if (auto rs = sh.app->runner_stats()) sh.step_index_at_reset = rs->step_ms.size();
  }
}

EMSCRIPTEN_KEEPALIVE const char* tycoon_import(const char* name_in, const char* text_in) {
  static std::string out;
  auto& sh = shell();
  try {
    if (!sh.app) return hold(out, refused("the game is still loading").dump());
    const std::string text = text_in ? text_in : "";
    if (text.size() > kMaxImportBytes) return hold(out, refused("the file is larger than 16 MB").dump());
    std::string name = name_in ? name_in : "";
    if (name.size() < 5 || name.substr(name.size() - 5) != ".json") name += ".json";
    for (char& c : name) {
      const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                        c == '_' || c == '-';
      if (!keep) c = '_';
    }
    if (name.front() == '.') name.front() = '_';
    if (name.size() > 90) name = name.substr(name.size() - 90);  // room for a "-2" suffix within 96
    json j;
    try {
      j = data::parse_json_text(text, name);  // depth-limited, duplicate keys refused
    } catch (const data::LoadError& e) {
      return hold(out, refused(std::string("not JSON the game can read: ") + e.what()).dump());
    }
    if (!j.is_object()) return hold(out, refused(name + ": expected a JSON object").dump());
    const bool is_save = j.contains("format") && j["format"] == std::string(game::kSaveFormat);
    if (is_save) {
      // Checked whole in memory first (format, version, checksum, contents, meaning): a bad file
      // never reaches the save folder. A good one gets a name no save has, so an import can
      // neither replace nor (should the game still refuse it) remove a save the player had.
      try {
        game::load_save_text(text, name, run_catalog());
      } catch (const game::SaveError& e) {
        return hold(out, refused(e.what()).dump());
      }
      const auto path = unused_path(kSaveDir, name);
      if (!path) return hold(out, refused("too many saves named like " + name).dump());
      if (!write_file(*path, text)) return hold(out, refused("cannot write " + path->string()).dump());
      if (!sh.app->load(*path)) {
        std::error_code ec;
        std::filesystem::remove(*path, ec);  // the file this import created, nothing else
        return hold(out, refused(last_message(*sh.app)).dump());
      }
      return hold(out, json{{"ok", true}, {"kind", "save"}, {"name", path->filename().string()}}.dump());
    }
    const std::string format = j.contains("format") && j["format"].is_string() ? j["format"].get<std::string>() : "";
    if (format == classroom::kClassReportFormat || format == classroom::kClassFormat) {
      // A class report (shown on the start screen's Class report) or a class file (its game
      // starts): read by the same loaders as the desktop's, from the import folder.
      const auto path = kImportDir / name;
      if (!write_file(path, text)) return hold(out, refused("cannot write " + path.string()).dump());
      const bool report = format == classroom::kClassReportFormat;
      const bool ok = report ? sh.app->load_class_report(path) : sh.app->start_class_file(path);
      std::error_code ec;
      std::filesystem::remove(path, ec);
      if (!ok) return hold(out, refused(last_message(*sh.app)).dump());
      return hold(out, json{{"ok", true}, {"kind", report ? "class report" : "class"}, {"name", name}}.dump());
    }
    try {
      game::scenario_from_json(j, name, run_catalog());
    } catch (const data::LoadError& e) {
      return hold(out, refused(e.what()).dump());
    }
    const auto path = kImportDir / name;
    if (!write_file(path, text)) return hold(out, refused("cannot write " + path.string()).dump());
    if (!sh.app->start(path.string(), std::nullopt, "imported " + name)) {
      std::error_code ec;
      std::filesystem::remove(path, ec);
      return hold(out, refused(last_message(*sh.app)).dump());
    }
    return hold(out, json{{"ok", true}, {"kind", "scenario"}, {"name", name}}.dump());
  } catch (const std::exception& e) {
    return hold(out, refused(e.what()).dump());
  }
}

EMSCRIPTEN_KEEPALIVE const char* tycoon_export(const char* name_in) {
  static std::string out;
  std::string name = name_in ? name_in : "";
  if (name.empty()) {
    auto saves = ui::list_saves(kSaveDir);
    if (saves.empty()) return hold(out, refused("no save yet: save the game first (top bar, Save)").dump());
    name = saves.front().filename().string();
  }
  if (!safe_file_name(name)) return hold(out, refused("not a save name: " + name).dump());
  std::string text = read_text(kSaveDir / name);
  if (text.empty()) return hold(out, refused("no save named " + name).dump());
  return hold(out, json{{"ok", true}, {"name", name}, {"text", std::move(text)}}.dump());
}

// The page's address (location's origin and path): class links are shown whole.
EMSCRIPTEN_KEEPALIVE void tycoon_set_page_url(const char* url) {
  auto& sh = shell();
  if (sh.app && url) sh.app->set_page_url(url);
}

EMSCRIPTEN_KEEPALIVE const char* tycoon_current_game(int with_text, const char* student) {
  static std::string out;
  auto& sh = shell();
  if (!sh.app) return hold(out, refused("the game is still loading").dump());
  if (student && *student) sh.app->set_student(student);
  try {
    const auto g = sh.app->current_game(with_text != 0);
    if (!g) return hold(out, refused("no game is being played: start the class's game first").dump());
    json j = {{"ok", true},
              {"hour", g->hour},
              {"end_hour", g->end_hour},
              {"finished", g->finished},
              {"scenario", g->scenario_id},
              {"save_name", g->save_name}};
    if (with_text) j["text"] = g->save_text;
    return hold(out, j.dump());
  } catch (const std::exception& e) {
    return hold(out, refused(std::string("the game could not be saved: ") + e.what()).dump());
  }
}

// The class game's end, handed in once: the page polls tycoon_hand_in_due and reports each
// hand-in it sends with tycoon_hand_in_sent.
EMSCRIPTEN_KEEPALIVE int tycoon_hand_in_due() {
  auto& sh = shell();
  if (!sh.app) return 0;
  try {
    const auto g = sh.app->current_game(false);
    return end_of_game_hand_in().due(g ? std::optional<bool>(g->finished) : std::nullopt) ? 1 : 0;
  } catch (const std::exception&) {
    return 0;
  }
}

EMSCRIPTEN_KEEPALIVE void tycoon_hand_in_sent(int finished) { end_of_game_hand_in().sent(finished != 0); }

// Between two frames (where the page's calls run) the last frame's draw data is still whole.
EMSCRIPTEN_KEEPALIVE const char* tycoon_text_fit() {
  static std::string out;
  return hold(out, ui::to_json(ui::check_text_fit()).dump());
}

EMSCRIPTEN_KEEPALIVE const char* tycoon_saves() {
  static std::string out;
  json j = json::array();
  for (const auto& p : ui::list_saves(kSaveDir)) j.push_back(p.filename().string());
  return hold(out, j.dump());
}

}  // extern "C"
