// The class server's store (server/store.h): a SQLite file brought to the current schema from
// empty, in WAL mode, refused when a newer build wrote it, and changed only by whole
// transactions: a roster with one bad line adds nobody, a hand-in that fails before its commit
// leaves the hand-ins and the flags of the others exactly as they were.
#include <doctest/doctest.h>

#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>

#include "server/store.h"

using namespace tycoon;
namespace fs = std::filesystem;

namespace {

fs::path fresh_db(const std::string& name) {
  const auto dir = fs::temp_directory_path() / ("tycoon-store-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir / "class.sqlite";
}

server::ClassRecord econ_101() {
  server::ClassRecord c;
  c.class_id = "econ-101";
  c.spec_json = R"({"class_id": "econ-101"})";
  c.created_at_unix_s = 1'700'000'000;
  return c;
}

server::HandInRecord hand_in_of(const std::string& student, double score) {
  server::HandInRecord h;
  h.class_id = "econ-101";
  h.student = student;
  h.received_at_unix_s = 1'700'000'100;
  h.save_text = "{}";
  h.commands_json = "[]";
  h.end_hour = 24;
  h.at_hour = 24;
  h.finished = true;
  h.score_points = score;
  return h;
}

}  // namespace

TEST_CASE("an empty file is migrated to the current schema, in WAL mode, and keeps its data when reopened") {
  const auto db = fresh_db("migrate");
  {
    server::Store store(db);
    CHECK(store.schema_version() == server::current_schema_version());
    CHECK(store.journal_mode() == "wal");
    store.create_class(econ_101());
    CHECK(store.instructor_token([] { return std::string("first"); }) == "first");
  }
  server::Store again(db);  // no migration runs twice: the class and the token are still there
  CHECK(again.schema_version() == server::current_schema_version());
  CHECK(again.count_rows("classes") == 1);
  CHECK(again.instructor_token([] { return std::string("second"); }) == "first");
}

TEST_CASE("a file from a newer build, or not a database, is refused with the reason") {
  const auto db = fresh_db("newer");
  { server::Store store(db); }
  sqlite3* raw = nullptr;
  REQUIRE(sqlite3_open(db.c_str(), &raw) == SQLITE_OK);
  REQUIRE(sqlite3_exec(raw, "UPDATE schema_version SET version = 99", nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(raw);
  CHECK_THROWS_WITH_AS(server::Store{db}, doctest::Contains("schema version 99"), server::StoreError);

  const auto junk = fresh_db("junk");
  {
    std::FILE* f = std::fopen(junk.c_str(), "wb");
    std::fputs("this is not a database, just text long enough to have a header of sorts......", f);
    std::fclose(f);
  }
  CHECK_THROWS_AS(server::Store{junk}, server::StoreError);
}

TEST_CASE("a roster is added whole or not at all") {
  server::Store store(fresh_db("roster"));
  store.create_class(econ_101());
  CHECK_THROWS_AS(store.create_class(econ_101()), server::StoreConflict);
  store.add_students({{"econ-101", "Ada", "AAAA-AAAA-AAAA-AAAA", {}}});
  // Ben is new, Ada is not: neither is added.
  CHECK_THROWS_WITH_AS(store.add_students({{"econ-101", "Ben", "BBBB-BBBB-BBBB-BBBB", {}},
                                           {"econ-101", "Ada", "CCCC-CCCC-CCCC-CCCC", {}}}),
                       doctest::Contains("'Ada' is on the roster"), server::StoreConflict);
  CHECK(store.count_rows("students") == 1);
  // A code is one student's, across classes too.
  CHECK_THROWS_AS(store.add_students({{"econ-101", "Cy", "AAAA-AAAA-AAAA-AAAA", {}}}), server::StoreConflict);
  REQUIRE(store.find_student_by_code("AAAA-AAAA-AAAA-AAAA"));
  CHECK(store.find_student_by_code("AAAA-AAAA-AAAA-AAAA")->student == "Ada");
  CHECK_FALSE(store.find_student_by_code("BBBB-BBBB-BBBB-BBBB"));
}

TEST_CASE("hand-ins are numbered per student, and a failed one leaves nothing behind") {
  server::Store store(fresh_db("hand-ins"));
  store.create_class(econ_101());
  store.add_students({{"econ-101", "Ada", "AAAA-AAAA-AAAA-AAAA", {}}, {"econ-101", "Ben", "BBBB-BBBB-BBBB-BBBB", {}}});
  const auto first = store.add_hand_in(hand_in_of("Ada", 60), {});
  CHECK(first.attempt == 1);
  CHECK(store.add_hand_in(hand_in_of("Ada", 70), {}).attempt == 2);
  CHECK(store.add_hand_in(hand_in_of("Ben", 50), {}).attempt == 1);

  // Ben's second hand-in flags Ada's first, then fails before its commit: neither the row nor the flag stays.
  CHECK_THROWS_AS(store.add_hand_in(hand_in_of("Ben", 90), {{first.id, "copied?"}},
                                    [] { throw std::runtime_error("the disk filled up"); }),
                  std::runtime_error);
  CHECK(store.count_rows("hand_ins") == 3);
  const auto ada = store.hand_ins("econ-101", "Ada");
  REQUIRE(ada.size() == 2);
  CHECK(ada[0].flags.empty());
  // The next one still gets the next number (nothing was taken by the failed one).
  const auto ok = store.add_hand_in(hand_in_of("Ben", 90), {{first.id, "copied?"}});
  CHECK(ok.attempt == 2);
  CHECK(store.hand_ins("econ-101", "Ada")[0].flags == std::vector<std::string>{"copied?"});
  // The raw save comes back when asked for, and only then.
  CHECK(store.hand_ins("econ-101", "Ada")[0].save_text.empty());
  CHECK(store.hand_ins("econ-101", "Ada", true)[0].save_text == "{}");
  // A hand-in needs its student on the roster (a foreign key).
  CHECK_THROWS_AS(store.add_hand_in(hand_in_of("Zed", 10), {}), server::StoreError);
  CHECK(store.count_rows("hand_ins") == 4);
}

TEST_CASE("the schema's policy constraints hold every policy sim/classroom names, and nothing else") {
  // The constraints are written in a shipped migration, which is never edited: a policy added to
  // sim/classroom needs a migration that widens them, and this test fails until it is written
  // (before, such a class would fail to store with a 500).
  server::Store store(fresh_db("policies"));
  store.create_class(econ_101());
  for (auto late : classroom::kLatePolicyNames) {
    for (auto attempts : classroom::kAttemptPolicyNames) {
      CAPTURE(late);
      CAPTURE(attempts);
      CHECK_NOTHROW(store.set_policy("econ-101", std::nullopt, std::string(late), std::string(attempts)));
    }
  }
  CHECK_THROWS_AS(store.set_policy("econ-101", std::nullopt, "forgive", "best"), server::StoreError);
  CHECK_THROWS_AS(store.set_policy("econ-101", std::nullopt, "refuse", "average"), server::StoreError);
}
