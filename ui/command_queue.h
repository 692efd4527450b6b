// What panels hand back each frame: game commands (replayable, applied by the game loop) and
// session requests (start, load, save, speed) handled by the app.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "sim/classroom/class_spec.h"
#include "sim/game/command.h"
#include "ui/game_runner.h"

namespace tycoon::ui {

struct StartGame {
  std::filesystem::path scenario;
  std::optional<std::uint64_t> seed;  // classroom: everyone with the same code plays the same world
  std::string label;                  // "classroom code ABC-123"
};
struct LoadGame {
  std::filesystem::path path;
};
struct SaveGame {
  std::filesystem::path path;
};
struct SetSpeed {
  Speed speed = Speed::kPaused;
};
struct ToMenu {};
struct QuitApp {};
// Class setup (an instructor's): the class's choices on a scenario; the app makes the class
// (sim/classroom's make_class checks it), writes the class file when `out` is set, and shows the
// class's browser link either way.
struct SetUpClass {
  std::filesystem::path scenario;
  classroom::ClassChoices choices;
  std::filesystem::path out;  // empty: only the link (the browser cannot write files)
};
// What class setup last did: a message ("class econ-101 written to …", or why not) and the class's
// browser link (without '?') when it worked.
struct ClassSetupOutcome {
  bool ok = false;
  std::string message;
  std::string link_query;
  std::string page_url;  // the browser build's address: the link is shown whole (empty: the desktop)
};
// Starts the class of a class file, or of a link's query string (exactly one is set).
struct StartClass {
  std::filesystem::path file;
  std::string link_query;
};
// Loads the JSON `tycoon class report` wrote beside its HTML, for the Class report screen.
struct LoadClassReport {
  std::filesystem::path path;
};
using SessionRequest =
    std::variant<StartGame, LoadGame, SaveGame, SetSpeed, ToMenu, QuitApp, SetUpClass, StartClass, LoadClassReport>;

struct CommandQueue {
  std::vector<game::Command> commands;
  std::vector<SessionRequest> requests;

  void push(game::Command c) { commands.push_back(std::move(c)); }
  template <typename T>
  void request(T r) {
    requests.emplace_back(std::in_place_type<T>, std::move(r));
  }
};

}  // namespace tycoon::ui
