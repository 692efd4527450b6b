#include "sim/core/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace tycoon::core {

namespace {

std::string errno_text(int err) { return std::strerror(err); }

// Opens a temp file next to `path` that did not exist before; returns its descriptor.
int create_temp(const std::filesystem::path& path, std::filesystem::path& temp) {
  static std::atomic<unsigned> counter{0};
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  for (int attempt = 0; attempt < 100; ++attempt) {
    // ".<name>.<pid>.<n>.tmp", built by appending (GCC 12 warns falsely on "." + string).
    std::string name(1, '.');
    name += path.filename().string();
    name += '.';
    name += std::to_string(::getpid());
    name += '.';
    name += std::to_string(counter.fetch_add(1));
    name += ".tmp";
    temp = dir / name;
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0) return fd;
    if (errno != EEXIST) {
      throw FileWriteError("cannot create a temp file in " + dir.string() + ": " + errno_text(errno));
    }
  }
  throw FileWriteError("cannot create a temp file in " + dir.string() + ": every name tried exists");
}

// fsync of the folder holding `path`, so that the rename into it survives a crash. Best effort:
// the new file is already in place, so a folder that cannot be synced (some filesystems refuse)
// must not report the save as failed.
void sync_folder(const std::filesystem::path& path) {
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path, std::string_view text,
                           const BeforeReplaceHook& before_replace) {
  if (path.filename().empty()) throw FileWriteError("cannot write " + path.string() + ": not a file name");
  std::filesystem::path temp;
  int fd = create_temp(path, temp);
  auto fail = [&](const std::string& why) {
    if (fd >= 0) ::close(fd);
    ::unlink(temp.c_str());
    throw FileWriteError("cannot write " + path.string() + ": " + why);
  };
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(errno_text(errno));
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 && errno != EINVAL) fail(errno_text(errno));
  const int rc = ::close(fd);
  fd = -1;
  if (rc != 0) fail(errno_text(errno));
  if (before_replace) {
    try {
      before_replace(temp);
    } catch (const std::exception& e) {
      fail(e.what());
    }
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) fail(errno_text(errno));
  sync_folder(path);
}

}  // namespace tycoon::core
