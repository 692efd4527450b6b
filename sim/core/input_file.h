// Reading a file that came from outside, one way for every kind of input: regular files
// only (a folder, device, FIFO or socket is refused before a byte is read), a size limit per kind
// named in the error, and the text read in bounded chunks, so that /dev/zero, a named pipe or a
// file that grows while it is read cannot grow the process until allocation fails.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "sim/core/input_error.h"

namespace tycoon::core {

// A kind of input and the most bytes one file of it may hold. The limits are listed in
// docs/reliability.md; a limit is generous for a real file of the kind and keeps a hostile one
// from taking the machine's memory (the text, its parsed form and its entries are all in memory).
struct InputKind {
  std::string_view name;  // "trace", "save", ... as the error names it
  std::uint64_t max_bytes = 0;
};

inline constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
// Catalog entries, scenarios, recipes, model cards, class files, calibration profiles.
inline constexpr InputKind kDataFileInput{"data file", 16 * kMiB};
inline constexpr InputKind kSweepSpecInput{"sweep spec", 4 * kMiB};
// An 8-million-row Azure trace is about 300 MB.
inline constexpr InputKind kTraceInput{"trace", 512 * kMiB};
inline constexpr InputKind kSaveInput{"save", 128 * kMiB};
inline constexpr InputKind kCommandLogInput{"command log", 128 * kMiB};
inline constexpr InputKind kSubmissionInput{"submission", 32 * kMiB};
// The class report's JSON, which the game's Class report screen loads (every student's series).
inline constexpr InputKind kClassReportInput{"class report", 64 * kMiB};
inline constexpr InputKind kSweepPartInput{"sweep part", 256 * kMiB};
inline constexpr InputKind kSweepJournalInput{"sweep journal", 256 * kMiB};

// Whether a symbolic link at the path itself is followed. A path the user typed is (they named
// it); an entry found by scanning a folder is not (a link in a submissions folder must not reach
// a file outside it).
enum class Links { kFollow, kRefuse };

// Why a file cannot be read: names the file and the reason, never its content. An InputError:
// the CLI exits 2.
class FileReadError : public InputError {
 public:
  FileReadError(std::string file, std::string reason);
  const std::string& file() const { return file_; }
  const std::string& reason() const { return reason_; }

 private:
  std::string file_;
  std::string reason_;
};

// The whole text of `path`, a regular file of at most `kind.max_bytes` bytes. Throws
// FileReadError naming the file and why (missing, a folder, a device or FIFO, a link where links
// are refused, above the kind's limit, a read error).
std::string read_input_file(const std::filesystem::path& path, const InputKind& kind, Links links = Links::kFollow);

// What a folder entry is, read without following links: the reason it is not a regular file
// ("a symbolic link", "a folder", "a device", "a FIFO", "a socket"), or empty when it is one.
std::string not_a_regular_file(const std::filesystem::path& path);

// "1.5 MiB", "512 MiB", "300 bytes": a size for an error message.
std::string format_bytes(std::uint64_t bytes);

}  // namespace tycoon::core
