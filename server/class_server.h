// `tycoon class serve`: the class API (class_api.h) and the browser build over HTTP, one process an
// instructor starts on a machine the students can reach (cpp-httplib from Debian; threads from its
// pool, one replay at a time).
//
//   instructor (header "Authorization: Bearer TOKEN"):
//     POST /api/classes                       {"class_id", "scenario", "seed"?, "days"?, "title"?,
//                                              "locks"?, "advisor"?, "history_days"?}
//     GET  /api/classes
//     POST /api/classes/ID/roster             {"students": [names]} or text/plain, one name a line
//     PUT  /api/classes/ID/policy             {"deadline": "2026-12-11T17:00:00Z" | null,
//                                              "late": "refuse" | "mark", "attempts": "best" | "last" | "first"}
//     GET  /api/classes/ID/leaderboard
//     GET  /api/classes/ID/gradebook.csv
//     GET  /api/classes/ID/compare?a=NAME&b=NAME
//     GET  /api/classes/ID/briefing.html      printable: the briefing and a slip per student with their link
//   student (header "X-Student-Code: CODE", or ?code=CODE):
//     GET  /api/student/class                 the class, its briefing, the policy (the reference
//                                             strategy only after the deadline)
//     POST /api/student/hand-in               the save (the game's save file) as the body
//     GET  /api/student/hand-ins              the student's own hand-ins
//   everyone: GET /instructor                 the instructor's page (instructor_page.h; it asks for the token)
//             GET /... the files of --web DIR (the browser build; a student's link is /?code=CODE)
//
// Bounds: a request body of at most ServerOptions::max_body_bytes (413), at most rate_burst
// requests at once per client address, refilled at rate_per_s (429).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "sim/data/catalog.h"

namespace tycoon::server {

class Store;

// The address or port cannot be listened on (in use, not this machine's, no permission).
class ListenError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A save of the longest class game (kMaxClassDays) with a busy player stays well under this.
inline constexpr std::size_t kMaxRequestBodyBytes = 16u << 20;
// A player's page makes a few requests a minute; a burst of 30 with 5 a second after covers a
// class behind one address (a school's NAT) and stops a loop.
inline constexpr int kRateBurst = 30;
inline constexpr double kRatePerSecond = 5;

struct ServerOptions {
  std::string host = "0.0.0.0";
  int port = 8080;  // 0: a free port (ClassServer::port() says which)
  std::filesystem::path db_file = "tycoon-class.sqlite";
  std::filesystem::path web_dir;  // empty: no static files
  std::filesystem::path data_root;
  std::size_t max_body_bytes = kMaxRequestBodyBytes;
  int rate_burst = kRateBurst;
  double rate_per_s = kRatePerSecond;
  std::function<std::int64_t()> now_unix_s;  // empty: the system clock
};

class ClassServer {
 public:
  // Opens the store and binds the port. Throws StoreError (the database), ListenError (the port)
  // or std::runtime_error (a web folder without index.html) with the reason.
  ClassServer(ServerOptions options, std::shared_ptr<const data::Catalog> catalog);
  ~ClassServer();

  int port() const;
  const std::string& instructor_token() const;
  Store& store();
  // Test seam: runs inside a hand-in's transaction before it commits (throw to make it fail).
  void set_before_hand_in_commit(std::function<void()> hook);

  // Serves until stop() (blocking).
  void run();
  // Serves on a thread of its own; returns once it accepts connections.
  void start();
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tycoon::server
