#include "sim/classroom/roster.h"

#include <map>
#include <set>

#include "sim/classroom/student_name.h"
#include "sim/classroom/submission.h"
#include "sim/core/input_error.h"
#include "sim/data/json_reader.h"
#include "sim/data/safe_id.h"

namespace tycoon::classroom {

std::string format_student_code(std::uint64_t random_hi, std::uint64_t random_lo) {
  std::string out;
  for (int i = 0; i < 16; ++i) {
    // 5 bits each: the first 12 characters from the low word, the last 4 from the high one.
    std::uint64_t& word = i < 12 ? random_lo : random_hi;
    if (i > 0 && i % 4 == 0) out += '-';
    out += kCodeAlphabet[static_cast<std::size_t>(word & 31u)];
    word >>= 5;
  }
  return out;
}

std::vector<std::string> draw_student_codes(std::size_t n, const std::function<std::uint64_t()>& random_word) {
  std::vector<std::string> codes;
  std::set<std::string> seen;
  while (codes.size() < n) {
    const std::uint64_t hi = random_word();
    auto code = format_student_code(hi, random_word());
    if (seen.insert(code).second) codes.push_back(std::move(code));
  }
  return codes;
}

std::string normalized_code(std::string_view code) {
  std::string out;
  for (char c : code) {
    if (c == '-' || c == ' ') continue;
    out += (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
  }
  return out;
}

std::optional<std::string> issued_code(std::string_view code) {
  const std::string n = normalized_code(code);
  if (n.size() != 16) return std::nullopt;
  std::string out;
  for (std::size_t i = 0; i < n.size(); ++i) {
    if (i > 0 && i % 4 == 0) out += '-';
    out += n[i];
  }
  return out;
}

Roster make_roster(const std::string& class_id, const std::vector<std::string>& names,
                   const std::vector<std::string>& codes) {
  if (names.empty()) throw core::InputError("roster: no student names");
  if (names.size() > kMaxRosterStudents) {
    throw core::InputError("roster: " + std::to_string(names.size()) + " students, at most " +
                           std::to_string(kMaxRosterStudents));
  }
  if (codes.size() != names.size()) throw std::logic_error("make_roster: one code per name");
  Roster r;
  r.class_id = class_id;
  std::set<std::string> keys, seen_codes;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string line = "roster: student " + std::to_string(i + 1);
    if (auto why = student_name_problem(names[i]); !why.empty()) throw core::InputError(line + ": the name " + why);
    if (!keys.insert(student_name_key(names[i])).second) {
      throw core::InputError(line + ": '" + names[i] +
                             "' is a student already on the roster (names are compared without case, extra spaces, "
                             "invisible or look-alike characters)");
    }
    if (!seen_codes.insert(normalized_code(codes[i])).second) throw std::logic_error("make_roster: a code repeats");
    r.students.push_back({names[i], codes[i]});
  }
  return r;
}

void check_new_roster_names(const std::vector<std::string>& existing, const std::vector<std::string>& names) {
  std::map<std::string, std::string> keys;
  for (const auto& e : existing) keys.emplace(student_name_key(e), e);
  for (const auto& n : names) {
    if (auto it = keys.find(student_name_key(n)); it != keys.end()) {
      if (it->second == n) throw core::InputError("'" + n + "' is on the roster already");
      throw core::InputError("'" + n + "' is the same student as '" + it->second +
                             "', on the roster already (names are compared without case, extra spaces, invisible "
                             "or look-alike characters)");
    }
  }
}

std::vector<std::string> roster_names_from_text(std::string_view text) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    if (!line.empty() && line.front() != '#') out.emplace_back(line);
    if (end == text.size()) break;
  }
  return out;
}

nlohmann::json to_json(const Roster& r) {
  nlohmann::json students = nlohmann::json::array();
  for (const auto& s : r.students) students.push_back({{"student", s.student}, {"code", s.code}});
  return {{"format", kRosterFormat}, {"version", kRosterVersion}, {"class_id", r.class_id}, {"students", students}};
}

Roster roster_from_json(const nlohmann::json& j, const std::string& file) {
  data::ObjectReader in(j, file, "");
  if (in.string("format") != kRosterFormat) {
    in.fail("format", "not a class roster (expected the format " + std::string(kRosterFormat) + ")");
  }
  if (in.integer("version") != kRosterVersion) {
    in.fail("version", "not supported (this build reads version " + std::to_string(kRosterVersion) + ")");
  }
  Roster r;
  r.class_id = in.string("class_id");
  if (!data::is_safe_id(r.class_id)) in.fail("class_id", data::safe_id_rule());
  auto students = in.array("students");
  if (students.size() == 0) in.fail("students", "no student");
  if (students.size() > kMaxRosterStudents) {
    in.fail("students", "more than " + std::to_string(kMaxRosterStudents) + " students");
  }
  std::set<std::string> keys;
  for (std::size_t i = 0; i < students.size(); ++i) {
    auto s = students.object(i);
    RosterEntry e;
    e.student = s.string("student");
    if (auto why = student_name_problem(e.student); !why.empty()) s.fail("student", why);
    if (!keys.insert(student_name_key(e.student)).second) s.fail("student", "a student already on the roster");
    e.code = s.string("code");
    if (normalized_code(e.code).size() < 8) s.fail("code", "shorter than 8 characters");
    s.finish();
    r.students.push_back(std::move(e));
  }
  in.finish();
  return r;
}

Roster load_roster(const std::filesystem::path& path) {
  return roster_from_json(data::parse_json_file(path), path.string());
}

std::string roster_problem(const Roster& roster, std::string_view student, std::string_view code) {
  const std::string key = student_name_key(student);
  for (const auto& e : roster.students) {
    if (student_name_key(e.student) != key) continue;
    if (code.empty()) return "no student code: the class has a roster (class submit --code)";
    if (normalized_code(code) != normalized_code(e.code)) {
      return "its student code is not the one the roster gives '" + e.student + "'";
    }
    return {};
  }
  std::string problem = "'";  // built in steps: GCC 12's -Wrestrict misreads "lit" + std::string&&
  problem.append(student);
  problem += "' is not on the class roster";
  return problem;
}

}  // namespace tycoon::classroom
