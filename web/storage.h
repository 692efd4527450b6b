// Saves and campaign progress in the browser's localStorage.
//
// The game writes saves with sim/game/save.h into an in-memory folder (MEMFS); this mirrors that
// folder and the progress file into localStorage under versioned keys, and restores them before
// the app starts. The values are the save files' own text (format, version and checksum inside),
// so a save is validated by the same loader whether it came from disk, storage or an import.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>

namespace tycoon::web {

// Key prefix; bump the "v1" when the key layout (not the save format) changes.
inline constexpr std::string_view kStoragePrefix = "inference-tycoon/v1/";

class LocalStorageMirror {
 public:
  LocalStorageMirror(std::filesystem::path save_dir, std::filesystem::path progress_file);

  // Writes what localStorage holds into the save folder and progress file; returns the number of
  // files restored. Entries with unsafe names are skipped.
  int restore();
  // Copies new or changed saves (and the progress file) to localStorage and removes entries whose
  // file is gone. Returns false when the browser refused a write (quota); the error is kept.
  bool sync();
  const std::string& last_error() const { return last_error_; }

 private:
  std::filesystem::path save_dir_;
  std::filesystem::path progress_file_;
  std::map<std::string, std::string> mirrored_;  // key -> text as last written
  std::string last_error_;
};

// True for names made of [A-Za-z0-9._-] ending in ".json", 1..96 characters, not starting with '.'.
bool safe_file_name(std::string_view name);

// Whole file as text, or "" when unreadable.
std::string read_text(const std::filesystem::path& path);

}  // namespace tycoon::web
