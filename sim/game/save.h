// Saved games: versioned JSON holding the resolved scenario and the whole state, with a checksum,
// written atomically (temp file in the same folder, then rename) so that a failed or interrupted
// save leaves the previous one intact. Loading checks format, version and checksum first and
// reports problems as SaveError, never by crashing.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/data/catalog.h"
#include "sim/game/game.h"

namespace tycoon::game {

inline constexpr int kSaveVersion = 1;
inline constexpr std::string_view kSaveFormat = "inference-tycoon-save";

class SaveError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What a save holds: enough to resume the game exactly.
struct SaveData {
  Scenario scenario;
  GameState state;
};

// "fnv1a64:<16 hex digits>" of `text`.
std::string checksum_of(std::string_view text);

// The save file's JSON text for a game.
std::string save_text(const Game& game);

// Test seam: called after the temp file is complete and before it replaces `path`; throwing from
// it simulates a crash at the worst moment.
using BeforeRenameHook = std::function<void(const std::filesystem::path& temp_path)>;

// Writes `game` to `path` atomically. Throws SaveError on failure; `path` then still holds
// whatever it held before, and no temp file is left behind.
void save_game(const Game& game, const std::filesystem::path& path, const BeforeRenameHook& before_rename = {});

// Reads a save. Throws SaveError: unreadable, not JSON, not a save, newer version, checksum
// mismatch, or contents that do not load (with the JSON pointer).
SaveData load_save(const std::filesystem::path& path, const data::Catalog& catalog);
SaveData load_save_text(std::string_view text, const std::string& name, const data::Catalog& catalog);

}  // namespace tycoon::game
