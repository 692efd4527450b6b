// Ids that become file and folder names (scenario ids name default saves, sweep names name
// output folders) are restricted to lowercase letters, digits and '-': no '/', no '..', no
// quote or space, nothing a shell or a path could read as more than a name.
#pragma once

#include <string>
#include <string_view>

namespace tycoon::data {

inline constexpr std::size_t kMaxIdLength = 64;

// True for 1..kMaxIdLength characters of [a-z0-9-] not starting with '-'.
inline bool is_safe_id(std::string_view id) {
  if (id.empty() || id.size() > kMaxIdLength || id.front() == '-') return false;
  for (char c : id) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return true;
}

// Why `id` is not safe, for a LoadError's reason.
inline std::string safe_id_rule() {
  return "must be 1 to " + std::to_string(kMaxIdLength) +
         " characters of a-z, 0-9 and '-' (not starting with '-'): it becomes a file name";
}

}  // namespace tycoon::data
