// The class server's API without the transport: each call takes what the HTTP layer read from a
// request (who asks, the path's class, the body) and returns a status and a body. HTTP routing,
// tokens, body limits and rate limits are class_server.cpp's; the rules about a class are
// sim/classroom's; this file joins the two to the store.
//
// Errors are {"error": "<reason>"} with the status that says what went wrong: 400 bad input (the
// reason names the field), 401 no or wrong token or code, 403 closed (the deadline), 404 no such
// class or student, 409 exists already, 422 a save that is not a game of the class (the reason
// says how), 500 the server's own failure (nothing stored).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "server/store.h"
#include "sim/classroom/class_charts.h"
#include "sim/classroom/class_report.h"
#include "sim/classroom/class_spec.h"
#include "sim/data/catalog.h"

namespace tycoon::server {

struct ApiResponse {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
};

// An error response: {"error": reason}.
ApiResponse api_error(int status, const std::string& reason);

class ClassApi {
 public:
  // `now_unix_s` is the server's clock (tests set their own); `random_word` draws the codes.
  ClassApi(Store& store, std::shared_ptr<const data::Catalog> catalog, std::filesystem::path data_root,
           std::function<std::int64_t()> now_unix_s, std::function<std::uint64_t()> random_word);

  // Instructor calls (the caller has checked the token).
  ApiResponse create_class(const std::string& body);
  ApiResponse list_classes();
  ApiResponse add_roster(const std::string& class_id, const std::string& body, const std::string& content_type);
  ApiResponse set_policy(const std::string& class_id, const std::string& body);
  ApiResponse leaderboard(const std::string& class_id);
  ApiResponse gradebook_csv(const std::string& class_id);
  // The class report's charts (classroom::class_charts) of the counted hand-ins, in standings
  // order, as an HTML fragment of inline SVG; unfinished games' lines stop at their last hour.
  ApiResponse charts_html(const std::string& class_id);
  // The whole class report (`tycoon class report`'s HTML: standings, the benchmarks, the runs to
  // discuss with what to try next, the reference strategy, advice calls against the truth) of the
  // counted hand-ins: the instructor's debrief, answer key included.
  ApiResponse report_html(const std::string& class_id);
  ApiResponse compare(const std::string& class_id, const std::string& student_a, const std::string& student_b);
  // A printable page: the class's briefing (scenario, question, briefing, locks, deadline and
  // policy) and a slip per student with their link (`base_url` + "/?code=…").
  ApiResponse briefing_html(const std::string& class_id, const std::string& base_url);

  // Student calls: `code` as the student typed or the link carried it (any case, with or without
  // '-'). 401 when it is no student's.
  ApiResponse student_class(const std::string& code);
  ApiResponse hand_in(const std::string& code, const std::string& save_text);
  ApiResponse student_hand_ins(const std::string& code);

  // Test seam: runs inside the hand-in's transaction, before it commits.
  std::function<void()> before_hand_in_commit;

 private:
  struct ClassContext {
    classroom::ClassWorld world;
    classroom::ClassBenchmarks benchmarks;
  };
  // The class's world and benchmarks, played once and kept (a hand-in's replay needs both).
  std::shared_ptr<const ClassContext> context(const ClassRecord& c);
  std::optional<StudentRecord> student_of(const std::string& code);
  bool deadline_passed(const ClassRecord& c) const;

  Store& store_;
  std::shared_ptr<const data::Catalog> catalog_;
  std::filesystem::path data_root_;
  std::function<std::int64_t()> now_unix_s_;
  std::function<std::uint64_t()> random_word_;
  std::mutex sim_mutex_;  // one replay at a time: the class worlds share their serving-window caches
  std::map<std::string, std::shared_ptr<const ClassContext>> contexts_;
  // Each hand-in's replay (its charts' lines and its report row), by hand-in id (a stored hand-in
  // never changes): kept from its replay when it arrives, replayed from its save when the server
  // started after it.
  std::map<std::int64_t, classroom::CheckedSubmission> replays_;
  const classroom::CheckedSubmission& replay_of(const ClassContext& ctx, const HandInRecord& h);
  // The counted hand-ins of a class in standings order.
  std::vector<HandInRecord> counted_in_order(const ClassRecord& c);
};

}  // namespace tycoon::server
