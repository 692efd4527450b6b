// Replacing a file so that a reader sees the old contents or the new, never a mix, and a crash
// or a full disk leaves the old file intact: the text goes to a fresh temp file in the target's
// folder (created with O_EXCL | O_NOFOLLOW, so a planted file or symlink is never written
// through), is flushed to disk (fsync), renamed over the target (which replaces a symlink at the
// target instead of following it), and the folder is synced so that the rename survives a crash.
#pragma once

#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tycoon::core {

// The reason names the file and the system's error ("No space left on device").
class FileWriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Test seam: called with the complete temp file just before it replaces the target; throwing
// from it simulates a crash at the worst moment (the temp file is removed, the target untouched).
using BeforeReplaceHook = std::function<void(const std::filesystem::path& temp_path)>;

// Writes `text` to `path` as described above. Throws FileWriteError; `path` then holds whatever
// it held before and no temp file is left behind.
void write_file_atomically(const std::filesystem::path& path, std::string_view text,
                           const BeforeReplaceHook& before_replace = {});

}  // namespace tycoon::core
