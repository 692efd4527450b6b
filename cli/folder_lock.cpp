#include "cli/folder_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "sim/core/input_error.h"

namespace tycoon::cli {

namespace {

// What the holder wrote into the lock file (its pid and command), on one line.
std::string holder_of(int fd) {
  char buf[512];
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return "another process";
  std::string s(buf, static_cast<std::size_t>(n));
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  for (char& c : s) {
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  return s;
}

}  // namespace

FolderLock::FolderLock(const std::string& flag, const std::filesystem::path& folder, const std::string& command,
                       const std::string& lock_name)
    : path_(folder / lock_name) {
  // A few rounds: a holder that ends between our open and our flock may have removed the file we
  // opened (we then lock a file no one else sees, and try again on the new one).
  for (int attempt = 0; attempt < 10; ++attempt) {
    const int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
      throw core::InputError(flag + ": cannot lock " + folder.string() + " (" + path_.filename().string() +
                             "): " + std::strerror(errno));
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      const std::string holder = holder_of(fd);
      ::close(fd);
      if (err == EWOULDBLOCK) {
        throw core::InputError(flag + ": " + folder.string() + " is being written by " + holder +
                               ": wait for it to finish, or write elsewhere");
      }
      throw core::InputError(flag + ": cannot lock " + folder.string() + ": " + std::strerror(err));
    }
    struct stat held {
    }, now{};
    if (::fstat(fd, &held) == 0 && ::lstat(path_.c_str(), &now) == 0 && held.st_ino == now.st_ino &&
        held.st_dev == now.st_dev) {
      fd_ = fd;
      char since[32] = "";
      const std::time_t t = std::time(nullptr);
      std::tm tm{};
      if (::gmtime_r(&t, &tm)) std::strftime(since, sizeof since, "%Y-%m-%d %H:%M:%S UTC", &tm);
      const std::string line = "pid " + std::to_string(::getpid()) + " (" + command + ", since " + since + ")\n";
      if (::ftruncate(fd_, 0) == 0) {
        [[maybe_unused]] const ssize_t n = ::pwrite(fd_, line.data(), line.size(), 0);
      }
      return;
    }
    ::close(fd);
  }
  throw core::InputError(flag + ": cannot lock " + folder.string() + ": the lock file keeps changing");
}

FolderLock::~FolderLock() {
  if (fd_ < 0) return;
  // Removed while still held, so that no one locks the old file after we let go of it.
  ::unlink(path_.c_str());
  ::close(fd_);
}

}  // namespace tycoon::cli
