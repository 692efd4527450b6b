#include "server/store.h"

#include <sqlite3.h>

#include <nlohmann/json.hpp>

namespace tycoon::server {

namespace {

// Migration i brings the schema from version i to i + 1. Never edit one that has shipped: add the
// next. The policy CHECKs list classroom::kLatePolicyNames and kAttemptPolicyNames as they were
// when it shipped; a new policy needs a migration (tests/test_server_store.cpp checks they agree).
const char* const kMigrations[] = {
    // 1: classes, rosters, hand-ins, settings.
    R"sql(
CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE classes (
  class_id TEXT PRIMARY KEY,
  spec_json TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  deadline_at INTEGER,
  late_policy TEXT NOT NULL CHECK (late_policy IN ('refuse', 'mark')),
  attempt_policy TEXT NOT NULL CHECK (attempt_policy IN ('best', 'last', 'first')));
CREATE TABLE students (
  class_id TEXT NOT NULL REFERENCES classes(class_id),
  student TEXT NOT NULL,
  code TEXT NOT NULL UNIQUE,
  started_at INTEGER,
  PRIMARY KEY (class_id, student));
CREATE TABLE hand_ins (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  class_id TEXT NOT NULL,
  student TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  received_at INTEGER NOT NULL,
  save_text TEXT NOT NULL,
  commands_json TEXT NOT NULL,
  at_hour INTEGER NOT NULL,
  end_hour INTEGER NOT NULL,
  finished INTEGER NOT NULL,
  late INTEGER NOT NULL,
  score REAL NOT NULL,
  stars INTEGER NOT NULL,
  profit_usd REAL NOT NULL,
  slo_attainment REAL NOT NULL,
  num_commands INTEGER NOT NULL,
  flags_json TEXT NOT NULL,
  UNIQUE (class_id, student, attempt),
  FOREIGN KEY (class_id, student) REFERENCES students(class_id, student));
CREATE INDEX hand_ins_by_student ON hand_ins(class_id, student);
)sql",
};

class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &st_, nullptr) != SQLITE_OK) {
      throw StoreError(std::string("SQLite: ") + sqlite3_errmsg(db));
    }
  }
  ~Statement() { sqlite3_finalize(st_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int i, const std::string& v) {
    check(sqlite3_bind_text(st_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
    return *this;
  }
  Statement& bind(int i, std::int64_t v) {
    check(sqlite3_bind_int64(st_, i, v));
    return *this;
  }
  Statement& bind(int i, double v) {
    check(sqlite3_bind_double(st_, i, v));
    return *this;
  }
  Statement& bind(int i, std::optional<std::int64_t> v) {
    check(v ? sqlite3_bind_int64(st_, i, *v) : sqlite3_bind_null(st_, i));
    return *this;
  }
  // True while there is a row.
  bool step() {
    const int rc = sqlite3_step(st_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    if (rc == SQLITE_CONSTRAINT) throw StoreConflict(std::string("SQLite: ") + sqlite3_errmsg(db_));
    throw StoreError(std::string("SQLite: ") + sqlite3_errmsg(db_));
  }
  std::string text(int col) {
    const auto* p = sqlite3_column_text(st_, col);
    return p ? std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(st_, col)))
             : std::string();
  }
  std::int64_t integer(int col) { return sqlite3_column_int64(st_, col); }
  double real(int col) { return sqlite3_column_double(st_, col); }
  std::optional<std::int64_t> optional_integer(int col) {
    if (sqlite3_column_type(st_, col) == SQLITE_NULL) return std::nullopt;
    return integer(col);
  }

 private:
  void check(int rc) {
    if (rc != SQLITE_OK) throw StoreError(std::string("SQLite: ") + sqlite3_errmsg(db_));
  }
  sqlite3* db_;
  sqlite3_stmt* st_ = nullptr;
};

// BEGIN IMMEDIATE … COMMIT, rolled back when left without commit (an exception).
class Transaction {
 public:
  explicit Transaction(sqlite3* db) : db_(db) { run("BEGIN IMMEDIATE"); }
  ~Transaction() {
    if (!done_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  void commit() {
    run("COMMIT");
    done_ = true;
  }

 private:
  void run(const char* sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
      std::string msg = err ? err : "unknown error";
      sqlite3_free(err);
      throw StoreError(std::string("SQLite: ") + sql + ": " + msg);
    }
  }
  sqlite3* db_;
  bool done_ = false;
};

ClassRecord class_row(Statement& s) {
  ClassRecord c;
  c.class_id = s.text(0);
  c.spec_json = s.text(1);
  c.created_at_unix_s = s.integer(2);
  c.deadline_unix_s = s.optional_integer(3);
  c.late_policy = s.text(4);
  c.attempt_policy = s.text(5);
  return c;
}
constexpr const char* kClassColumns = "class_id, spec_json, created_at, deadline_at, late_policy, attempt_policy";

StudentRecord student_row(Statement& s) { return {s.text(0), s.text(1), s.text(2), s.optional_integer(3)}; }

}  // namespace

int current_schema_version() { return static_cast<int>(std::size(kMigrations)); }

Store::Store(const std::filesystem::path& file) {
  if (sqlite3_open_v2(file.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                      nullptr) != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw StoreError(file.string() + ": cannot open the class database: " + msg);
  }
  try {
    sqlite3_busy_timeout(db_, 5000);
    exec("PRAGMA foreign_keys = ON");
    {
      Statement wal(db_, "PRAGMA journal_mode = WAL");
      wal.step();
    }
    exec("PRAGMA synchronous = NORMAL");  // with WAL: durable at every checkpoint, never corrupt
    migrate();
  } catch (const StoreError& e) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw StoreError(file.string() + ": " + e.what());
  }
}

Store::~Store() { sqlite3_close(db_); }

void Store::exec(const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    throw StoreError("SQLite: " + msg);
  }
}

void Store::migrate() {
  std::lock_guard lock(mutex_);
  exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
  int version = schema_version();
  if (version > current_schema_version()) {
    throw StoreError("the class database has schema version " + std::to_string(version) + ", this build knows up to " +
                     std::to_string(current_schema_version()) + ": use a newer build");
  }
  for (; version < current_schema_version(); ++version) {
    Transaction t(db_);
    exec(kMigrations[version]);
    exec("DELETE FROM schema_version");
    Statement s(db_, "INSERT INTO schema_version (version) VALUES (?)");
    s.bind(1, std::int64_t{version + 1}).step();
    t.commit();
  }
}

int Store::schema_version() {
  std::lock_guard lock(mutex_);
  Statement s(db_, "SELECT MAX(version) FROM schema_version");
  return s.step() ? static_cast<int>(s.integer(0)) : 0;
}

std::string Store::journal_mode() {
  std::lock_guard lock(mutex_);
  Statement s(db_, "PRAGMA journal_mode");
  return s.step() ? s.text(0) : std::string();
}

std::string Store::instructor_token(const std::function<std::string()>& make_token) {
  std::lock_guard lock(mutex_);
  Transaction t(db_);
  {
    Statement s(db_, "SELECT value FROM settings WHERE key = 'instructor_token'");
    if (s.step()) return s.text(0);
  }
  const std::string token = make_token();
  Statement s(db_, "INSERT INTO settings (key, value) VALUES ('instructor_token', ?)");
  s.bind(1, token).step();
  t.commit();
  return token;
}

void Store::create_class(const ClassRecord& c) {
  std::lock_guard lock(mutex_);
  Statement s(db_,
              "INSERT INTO classes (class_id, spec_json, created_at, deadline_at, late_policy, attempt_policy) "
              "VALUES (?, ?, ?, ?, ?, ?)");
  s.bind(1, c.class_id).bind(2, c.spec_json).bind(3, c.created_at_unix_s).bind(4, c.deadline_unix_s);
  s.bind(5, c.late_policy).bind(6, c.attempt_policy);
  try {
    s.step();
  } catch (const StoreConflict&) {
    throw StoreConflict("class " + c.class_id + " exists already");
  }
}

std::optional<ClassRecord> Store::find_class(const std::string& class_id) {
  std::lock_guard lock(mutex_);
  Statement s(db_, (std::string("SELECT ") + kClassColumns + " FROM classes WHERE class_id = ?").c_str());
  s.bind(1, class_id);
  if (!s.step()) return std::nullopt;
  return class_row(s);
}

std::vector<ClassRecord> Store::classes() {
  std::lock_guard lock(mutex_);
  Statement s(db_, (std::string("SELECT ") + kClassColumns + " FROM classes ORDER BY class_id").c_str());
  std::vector<ClassRecord> out;
  while (s.step()) out.push_back(class_row(s));
  return out;
}

void Store::set_policy(const std::string& class_id, std::optional<std::int64_t> deadline_unix_s,
                       const std::string& late_policy, const std::string& attempt_policy) {
  std::lock_guard lock(mutex_);
  Statement s(db_, "UPDATE classes SET deadline_at = ?, late_policy = ?, attempt_policy = ? WHERE class_id = ?");
  s.bind(1, deadline_unix_s).bind(2, late_policy).bind(3, attempt_policy).bind(4, class_id).step();
  if (sqlite3_changes(db_) != 1) throw StoreError("no class " + class_id);
}

void Store::add_students(const std::vector<StudentRecord>& students) {
  std::lock_guard lock(mutex_);
  Transaction t(db_);
  for (const auto& st : students) {
    Statement s(db_, "INSERT INTO students (class_id, student, code, started_at) VALUES (?, ?, ?, NULL)");
    s.bind(1, st.class_id).bind(2, st.student).bind(3, st.code);
    try {
      s.step();
    } catch (const StoreConflict&) {
      throw StoreConflict("'" + st.student + "' is on the roster of class " + st.class_id + " already");
    }
  }
  t.commit();
}

std::vector<StudentRecord> Store::students(const std::string& class_id) {
  std::lock_guard lock(mutex_);
  Statement s(db_, "SELECT class_id, student, code, started_at FROM students WHERE class_id = ? ORDER BY student");
  s.bind(1, class_id);
  std::vector<StudentRecord> out;
  while (s.step()) out.push_back(student_row(s));
  return out;
}

std::optional<StudentRecord> Store::find_student_by_code(const std::string& code) {
  std::lock_guard lock(mutex_);
  Statement s(db_, "SELECT class_id, student, code, started_at FROM students WHERE code = ?");
  s.bind(1, code);
  if (!s.step()) return std::nullopt;
  return student_row(s);
}

void Store::mark_started(const std::string& class_id, const std::string& student, std::int64_t now_unix_s) {
  std::lock_guard lock(mutex_);
  Statement s(db_, "UPDATE students SET started_at = ? WHERE class_id = ? AND student = ? AND started_at IS NULL");
  s.bind(1, now_unix_s).bind(2, class_id).bind(3, student).step();
}

HandInRecord Store::add_hand_in(HandInRecord h, const std::vector<FlagUpdate>& flags,
                                const std::function<void()>& before_commit) {
  std::lock_guard lock(mutex_);
  Transaction t(db_);
  {
    Statement s(db_, "SELECT COALESCE(MAX(attempt), 0) FROM hand_ins WHERE class_id = ? AND student = ?");
    s.bind(1, h.class_id).bind(2, h.student);
    s.step();
    h.attempt = static_cast<int>(s.integer(0)) + 1;
  }
  {
    Statement s(db_,
                "INSERT INTO hand_ins (class_id, student, attempt, received_at, save_text, commands_json, at_hour, "
                "end_hour, finished, late, score, stars, profit_usd, slo_attainment, num_commands, flags_json) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    s.bind(1, h.class_id).bind(2, h.student).bind(3, std::int64_t{h.attempt}).bind(4, h.received_at_unix_s);
    s.bind(5, h.save_text).bind(6, h.commands_json).bind(7, h.at_hour).bind(8, h.end_hour);
    s.bind(9, std::int64_t{h.finished}).bind(10, std::int64_t{h.late}).bind(11, h.score_points);
    s.bind(12, std::int64_t{h.stars}).bind(13, h.profit_usd).bind(14, h.slo_attainment).bind(15, h.num_commands);
    s.bind(16, nlohmann::json(h.flags).dump()).step();
    h.id = sqlite3_last_insert_rowid(db_);
  }
  for (const auto& f : flags) {
    Statement get(db_, "SELECT flags_json FROM hand_ins WHERE id = ?");
    get.bind(1, f.hand_in_id);
    if (!get.step()) throw StoreError("no hand-in " + std::to_string(f.hand_in_id) + " to flag");
    auto list = nlohmann::json::parse(get.text(0));
    list.push_back(f.flag);
    Statement set(db_, "UPDATE hand_ins SET flags_json = ? WHERE id = ?");
    set.bind(1, list.dump()).bind(2, f.hand_in_id).step();
  }
  if (before_commit) before_commit();
  t.commit();
  return h;
}

std::vector<HandInRecord> Store::hand_ins(const std::string& class_id, const std::string& student, bool with_saves) {
  std::lock_guard lock(mutex_);
  Statement s(db_,
              "SELECT id, class_id, student, attempt, received_at, CASE WHEN ?3 THEN save_text ELSE '' END, "
              "commands_json, at_hour, end_hour, "
              "finished, late, score, stars, profit_usd, slo_attainment, num_commands, flags_json FROM hand_ins "
              "WHERE class_id = ?1 AND (?2 = '' OR student = ?2) ORDER BY id");
  s.bind(1, class_id).bind(2, student).bind(3, std::int64_t{with_saves});
  std::vector<HandInRecord> out;
  while (s.step()) {
    HandInRecord h;
    h.id = s.integer(0);
    h.class_id = s.text(1);
    h.student = s.text(2);
    h.attempt = static_cast<int>(s.integer(3));
    h.received_at_unix_s = s.integer(4);
    h.save_text = s.text(5);
    h.commands_json = s.text(6);
    h.at_hour = s.integer(7);
    h.end_hour = s.integer(8);
    h.finished = s.integer(9) != 0;
    h.late = s.integer(10) != 0;
    h.score_points = s.real(11);
    h.stars = static_cast<int>(s.integer(12));
    h.profit_usd = s.real(13);
    h.slo_attainment = s.real(14);
    h.num_commands = s.integer(15);
    for (const auto& f : nlohmann::json::parse(s.text(16))) h.flags.push_back(f.get<std::string>());
    out.push_back(std::move(h));
  }
  return out;
}

std::int64_t Store::count_rows(const std::string& table) {
  std::lock_guard lock(mutex_);
  if (table != "classes" && table != "students" && table != "hand_ins" && table != "settings") {
    throw StoreError("no table " + table);
  }
  Statement s(db_, ("SELECT COUNT(*) FROM " + table).c_str());
  s.step();
  return s.integer(0);
}

}  // namespace tycoon::server
