// The scenarios a player can start (tutorials, campaign levels, sandboxes, classroom worlds) and
// the player's campaign progress, which unlocks levels.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/data/catalog.h"
#include "sim/game/scenario.h"

namespace tycoon::ui {

struct ScenarioEntry {
  std::filesystem::path path;
  std::string id;
  std::string name;
  game::ScenarioKind kind = game::ScenarioKind::kSandbox;
  std::optional<int> level;
  std::string lesson;
  int days = 0;
  std::string error;  // it did not load: shown, not playable
};

// Every scenario under `<data_root>/scenarios` and the extra folders (recursively), loaded
// strictly; sorted by kind, then level, then name. A folder that does not exist is skipped; a
// file that does not load is listed with its error when it names a scenario kind.
std::vector<ScenarioEntry> list_scenario_entries(const data::Catalog& catalog, const std::filesystem::path& data_root,
                                                 const std::vector<std::filesystem::path>& extra_dirs);

// Best stars per scenario id (2 or more: passed).
struct Progress {
  std::map<std::string, int> best_stars;
};

// A campaign level is open when it is the first or the level before it was passed.
bool unlocked(const std::vector<ScenarioEntry>& entries, const ScenarioEntry& e, const Progress& progress);

// Missing file: empty progress. Unreadable: empty progress and `error` set.
Progress load_progress(const std::filesystem::path& path, std::string* error);
// Returns false (with `error`) when it cannot write.
bool save_progress(const Progress& p, const std::filesystem::path& path, std::string* error);

// Save files (*.json) in a folder, newest first.
std::vector<std::filesystem::path> list_saves(const std::filesystem::path& dir);

}  // namespace tycoon::ui
