// A lock on an output folder while a command writes into it: without one, two sweeps into one
// folder both exited 0 and left a mix neither could resume. The lock is `<folder>/.tycoon.lock`,
// held with flock(2) for the life of the object: the kernel lets go of it when the process ends,
// however it ends, so a lock left by a dead process is taken over without a word. The file holds
// the holder's pid and command, which a refused second writer names.
#pragma once

#include <filesystem>
#include <string>

namespace tycoon::cli {

inline constexpr const char* kFolderLockName = ".tycoon.lock";

class FolderLock {
 public:
  // Takes the lock of `folder` (which must exist) for `command` (what the lock file says, e.g.
  // "tycoon sweep spec.json"). Throws core::InputError (exit 2) naming `flag`, the folder and the
  // holder when another live process holds it.
  // `lock_name`: the lock file's name in the folder (writers of separate files in one folder, such
  // as a sweep's shards, each lock their own).
  FolderLock(const std::string& flag, const std::filesystem::path& folder, const std::string& command,
             const std::string& lock_name = kFolderLockName);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

}  // namespace tycoon::cli
