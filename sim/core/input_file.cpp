#include "sim/core/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace tycoon::core {

FileReadError::FileReadError(std::string file, std::string reason)
    : InputError(file + ": " + reason), file_(std::move(file)), reason_(std::move(reason)) {}

std::string format_bytes(std::uint64_t bytes) {
  char buf[64];
  if (bytes >= kMiB) {
    const double mib = static_cast<double>(bytes) / static_cast<double>(kMiB);
    std::snprintf(buf, sizeof buf, mib == static_cast<double>(bytes / kMiB) ? "%.0f MiB" : "%.1f MiB", mib);
  } else {
    std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(bytes));
  }
  return buf;
}

namespace {

// What a stat mode is, for a refusal; empty for a regular file.
std::string kind_of_mode(mode_t mode) {
  if (S_ISREG(mode)) return {};
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Closes a descriptor on every path out.
struct FdCloser {
  int fd;
  ~FdCloser() { ::close(fd); }
};

}  // namespace

std::string not_a_regular_file(const std::filesystem::path& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return std::string("cannot be read: ") + std::strerror(errno);
  return kind_of_mode(st.st_mode);
}

std::string read_input_file(const std::filesystem::path& path, const InputKind& kind, Links links) {
  const std::string file = path.string();
  const std::string what = std::string(kind.name);
  if (links == Links::kRefuse) {
    if (auto why = not_a_regular_file(path); !why.empty()) {
      throw FileReadError(file, "is " + why + ", not a " + what + " (only regular files are read here)");
    }
  }
  // O_NONBLOCK: opening a FIFO returns at once (it is then refused by its type) instead of waiting
  // for a writer. O_NOFOLLOW closes the gap between the lstat above and the open.
  int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK;
  if (links == Links::kRefuse) flags |= O_NOFOLLOW;
  const int fd = ::open(path.c_str(), flags);
  if (fd < 0) {
    const int err = errno;
    if (err == ELOOP) throw FileReadError(file, "is a symbolic link, not a " + what + " (links are not followed here)");
    throw FileReadError(file, "cannot open the " + what + ": " + std::strerror(err));
  }
  FdCloser closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw FileReadError(file, "cannot read the " + what + ": " + std::strerror(errno));
  if (auto why = kind_of_mode(st.st_mode); !why.empty()) {
    throw FileReadError(file, "is " + why + ", not a " + what + " (only regular files are read)");
  }
  const std::string limit = "the limit for a " + what + " is " + format_bytes(kind.max_bytes);
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size > kind.max_bytes) throw FileReadError(file, "is " + format_bytes(size) + ", too large: " + limit);
  // Read in chunks up to one byte past the limit: a file that grows while it is read is caught too.
  std::string text;
  text.reserve(static_cast<std::size_t>(size));
  constexpr std::size_t kChunkBytes = std::size_t{1} << 20;
  std::string chunk(kChunkBytes, '\0');
  for (;;) {
    const ssize_t n = ::read(fd, chunk.data(), chunk.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw FileReadError(file, "cannot read the " + what + ": " + std::strerror(errno));
    }
    if (n == 0) break;
    text.append(chunk.data(), static_cast<std::size_t>(n));
    if (text.size() > kind.max_bytes) throw FileReadError(file, "grew past the limit while read: " + limit);
  }
  return text;
}

}  // namespace tycoon::core
