// Replacing a file atomically: the old contents or the new, never a mix, never written through
// a link, no temp file left behind whatever fails.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/core/atomic_file.h"

using namespace tycoon;
namespace fs = std::filesystem;

namespace {

std::string read_back(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct AtomicDir {
  fs::path path = fs::temp_directory_path() / ("tycoon-atomic-" + std::to_string(::getpid()));
  AtomicDir() { fs::create_directories(path); }
  ~AtomicDir() {
    std::error_code ec;
    fs::permissions(path, fs::perms::owner_all, ec);
    fs::remove_all(path, ec);
  }
  std::size_t num_entries() const {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(path), fs::directory_iterator()));
  }
};

}  // namespace

TEST_CASE("write_file_atomically replaces the file and leaves nothing else") {
  AtomicDir dir;
  const auto file = dir.path / "summary.json";
  core::write_file_atomically(file, "first");
  core::write_file_atomically(file, "second");
  CHECK(read_back(file) == "second");
  CHECK(dir.num_entries() == 1);
}

TEST_CASE("a failure before the rename keeps the old file and removes the temp file") {
  AtomicDir dir;
  const auto file = dir.path / "game.save";
  core::write_file_atomically(file, "old");
  CHECK_THROWS_AS(
      core::write_file_atomically(file, "new", [](const fs::path&) { throw std::runtime_error("power cut"); }),
      core::FileWriteError);
  CHECK(read_back(file) == "old");
  CHECK(dir.num_entries() == 1);
}

TEST_CASE("a link planted at the target is replaced, never followed") {
  // `run --out` followed a symlinked summary.json and overwrote what it pointed to.
  AtomicDir dir;
  const auto victim = dir.path / "victim";
  std::ofstream(victim) << "precious";
  fs::create_symlink(victim, dir.path / "summary.json");
  core::write_file_atomically(dir.path / "summary.json", "{}");
  CHECK(read_back(victim) == "precious");
  CHECK_FALSE(fs::is_symlink(dir.path / "summary.json"));
  CHECK(read_back(dir.path / "summary.json") == "{}");
}

TEST_CASE("an unwritable folder is a FileWriteError naming the folder and the reason") {
  if (::geteuid() == 0) return;  // root writes anywhere: nothing to check
  AtomicDir dir;
  fs::permissions(dir.path, fs::perms::owner_read | fs::perms::owner_exec);
  try {
    core::write_file_atomically(dir.path / "x.json", "{}");
    FAIL("no error");
  } catch (const core::FileWriteError& e) {
    CHECK(std::string(e.what()).find(dir.path.string()) != std::string::npos);
    CHECK(std::string(e.what()).find("Permission denied") != std::string::npos);
  }
}
