#include "cli/output_guard.h"

#include "sim/core/input_error.h"
#include "sim/core/input_file.h"
#include "sim/data/json_reader.h"

namespace tycoon::cli {

namespace {

// Whether two paths name one file (both exist: by device and inode, through links).
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) {
  std::error_code ec;
  const bool same = std::filesystem::equivalent(a, b, ec);
  return !ec && same;
}

// An output is checked against files of at most this size (a larger one is no file of ours).
constexpr core::InputKind kOwnOutputProbe{"file this command wrote", 256 * core::kMiB};

}  // namespace

bool json_file_has_format(const std::filesystem::path& path, std::string_view format) {
  try {
    const auto j = data::parse_json_file(path, kOwnOutputProbe);
    return j.is_object() && j.contains("format") && j["format"].is_string() && j["format"] == format;
  } catch (const std::exception&) {
    return false;
  }
}

bool file_starts_with_marker(const std::filesystem::path& path, std::string_view marker) {
  try {
    const std::string text = core::read_input_file(path, kOwnOutputProbe);
    return std::string_view(text).substr(0, 4096).find(marker) != std::string_view::npos;
  } catch (const std::exception&) {
    return false;
  }
}

void check_output_not_input(const std::string& flag, const std::filesystem::path& out,
                            const std::vector<NamedInput>& inputs, const std::string& kind,
                            const std::function<bool(const std::filesystem::path&)>& is_own_kind, bool force) {
  std::error_code ec;
  if (force || !std::filesystem::exists(out, ec)) return;
  for (const auto& in : inputs) {
    if (same_file(out, in.path)) {
      throw core::InputError(flag + ": " + out.string() + " is " + in.what +
                             ", an input of this command: write elsewhere (or pass --force to replace it)");
    }
  }
  if (is_own_kind && !is_own_kind(out)) {
    throw core::InputError(flag + ": " + out.string() + " exists and is not " + kind +
                           ": write elsewhere (or pass --force to replace it)");
  }
}

}  // namespace tycoon::cli
