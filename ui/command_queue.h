// What panels hand back each frame: game commands (replayable, applied by the game loop) and
// session requests (start, load, save, speed) handled by the app.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <variant>
#include <vector>

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
using SessionRequest = std::variant<StartGame, LoadGame, SaveGame, SetSpeed, ToMenu, QuitApp>;

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
