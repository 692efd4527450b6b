// What a command may write: never one of its own inputs, and never a file it did not
// create (a file of another kind, or another program's) unless --force. Checked before any work,
// so that a refusal (exit 2) costs nothing and leaves every file as it was.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace tycoon::cli {

// One input of the command: the flag or argument that named it, and the path.
struct NamedInput {
  std::string what;  // "the class file", "submission ada.json", ...
  std::filesystem::path path;
};

// Throws core::InputError (exit 2) when `out` — the file `flag` names — exists and either is one of
// `inputs` (the same file, through a link or another spelling of the path) or `is_own_kind(out)`
// is false (this command did not write it). `kind` names what the command writes, for the
// message. `force` lets both through.
void check_output_not_input(const std::string& flag, const std::filesystem::path& out,
                            const std::vector<NamedInput>& inputs, const std::string& kind,
                            const std::function<bool(const std::filesystem::path&)>& is_own_kind, bool force);

// Whether `path` is a JSON file whose "format" is `format` (a file of that kind, written by us).
bool json_file_has_format(const std::filesystem::path& path, std::string_view format);

// Whether `path` is a text file that holds `marker` in its first 4 KiB.
bool file_starts_with_marker(const std::filesystem::path& path, std::string_view marker);

}  // namespace tycoon::cli
