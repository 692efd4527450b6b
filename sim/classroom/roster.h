// A class roster: binds each student's name to a code only that student is given, so
// a classmate cannot hand in a run under another student's name. The instructor writes it with
// `class new --roster NAMES --roster-out ROSTER.json` (one random code per student, printed in the
// roster file, which stays private), hands each student their code, and checks with
// `class report --roster ROSTER.json`. The class file itself holds no code.
//
//   {"format": "inference-tycoon-roster", "version": 1, "class_id": "econ-101",
//    "students": [{"student": "Ada Lovelace", "code": "7K2M-QX4P-9D3F-HR8T"}, ...]}
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace tycoon::classroom {

inline constexpr std::string_view kRosterFormat = "inference-tycoon-roster";
inline constexpr int kRosterVersion = 1;
inline constexpr std::size_t kMaxRosterStudents = 10'000;

struct RosterEntry {
  std::string student;
  std::string code;  // as issued: groups of 4 characters from kCodeAlphabet, joined by '-'
};

struct Roster {
  std::string class_id;
  std::vector<RosterEntry> students;
};

// The characters of a code: digits and capitals without I, L, O and U (Crockford's base 32), so a
// code read aloud or copied by hand is not mistaken.
inline constexpr std::string_view kCodeAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

// A code of 16 characters (80 bits) from `random_bits` (two 64-bit words from a source of the
// caller's: the CLI uses std::random_device; codes are secrets, not part of the simulation).
std::string format_student_code(std::uint64_t random_hi, std::uint64_t random_lo);

// `n` distinct codes (format_student_code), each from two words of `random_word` (a source of the
// caller's; codes are secrets, not part of the simulation).
std::vector<std::string> draw_student_codes(std::size_t n, const std::function<std::uint64_t()>& random_word);

// A code as typed, normalised for comparison: upper case, without '-' or spaces.
std::string normalized_code(std::string_view code);
// A code as typed, in the form it was issued (format_student_code: four groups of four joined by
// '-'), or nullopt when it does not have 16 characters once normalised.
std::optional<std::string> issued_code(std::string_view code);

// A roster of `names` (one per student) with `codes` (as many). Throws core::InputError for a bad
// name (student_name_problem), two names that are one student (student_name_key), an empty
// roster, more than kMaxRosterStudents, or two equal codes.
Roster make_roster(const std::string& class_id, const std::vector<std::string>& names,
                   const std::vector<std::string>& codes);

// Throws core::InputError when one of `names` is the same student (student_name_key) as one of
// `existing`, the names already on a roster that grows (the class server's roster uploads).
void check_new_roster_names(const std::vector<std::string>& existing, const std::vector<std::string>& names);

// Names from a text file's contents: one per line, surrounding spaces trimmed, blank lines and
// lines starting with '#' skipped.
std::vector<std::string> roster_names_from_text(std::string_view text);

nlohmann::json to_json(const Roster& r);
// Strict load; throws data::LoadError naming the file and pointer.
Roster roster_from_json(const nlohmann::json& j, const std::string& file);
Roster load_roster(const std::filesystem::path& path);

// Why a submission by `student` with `code` does not hold on the roster (empty when it does):
// the student is not on it, or the code is missing or is not that student's. The reason names the
// student, never a code.
std::string roster_problem(const Roster& roster, std::string_view student, std::string_view code);

}  // namespace tycoon::classroom
