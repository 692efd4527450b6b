// The class server's storage: one SQLite file (WAL journal, foreign keys on) holding the classes,
// their rosters, every hand-in and the instructor's token. The schema has a version (table
// schema_version) and is brought up to date by numbered migrations, each in its own transaction,
// when the file is opened; a file from a newer build is refused. Every change that touches more
// than one row is one transaction: after a failure (a bad roster line, a hand-in refused halfway)
// the file holds what it held before.
//
// The store keeps records; it decides nothing about them. Which attempt counts, what is late and
// what is flagged are rules of sim/classroom/hand_in.h, applied by the server before it writes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/classroom/hand_in.h"

struct sqlite3;

namespace tycoon::server {

// A storage failure (the file cannot be opened, is not ours, is from a newer build, a write
// failed) or a conflict (StoreConflict: a class or student that exists already).
class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
class StoreConflict : public StoreError {
 public:
  using StoreError::StoreError;
};

// The schema version this build writes (the number of migrations).
int current_schema_version();

struct ClassRecord {
  std::string class_id;
  std::string spec_json;  // the class file's JSON (classroom::to_json(ClassSpec))
  std::int64_t created_at_unix_s = 0;
  std::optional<std::int64_t> deadline_unix_s;
  std::string late_policy{classroom::kLatePolicyNames[static_cast<int>(classroom::kDefaultLatePolicy)]};
  std::string attempt_policy{classroom::kAttemptPolicyNames[static_cast<int>(classroom::kDefaultAttemptPolicy)]};
};

struct StudentRecord {
  std::string class_id;
  std::string student;
  std::string code;                               // as issued (classroom::format_student_code)
  std::optional<std::int64_t> started_at_unix_s;  // first time the code fetched the class
};

struct HandInRecord {
  std::int64_t id = 0;  // assigned by the store
  std::string class_id;
  std::string student;
  int attempt = 0;  // assigned by the store: 1 + the student's earlier hand-ins
  std::int64_t received_at_unix_s = 0;
  std::string save_text;      // the raw save, as handed in
  std::string commands_json;  // its command log (JSON array), for comparisons
  std::int64_t at_hour = 0, end_hour = 0;
  bool finished = false;
  bool late = false;
  // The replay's figures (classroom::replay_submission).
  double score_points = 0;
  int stars = 0;
  double profit_usd = 0;
  double slo_attainment = 0;
  std::int64_t num_commands = 0;
  std::vector<std::string> flags;  // what the instructor should look at, one sentence each
};

// A flag to add to an earlier hand-in in the same transaction as a new one.
struct FlagUpdate {
  std::int64_t hand_in_id = 0;
  std::string flag;
};

class Store {
 public:
  // Opens (creating when missing) and migrates. Throws StoreError.
  explicit Store(const std::filesystem::path& file);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  int schema_version();
  std::string journal_mode();

  // The instructor's token: the stored one, or `make_token()` stored on first use.
  std::string instructor_token(const std::function<std::string()>& make_token);

  // Throws StoreConflict when the class exists.
  void create_class(const ClassRecord& c);
  std::optional<ClassRecord> find_class(const std::string& class_id);
  std::vector<ClassRecord> classes();
  void set_policy(const std::string& class_id, std::optional<std::int64_t> deadline_unix_s,
                  const std::string& late_policy, const std::string& attempt_policy);

  // Adds every student or none: StoreConflict when a name or a code exists already.
  void add_students(const std::vector<StudentRecord>& students);
  std::vector<StudentRecord> students(const std::string& class_id);
  std::optional<StudentRecord> find_student_by_code(const std::string& code);
  // Records the first time a student's code fetched the class (later calls change nothing).
  void mark_started(const std::string& class_id, const std::string& student, std::int64_t now_unix_s);

  // Stores `h` with the next attempt number of its student and adds `flags` to earlier hand-ins,
  // in one transaction; returns the record as stored (id and attempt set). `before_commit` (a
  // test seam) runs inside the transaction: throwing from it rolls everything back.
  HandInRecord add_hand_in(HandInRecord h, const std::vector<FlagUpdate>& flags,
                           const std::function<void()>& before_commit = {});
  // In hand-in order (id), optionally one student's; the raw saves only `with_saves` (a class's
  // saves together can be tens of megabytes, and the standings need none of them).
  std::vector<HandInRecord> hand_ins(const std::string& class_id, const std::string& student = {},
                                     bool with_saves = false);
  std::int64_t count_rows(const std::string& table);

 private:
  void exec(const char* sql);
  void migrate();
  sqlite3* db_ = nullptr;
  std::recursive_mutex mutex_;
};

}  // namespace tycoon::server
