// The class server over real HTTP (server/class_server.h), started in-process on a free port of
// 127.0.0.1: an instructor sets a class up, students hand in saves that are replayed exactly as
// `class report` replays a submission, copies are flagged, the deadline closes the class; and
// hostile requests (no or wrong token, a student's code where the instructor's token belongs, an
// unknown code, oversized, malformed or foreign saves, a burst) each get a clear error status
// and leave the SQLite file exactly as it was.
#include <doctest/doctest.h>

#include <httplib.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/class_server.h"
#include "server/store.h"
#include "sim/classroom/class_report.h"
#include "sim/classroom/class_spec.h"
#include "sim/classroom/hand_in.h"
#include "sim/classroom/submission.h"
#include "sim/core/input_error.h"
#include "sim/game/counterfactual.h"
#include "sim/game/save.h"
#include "tests/game_test_util.h"
#include "ui/desktop/class_client.h"

using namespace tycoon;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::int64_t kMonday = 1'796'000'000;   // the test's "now", in 2026
constexpr std::size_t kTestBodyLimit = 1u << 20;  // a day's save is ~60 kB
const std::string kModel = "gpt-oss-120b";

struct TestServer {
  fs::path dir;
  std::shared_ptr<std::atomic<std::int64_t>> now = std::make_shared<std::atomic<std::int64_t>>(kMonday);
  std::unique_ptr<server::ClassServer> srv;
  std::unique_ptr<httplib::Client> http;

  // `web_files`: a --web folder (dir/web) holding these files, each "content of NAME".
  explicit TestServer(const std::string& name, int rate_burst = 10'000, double rate_per_s = 10'000,
                      const std::vector<std::string>& web_files = {}) {
    dir = fs::temp_directory_path() / ("tycoon-serve-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    if (!web_files.empty()) {
      web_dir = dir / "web";
      fs::create_directories(web_dir);
      for (const auto& f : web_files) std::ofstream(web_dir / f) << "content of " << f;
    }
    start(rate_burst, rate_per_s);
  }
  fs::path web_dir;
  // A server on the database of `dir` (a fresh one, or the same file again after restart()).
  void start(int rate_burst = 10'000, double rate_per_s = 10'000) {
    server::ServerOptions o;
    o.host = "127.0.0.1";
    o.port = 0;
    o.db_file = dir / "class.sqlite";
    o.data_root = TYCOON_SOURCE_DIR;
    o.max_body_bytes = kTestBodyLimit;
    o.rate_burst = rate_burst;
    o.rate_per_s = rate_per_s;
    o.now_unix_s = [n = now] { return n->load(); };
    o.web_dir = web_dir;
    srv = std::make_unique<server::ClassServer>(
        o, std::shared_ptr<const data::Catalog>(&test::catalog(), [](const data::Catalog*) {}));
    srv->start();
    http = std::make_unique<httplib::Client>("127.0.0.1", srv->port());
    http->set_read_timeout(60, 0);
  }
  void restart() {
    srv.reset();
    start();
  }
  httplib::Headers instructor() const { return {{"Authorization", "Bearer " + srv->instructor_token()}}; }
  static httplib::Headers student(const std::string& code) { return {{"X-Student-Code", code}}; }
};

// Everything the store holds, as text: two equal snapshots mean nothing changed.
std::string snapshot(server::Store& store) {
  json j;
  for (const auto& c : store.classes()) {
    j["classes"].push_back({c.class_id, c.spec_json, c.deadline_unix_s.value_or(-1), c.late_policy, c.attempt_policy});
    for (const auto& s : store.students(c.class_id)) {
      j["students"].push_back({s.class_id, s.student, s.code, s.started_at_unix_s.value_or(-1)});
    }
    for (const auto& h : store.hand_ins(c.class_id, {}, true)) {
      j["hand_ins"].push_back({h.id, h.student, h.attempt, h.save_text, h.score_points, h.late, h.flags});
    }
  }
  j["settings"] = store.count_rows("settings");
  return j.dump();
}

std::vector<game::LoggedCommand> price_moves(std::vector<std::pair<std::int64_t, double>> moves) {
  std::vector<game::LoggedCommand> out;
  for (auto [h, p] : moves) out.push_back({h, game::SetPrices{kModel, std::nullopt, std::nullopt, p}});
  return out;
}

// A student's save of the class: `commands` played up to `stop_hour` (the end when absent).
std::string save_of(const classroom::ClassWorld& world, const std::vector<game::LoggedCommand>& commands,
                    std::optional<std::int64_t> stop_hour = std::nullopt) {
  auto g = world.new_game(test::catalog());
  if (stop_hour) {
    std::size_t next = 0;
    game::replay_until(*g, commands, next, *stop_hour);
  } else {
    game::replay(*g, commands);
  }
  return game::save_text(*g);
}

// Creates class econ-101 (prices-only, seed 2026, one day) with Ada, Ben and Cy; returns the
// class's world and the students' codes by name.
struct Class {
  classroom::ClassWorld world;
  std::map<std::string, std::string> codes;
};
Class set_up_class(TestServer& t) {
  auto r = t.http->Post("/api/classes", t.instructor(),
                        R"({"class_id": "econ-101", "scenario": "prices-only", "seed": 2026, "days": 1})",
                        "application/json");
  REQUIRE(r);
  REQUIRE_MESSAGE(r->status == 201, r->body);
  const auto spec = classroom::class_from_json(json::parse(r->body)["class"], "response");
  r = t.http->Post("/api/classes/econ-101/roster", t.instructor(), "Ada\nBen\nCy\n", "text/plain");
  REQUIRE(r);
  REQUIRE_MESSAGE(r->status == 201, r->body);
  Class c{classroom::class_world(spec, "response", test::catalog(), TYCOON_SOURCE_DIR), {}};
  const auto roster = json::parse(r->body);
  for (const auto& s : roster["students"]) {
    c.codes[s["student"].get<std::string>()] = s["code"].get<std::string>();
  }
  REQUIRE(c.codes.size() == 3);
  return c;
}

// The response's error reason; fails the check when the status is not `status`.
std::string refused(const httplib::Result& r, int status) {
  REQUIRE(r);
  CHECK_MESSAGE(r->status == status, r->body);
  const auto j = json::parse(r->body, nullptr, false);
  REQUIRE_MESSAGE(j.is_object(), r->body);
  REQUIRE(j.contains("error"));
  return j["error"].get<std::string>();
}

}  // namespace

TEST_CASE("a hand-in counts with the score class report gives the same game") {
  TestServer t("report");
  auto cls = set_up_class(t);
  const auto ada_moves = price_moves({{0, 0.17}, {6, 0.18}, {12, 0.16}, {18, 0.175}});
  auto r = t.http->Post("/api/student/hand-in", TestServer::student(cls.codes["Ada"]), save_of(cls.world, ada_moves),
                        "application/json");
  REQUIRE(r);
  REQUIRE_MESSAGE(r->status == 201, r->body);
  const auto got = json::parse(r->body);
  CHECK(got["attempt"] == 1);
  CHECK(got["finished"] == true);

  // The report's path: a submission of the same commands, checked and ranked by build_class_report.
  auto g = classroom::play_class_game(cls.world, test::catalog(), ada_moves);
  const auto cf = game::run_counterfactuals(g->scenario(), g->state(), test::catalog(), cls.world.options.windows);
  const auto dir = t.dir / "subs";
  fs::create_directories(dir);
  std::ofstream(dir / "ada.json") << classroom::submission_text(classroom::make_submission(cls.world, *g, cf, "Ada"));
  const auto report = classroom::build_class_report(cls.world, test::catalog(), {dir / "ada.json"});
  REQUIRE(report.valid.size() == 1);
  // Same binary, same seed, same commands: the same doubles (no tolerance).
  CHECK(got["score"].get<double>() == report.valid[0].summary.score.points);
  CHECK(got["profit_usd"].get<double>() == report.valid[0].summary.profit_usd);
  CHECK(got["slo_attainment"].get<double>() == report.valid[0].summary.slo_attainment);

  // The instructor's views: Ada ranked, Ben and Cy not handed in; the gradebook row.
  r = t.http->Get("/api/classes/econ-101/leaderboard", t.instructor());
  REQUIRE(r);
  REQUIRE(r->status == 200);
  const auto board = json::parse(r->body);
  REQUIRE(board["standings"].size() == 1);
  CHECK(board["standings"][0]["student"] == "Ada");
  CHECK(board["not_handed_in"].size() == 2);
  r = t.http->Get("/api/classes/econ-101/gradebook.csv", t.instructor());
  REQUIRE(r);
  CHECK(r->status == 200);
  CHECK(r->body.rfind("student,score,stars,profit_usd,slo_attainment,finished,late,", 0) == 0);
  CHECK(r->body.find("\nAda,") != std::string::npos);
  CHECK(r->body.find("\nBen,,,,,,,,,\n") != std::string::npos);

  // The printable briefing: the scenario and a slip per student with their own link.
  r = t.http->Get("/api/classes/econ-101/briefing.html", t.instructor());
  REQUIRE(r);
  CHECK(r->status == 200);
  CHECK(r->body.find(cls.world.scenario.name) != std::string::npos);
  CHECK(r->body.find("the best attempt counts") != std::string::npos);  // classroom::policy_sentence
  for (const auto& [name, code] : cls.codes) CHECK(r->body.find("/?code=" + code) != std::string::npos);
  refused(t.http->Get("/api/classes/econ-101/briefing.html", TestServer::student(cls.codes["Ada"])), 401);
}

TEST_CASE("an unfinished game is handed in as unfinished and never outranks a finished one") {
  TestServer t("unfinished");
  auto cls = set_up_class(t);
  // Cy stops at hour 6 after a good price; Ben plays the day out doing nothing.
  const auto good = price_moves({{0, 0.1725}});
  auto r = t.http->Post("/api/student/hand-in", TestServer::student(cls.codes["Cy"]), save_of(cls.world, good, 6),
                        "application/json");
  REQUIRE(r);
  REQUIRE_MESSAGE(r->status == 201, r->body);
  CHECK(json::parse(r->body)["finished"] == false);
  CHECK(json::parse(r->body)["at_hour"] == 6);
  r = t.http->Post("/api/student/hand-in", TestServer::student(cls.codes["Ben"]), save_of(cls.world, {}),
                   "application/json");
  REQUIRE(r);
  REQUIRE_MESSAGE(r->status == 201, r->body);
  r = t.http->Get("/api/classes/econ-101/leaderboard", t.instructor());
  REQUIRE(r);
  const auto board = json::parse(r->body);
  REQUIRE(board["standings"].size() == 2);
  CHECK(board["standings"][0]["student"] == "Ben");
  CHECK(board["standings"][1]["counted"]["finished"] == false);
}

TEST_CASE("near-identical command logs from two students are flagged on both sides") {
  TestServer t("copies");
  auto cls = set_up_class(t);
  const auto ada = price_moves({{0, 0.17}, {6, 0.18}, {12, 0.16}, {18, 0.175}});
  const auto ben = ada;                                            // a copy
  const auto cy = price_moves({{0, 0.15}, {8, 0.2}, {16, 0.19}});  // her own
  for (auto [name, moves] : {std::pair{"Ada", ada}, std::pair{"Ben", ben}, std::pair{"Cy", cy}}) {
    auto r = t.http->Post("/api/student/hand-in", TestServer::student(cls.codes[name]), save_of(cls.world, moves),
                          "application/json");
    REQUIRE(r);
    REQUIRE_MESSAGE(r->status == 201, r->body);
  }
  const auto flags_of = [&](const std::string& s) { return t.srv->store().hand_ins("econ-101", s).at(0).flags; };
  REQUIRE(flags_of("Ben").size() == 1);
  CHECK(flags_of("Ben")[0].find("Ada's attempt 1") != std::string::npos);
  REQUIRE(flags_of("Ada").size() == 1);
  CHECK(flags_of("Ada")[0].find("Ben's later hand-in") != std::string::npos);
  CHECK(flags_of("Cy").empty());
  auto r = t.http->Get("/api/classes/econ-101/compare?a=Ada&b=Ben", t.instructor());
  REQUIRE(r);
  REQUIRE(r->status == 200);
  CHECK(json::parse(r->body)["command_similarity"] == 1.0);
}

TEST_CASE("the deadline closes the class, and the answer key appears only after it") {
  TestServer t("deadline");
  auto cls = set_up_class(t);
  const auto code = cls.codes["Ada"];
  auto r =
      t.http->Put("/api/classes/econ-101/policy", t.instructor(),
                  R"({"deadline": "2026-12-01T12:00:00Z", "late": "refuse", "attempts": "last"})", "application/json");
  REQUIRE(r);
  REQUIRE_MESSAGE(r->status == 200, r->body);
  const std::int64_t deadline = classroom::parse_utc_time("2026-12-01T12:00:00Z");
  t.now->store(deadline - 60);
  r = t.http->Get("/api/student/class", TestServer::student(code));
  REQUIRE(r);
  REQUIRE(r->status == 200);
  CHECK_FALSE(json::parse(r->body).contains("reference_strategy"));
  CHECK(json::parse(r->body)["policy"]["attempts"] == "last");

  t.now->store(deadline + 1);
  r = t.http->Get("/api/student/class", TestServer::student(code));
  REQUIRE(r);
  CHECK(json::parse(r->body).contains("reference_strategy"));
  const auto before = snapshot(t.srv->store());
  CHECK(refused(
            t.http->Post("/api/student/hand-in", TestServer::student(code), save_of(cls.world, {}), "application/json"),
            403)
            .find("deadline") != std::string::npos);
  CHECK(snapshot(t.srv->store()) == before);

  // Marked late instead, when the instructor says so.
  r = t.http->Put("/api/classes/econ-101/policy", t.instructor(), R"({"late": "mark"})", "application/json");
  REQUIRE(r);
  REQUIRE(r->status == 200);
  r = t.http->Post("/api/student/hand-in", TestServer::student(code), save_of(cls.world, {}), "application/json");
  REQUIRE(r);
  REQUIRE_MESSAGE(r->status == 201, r->body);
  CHECK(json::parse(r->body)["late"] == true);
}

TEST_CASE("hostile requests get a clear error and change nothing in the database") {
  TestServer t("hostile");
  auto cls = set_up_class(t);
  const auto ada = cls.codes["Ada"];
  auto r = t.http->Post("/api/student/hand-in", TestServer::student(ada), save_of(cls.world, {}), "application/json");
  REQUIRE(r);
  REQUIRE(r->status == 201);
  const auto before = snapshot(t.srv->store());
  const std::string save = save_of(cls.world, price_moves({{0, 0.2}}));

  // No token, a wrong one, a student's code as the token: no class, no roster, no standings.
  const std::string new_class = R"({"class_id": "evil", "scenario": "prices-only"})";
  CHECK(refused(t.http->Post("/api/classes", new_class, "application/json"), 401).find("token") != std::string::npos);
  CHECK(refused(t.http->Post("/api/classes", {{"Authorization", "Bearer nope"}}, new_class, "application/json"), 401) ==
        "wrong instructor token");
  refused(t.http->Post("/api/classes", {{"Authorization", "Bearer " + ada}}, new_class, "application/json"), 401);
  refused(t.http->Post("/api/classes/econ-101/roster", {{"Authorization", "Bearer x"}}, "Mallory\n", "text/plain"),
          401);
  refused(t.http->Get("/api/classes/econ-101/leaderboard", TestServer::student(ada)), 401);
  refused(t.http->Get("/api/classes/econ-101/gradebook.csv"), 401);
  refused(t.http->Put("/api/classes/econ-101/policy", {{"Authorization", "Bearer x"}}, R"({"deadline": null})",
                      "application/json"),
          401);
  // Student codes: unknown, malformed, and the instructor's token where a code belongs.
  refused(t.http->Post("/api/student/hand-in", TestServer::student("ZZZZ-ZZZZ-ZZZZ-ZZZZ"), save, "application/json"),
          401);
  refused(
      t.http->Post("/api/student/hand-in", TestServer::student("'; DROP TABLE hand_ins; --"), save, "application/json"),
      401);
  refused(t.http->Get("/api/student/hand-ins", TestServer::student(t.srv->instructor_token())), 401);
  // A student sees their own hand-ins only: Ada her one, Ben none of hers.
  r = t.http->Get("/api/student/hand-ins", TestServer::student(ada));
  REQUIRE(r);
  CHECK(json::parse(r->body)["hand_ins"].size() == 1);
  CHECK(json::parse(r->body)["student"] == "Ada");
  r = t.http->Get("/api/student/hand-ins?code=" + cls.codes["Ben"]);
  REQUIRE(r);
  CHECK(json::parse(r->body)["student"] == "Ben");
  CHECK(json::parse(r->body)["hand_ins"].empty());
  refused(t.http->Get("/api/classes/econ-101/compare?a=Ada&b=Ben", TestServer::student(cls.codes["Ben"])), 401);
  // Malformed and foreign saves.
  CHECK(refused(t.http->Post("/api/student/hand-in", TestServer::student(ada), "{not json", "application/json"), 400)
            .find("not a save") != std::string::npos);
  refused(t.http->Post("/api/student/hand-in", TestServer::student(ada), save.substr(0, save.size() / 2),
                       "application/json"),
          400);
  std::string edited = save;
  edited.replace(edited.find("\"seed\""), 6, "\"seeD\"");
  refused(t.http->Post("/api/student/hand-in", TestServer::student(ada), edited, "application/json"), 400);
  {
    auto other = cls.world;
    other.spec.seed = 7;
    other.scenario.seed = 7;
    other.options.seed = 7;
    CHECK(
        refused(t.http->Post("/api/student/hand-in", TestServer::student(ada), save_of(other, {}), "application/json"),
                422)
            .find("seed 7, the class plays seed 2026") != std::string::npos);
  }
  // Bad instructor input.
  refused(t.http->Post("/api/classes", t.instructor(), "[1, 2", "application/json"), 400);
  CHECK(refused(t.http->Post("/api/classes", t.instructor(), R"({"class_id": "x", "scenario": "../../etc/passwd"})",
                             "application/json"),
                400)
            .find("/scenario") != std::string::npos);
  CHECK(refused(t.http->Post("/api/classes", t.instructor(), R"({"class_id": "econ-101", "scenario": "prices-only"})",
                             "application/json"),
                409)
            .find("exists") != std::string::npos);
  refused(t.http->Post("/api/classes/econ-101/roster", t.instructor(), "Dan\nAda\n", "text/plain"), 409);
  CHECK(refused(t.http->Post("/api/classes/econ-101/roster", t.instructor(), "Dan\n ada \n", "text/plain"), 409)
            .find("the same student as 'Ada'") != std::string::npos);
  refused(t.http->Post("/api/classes/econ-101/roster", t.instructor(), R"({"students": [1]})", "application/json"),
          400);
  CHECK(refused(
            t.http->Put("/api/classes/econ-101/policy", t.instructor(), R"({"attempts": "most"})", "application/json"),
            400)
            .find("best, last or first") != std::string::npos);
  refused(
      t.http->Put("/api/classes/econ-101/policy", t.instructor(), R"({"deadline": "next friday"})", "application/json"),
      400);
  refused(t.http->Get("/api/classes/nope/leaderboard", t.instructor()), 404);
  // An id no class could have (not data::is_safe_id) is no class either, never a file name.
  refused(t.http->Get("/api/classes/Econ%20101%22/gradebook.csv", t.instructor()), 404);
  // An oversized body is refused before it is read.
  CHECK(refused(t.http->Post("/api/student/hand-in", TestServer::student(ada), std::string(kTestBodyLimit + 1, ' '),
                             "application/json"),
                413)
            .find("over") != std::string::npos);
  CHECK(snapshot(t.srv->store()) == before);
}

TEST_CASE("the instructor's page is served to anyone and holds no data of its own") {
  TestServer t("page");
  auto r = t.http->Get("/instructor");
  REQUIRE(r);
  CHECK(r->status == 200);
  CHECK(r->get_header_value("Content-Type").rfind("text/html", 0) == 0);
  CHECK(r->body.find("/api/classes") != std::string::npos);
  // The token is never in the page: it comes from the URL's fragment or is typed.
  CHECK(r->body.find(t.srv->instructor_token()) == std::string::npos);
  // Its policy choices are sim/classroom's names, the default first: what the API parses.
  const auto attempts_at = r->body.find("<select id=\"attempts\">");
  REQUIRE(attempts_at != std::string::npos);
  CHECK(r->body.compare(attempts_at + 22, 34, "<option value=\"best\">best</option>") == 0);
  for (auto name : classroom::kAttemptPolicyNames) {
    CHECK(r->body.find("<option value=\"" + std::string(name) + "\">") != std::string::npos);
  }
  for (auto name : classroom::kLatePolicyNames) {
    CHECK(r->body.find("<option value=\"" + std::string(name) + "\">") != std::string::npos);
  }
  CHECK(r->body.find('@') == std::string::npos);  // every slot filled
  CHECK(refused(t.http->Get("/no-such-page"), 404) == "no such page");
}

TEST_CASE("a second server on a port in use is refused, not sharing it") {
  TestServer first("port-a");
  server::ServerOptions o;
  o.host = "127.0.0.1";
  o.port = first.srv->port();
  o.db_file = first.dir / "other.sqlite";
  o.data_root = TYCOON_SOURCE_DIR;
  const std::string why = "cannot listen on 127.0.0.1:" + std::to_string(o.port);
  CHECK_THROWS_WITH_AS(
      server::ClassServer(o, std::shared_ptr<const data::Catalog>(&test::catalog(), [](const data::Catalog*) {})),
      doctest::Contains(why.c_str()), server::ListenError);
}

TEST_CASE("a burst of requests from one client is cut off with 429 and stores nothing") {
  constexpr int kBurst = 10;
  TestServer t("burst", kBurst, 0.5);  // half a request a second after the burst
  const auto before = snapshot(t.srv->store());
  int ok = 0, limited = 0;
  for (int i = 0; i < 3 * kBurst; ++i) {
    auto r = t.http->Post("/api/classes", R"({"class_id": "x", "scenario": "prices-only"})", "application/json");
    REQUIRE(r);
    if (r->status == 429) {
      ++limited;
      CHECK(json::parse(r->body)["error"].get<std::string>().find("too many requests") != std::string::npos);
    } else {
      CHECK(r->status == 401);  // no token: refused, but not limited
      ++ok;
    }
  }
  // The first kBurst pass the limiter (the refill over the loop adds at most a request or two).
  CHECK(ok >= kBurst);
  CHECK(ok <= kBurst + 2);
  CHECK(limited == 3 * kBurst - ok);
  CHECK(snapshot(t.srv->store()) == before);
}

TEST_CASE("the browser build's own files are served to a class at once; the rest of its folder is not") {
  // A class behind one address opens its links together: five files each. The limiter is the
  // API's; the build folder's other files (CMakeCache.txt, compile_commands.json) are no page.
  TestServer t("web", 2, 0.01, {"index.html", "index.js", "CMakeCache.txt"});
  auto& http = *t.http;
  for (int i = 0; i < 20; ++i) {
    auto r = http.Get("/index.js");
    REQUIRE(r);
    CHECK(r->status == 200);
  }
  auto page = http.Get("/");
  REQUIRE(page);
  CHECK(page->body == "content of index.html");
  CHECK(refused(http.Get("/CMakeCache.txt"), 404) == "no such page");
  CHECK(refused(http.Get("/class.sqlite"), 404) == "no such page");
  // The API still is limited: two, then 429.
  CHECK(http.Get("/api/classes")->status == 401);
  CHECK(http.Get("/api/classes")->status == 401);
  CHECK(http.Get("/api/classes")->status == 429);
}

TEST_CASE("the instructor's charts are the class report's, drawn from the counted hand-ins") {
  TestServer t("charts");
  auto cls = set_up_class(t);
  // Ada plays the day with two price moves, Ben copies her, Cy stops at hour 6.
  const auto moves = price_moves({{0, 0.17}, {12, 0.18}});
  for (const auto& [who, stop] :
       {std::pair<std::string, std::optional<std::int64_t>>{"Ada", std::nullopt}, {"Ben", std::nullopt}, {"Cy", 6}}) {
    auto r = t.http->Post("/api/student/hand-in", TestServer::student(cls.codes[who]), save_of(cls.world, moves, stop),
                          "application/json");
    REQUIRE(r);
    REQUIRE_MESSAGE(r->status == 201, r->body);
  }
  auto r = t.http->Get("/api/classes/econ-101/charts.html", t.instructor());
  REQUIRE(r);
  REQUIRE_MESSAGE(r->status == 200, r->body);
  const std::string html = r->body;
  CHECK(html.find("<svg") != std::string::npos);
  CHECK(html.find("Ada = Ben") != std::string::npos);           // the copy's line named with the original's
  CHECK(html.find("Cy (stopped at h6)") != std::string::npos);  // an unfinished game's line says where it stopped
  // prices-only starts at the market price: doing nothing keeps it, so the two lines are one.
  CHECK(html.find(">Had you done nothing = Market price</text>") != std::string::npos);
  // prices-only locks the fleet: every run holds the same GPUs, so that chart is left out with why.
  CHECK(html.find("Not shown: GPUs rented") != std::string::npos);
  // A one-day class: the hour axis ends at 24, not at a rounder number past the game.
  CHECK(html.find(">24</text>") != std::string::npos);
  CHECK(html.find(">30</text>") == std::string::npos);
  refused(t.http->Get("/api/classes/econ-101/charts.html", TestServer::student(cls.codes["Ada"])), 401);

  // The whole class report, as `tycoon class report` writes it, of the counted hand-ins: the
  // answer key for the instructor (the reference strategy), Cy's game named unfinished, and the
  // worst run to discuss a finished one. A student's code cannot read it.
  r = t.http->Get("/api/classes/econ-101/report.html", t.instructor());
  REQUIRE(r);
  REQUIRE_MESSAGE(r->status == 200, r->body);
  CHECK(r->body.find(cls.world.scenario.reference_strategy->description.substr(0, 30)) != std::string::npos);
  CHECK(r->body.find("Cy (unfinished: stopped at h6)") != std::string::npos);
  CHECK(r->body.find("Ada") != std::string::npos);
  refused(t.http->Get("/api/classes/econ-101/report.html", TestServer::student(cls.codes["Cy"])), 401);

  // A restarted server draws the same charts, replaying the stored saves.
  t.restart();
  r = t.http->Get("/api/classes/econ-101/charts.html", t.instructor());
  REQUIRE(r);
  REQUIRE_MESSAGE(r->status == 200, r->body);
  CHECK(r->body == html);
}

TEST_CASE("the desktop game hands the game on screen in to the server of a student link") {
  TestServer t("desktop");
  auto cls = set_up_class(t);
  const std::string link = "http://127.0.0.1:" + std::to_string(t.srv->port()) + "/?code=" + cls.codes["Ada"];
  REQUIRE(ui::desktop::is_student_link(link));
  const auto parsed = ui::desktop::parse_student_link(link);
  CHECK(parsed.host == "127.0.0.1");
  CHECK(parsed.port == t.srv->port());
  CHECK(parsed.code == cls.codes["Ada"]);

  // The class comes from the server: its link query starts the same world as the class's.
  const auto answer = ui::desktop::fetch_student_class(parsed);
  REQUIRE_MESSAGE(answer.ok, answer.error);
  CHECK(answer.body["student"] == "Ada");
  const auto q = classroom::parse_class_link(answer.body["link_query"].get<std::string>());
  const auto scenario = game::load_scenario(game::find_scenario(q.scenario, TYCOON_SOURCE_DIR), test::catalog());
  const auto world =
      classroom::class_world(classroom::make_class(scenario, q.choices), "link", test::catalog(), TYCOON_SOURCE_DIR);
  CHECK(world.spec.seed == cls.world.spec.seed);

  // The game on screen, played by hand: 6 hours, then the rest of the day.
  auto g = world.new_game(test::catalog());
  const auto moves = price_moves({{0, 0.17}, {12, 0.18}});
  std::size_t next = 0;
  game::replay_until(*g, moves, next, 6);
  auto on_screen = [&g](bool with_text) -> std::optional<ui::desktop::GameOnScreen> {
    return ui::desktop::GameOnScreen{g->state().hour, g->state().end_hour, g->finished(),
                                     with_text ? game::save_text(*g) : std::string()};
  };
  ui::desktop::HandInClient client(parsed, on_screen);

  // On demand, unfinished: handed in as it stands, and marked so.
  client.poll();  // a game under way is not handed in by itself
  CHECK_FALSE(client.busy());
  REQUIRE(client.hand_in());
  client.wait();
  REQUIRE_MESSAGE(client.last_ok(), client.message());
  CHECK(client.last_answer()->body["finished"] == false);
  CHECK(client.last_answer()->body["at_hour"] == 6);
  CHECK(client.message().rfind("Handed in (attempt 1, unfinished at hour 6 of ", 0) == 0);

  // At the end, by itself, once.
  game::replay_until(*g, moves, next, g->state().end_hour);
  REQUIRE(g->finished());
  client.poll();
  REQUIRE(client.busy());
  client.wait();
  REQUIRE_MESSAGE(client.last_ok(), client.message());
  CHECK(client.last_answer()->body["attempt"] == 2);
  CHECK(client.last_answer()->body["finished"] == true);
  client.poll();
  CHECK_FALSE(client.busy());
  CHECK(client.num_handed_in() == 2);

  // The server scored the game on screen: the same figures the browser's request (the save's text)
  // gets for the same game.
  const auto replayed = t.http->Post("/api/student/hand-in", TestServer::student(cls.codes["Ben"]), game::save_text(*g),
                                     "application/json");
  REQUIRE(replayed);
  REQUIRE(replayed->status == 201);
  CHECK(json::parse(replayed->body)["score"] == client.last_answer()->body["score"]);
  CHECK(json::parse(replayed->body)["profit_usd"] == client.last_answer()->body["profit_usd"]);
}

TEST_CASE("a bad student link, an unknown code and an unreachable server are refused with the reason") {
  using ui::desktop::parse_student_link;
  CHECK_THROWS_WITH_AS(parse_student_link("http://127.0.0.1:8080/"), doctest::Contains("has no code"),
                       core::InputError);
  CHECK_THROWS_WITH_AS(parse_student_link("http://127.0.0.1:99999/?code=ABCD"), doctest::Contains("port '99999'"),
                       core::InputError);
  CHECK_THROWS_WITH_AS(parse_student_link("https://example.org/?code=ABCD"), doctest::Contains("speaks http://"),
                       core::InputError);
  CHECK_THROWS_WITH_AS(parse_student_link("127.0.0.1:8080/?code=ABCD"), doctest::Contains("must start with http://"),
                       core::InputError);
  CHECK_FALSE(ui::desktop::is_student_link("class=econ-101&scenario=prices-only&seed=2026"));
  CHECK(parse_student_link("http://class.example.org/play?x=1&code=ab12-cd34").port == 80);

  TestServer t("desktop-bad");
  (void)set_up_class(t);
  auto a = ui::desktop::fetch_student_class(
      parse_student_link("http://127.0.0.1:" + std::to_string(t.srv->port()) + "/?code=AAAA-BBBB-CCCC-DDDD"));
  CHECK_FALSE(a.ok);
  CHECK(a.status == 401);
  CHECK(a.error == "that is no student's code on this server");
  const int port = t.srv->port();
  t.srv.reset();  // the server has gone
  a = ui::desktop::post_hand_in(parse_student_link("http://127.0.0.1:" + std::to_string(port) + "/?code=X"), "{}");
  CHECK_FALSE(a.ok);
  CHECK(a.status == 0);
  CHECK(a.error.find("did not answer") != std::string::npos);
}
