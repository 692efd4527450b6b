// Saved games: versioned JSON holding the resolved scenario and the whole state, with a checksum,
// written atomically (sim/core/atomic_file.h: a fresh temp file in the same folder, fsync, rename,
// fsync of the folder) so that a failed or interrupted save leaves the previous one intact.
// Loading checks format, version and checksum, then the contents (types, then meaning: known
// ids, prices >= 0, hours within the scenario, cash within bounds) and reports problems as
// SaveError naming the file and JSON pointer, never by crashing.
//
// Hidden truths (the advisor's memory with every proposal's true effect, and the true effect in
// each inbox item) are not written as readable JSON: they travel in "/payload/sealed", their JSON
// text XORed with a keystream from the game's seed, in hex. That is obfuscation, not security —
// the key derivation is in this open source and the player holds the file — but a player who opens
// the save, or a client that shows it, reads no truth by accident. player_view_json drops the
// same fields from every live view.
//
// The checksum (FNV-1a 64 of the payload) catches damage — a truncated, torn or hand-edited
// file — not tampering: anyone can recompute it. What protects the game from a tampered save is
// the validation that follows it, which refuses values the game could never have produced.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/data/catalog.h"
#include "sim/game/game.h"

namespace tycoon::game {

// Version 2: the advisor's memory is saved (GameState::advisor), and the hidden truths are sealed.
inline constexpr int kSaveVersion = 2;
inline constexpr std::string_view kSaveFormat = "inference-tycoon-save";

class SaveError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Writing a save failed (full disk, read-only folder): not bad input, and the previous save is intact.
class SaveWriteError : public SaveError {
 public:
  using SaveError::SaveError;
};

// Largest |cash| a save may hold: far beyond any game (the richest scenario starts with $500k),
// far below where doubles stop counting cents.
inline constexpr double kMaxSaveCashUsd = 1e13;

// What a save holds: enough to resume the game exactly.
struct SaveData {
  Scenario scenario;
  GameState state;
};

// Sets a saved game to last `days` game days (days > 0), as a new game given GameOptions::days
// would (set_days(Scenario&) on its scenario), and moves its end there: GameState::end_hour =
// days × 24, and the game is finished when its company is bankrupt or its hour has reached the
// new end (a save shortened to before its hour resumes finished).
void set_days(SaveData& save, int days);

// `text` XORed with the keystream of `seed` (the game's), as lowercase hex; unseal reverses it and
// returns nullopt for text that is not even-length hex.
std::string seal(std::string_view text, std::uint64_t seed);
std::optional<std::string> unseal(std::string_view hex, std::uint64_t seed);

// "fnv1a64:<16 hex digits>" of `text`.
std::string checksum_of(std::string_view text);

// The save file's JSON text for a game.
std::string save_text(const Game& game);
// The file name a save is offered under: a class game's by class, student (where known) and hour
// ("econ-101-ada-lovelace-h30.json"), so that one student's save never takes another's name;
// any other game's by scenario, day and hour ("prices-only-day2-06h.json"). Names are safe file
// names: lowercase letters, digits and '-'.
std::string save_file_name(std::string_view scenario_id, std::int64_t hour, std::string_view class_id = {},
                           std::string_view student = {});
// The file a game in progress is saved to when its player leaves it for the start screen: one per
// scenario ("autosave-prices-only.json"), one per class and student for a class game, so that two
// students of a class on one browser never overwrite each other's.
std::string autosave_file_name(std::string_view scenario_id, std::string_view class_id = {},
                               std::string_view student = {});

// Test seam: called after the temp file is complete and before it replaces `path`; throwing from
// it simulates a crash at the worst moment.
using BeforeRenameHook = std::function<void(const std::filesystem::path& temp_path)>;

// Writes `game` to `path` atomically. Throws SaveWriteError on failure; `path` then still holds
// whatever it held before, and no temp file is left behind.
void save_game(const Game& game, const std::filesystem::path& path, const BeforeRenameHook& before_rename = {});

// Reads a save. Throws SaveError: unreadable, not JSON (or nested too deep, or a duplicate key),
// not a save, newer version, checksum mismatch, or contents that do not load or make no sense
// (with the JSON pointer).
SaveData load_save(const std::filesystem::path& path, const data::Catalog& catalog);
SaveData load_save_text(std::string_view text, const std::string& name, const data::Catalog& catalog);

}  // namespace tycoon::game
