// A student's side of the class server, for the desktop game: the link the instructor hands out
// (http://host:port/?code=CODE, the browser's link) read into the server's address and the code,
// the class fetched from the server (GET /api/student/class), and the game on screen handed in
// (POST /api/student/hand-in with X-Student-Code, the save file's text as the body: the request
// the browser sends) on demand and once when it ends. The server replays and scores every
// hand-in; an unfinished game is handed in as it stands and the server marks it unfinished.
#pragma once

#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sim/classroom/hand_in.h"

namespace tycoon::ui::desktop {

struct StudentLink {
  std::string scheme = "http";
  std::string host;
  int port = 80;
  std::string code;

  std::string base_url() const;  // "http://host:port"
};

// Whether `link` is a class server's student link (http:// or https:// with a code) rather than a
// class link's query string (class=...&scenario=...).
bool is_student_link(std::string_view link);

// Reads "http://host[:port][/]?code=CODE" (any path, other parameters ignored). Throws
// core::InputError saying what is missing: the scheme (http or https), the host, a port that is
// not 1..65535, or the code.
StudentLink parse_student_link(std::string_view link);

// What the server answered: ok for a 2xx; the body's JSON (an object); `error` when not ok (the
// server's reason, or why it could not be reached).
struct ServerAnswer {
  bool ok = false;
  int status = 0;  // 0: no answer
  nlohmann::json body = nlohmann::json::object();
  std::string error;
};

// Blocking calls to the server of a student link (timeouts: 10 s to connect, 120 s to read: the
// server replays the game before it answers).
ServerAnswer fetch_student_class(const StudentLink& link);
ServerAnswer post_hand_in(const StudentLink& link, const std::string& save_text);

// The game a hand-in takes: what the app has on screen now.
struct GameOnScreen {
  std::int64_t hour = 0, end_hour = 0;
  bool finished = false;
  std::string save_text;
};

// Hands the game on screen in, off the frame thread: hand_in() on demand, poll() every frame
// (collects the answer; hands a game that has just finished in by itself, once). `game` returns the
// game on screen (nothing on the start screen); `post` is post_hand_in unless a test replaces it.
class HandInClient {
 public:
  using GameSource = std::function<std::optional<GameOnScreen>(bool with_text)>;
  using Post = std::function<ServerAnswer(const StudentLink&, const std::string&)>;
  HandInClient(StudentLink link, GameSource game, Post post = post_hand_in);

  // Starts a hand-in of the game on screen; false (and message() says why) while one is under
  // way or with no game on screen.
  bool hand_in();
  // Collects a finished hand-in's answer; starts the end's hand-in when the game has just finished.
  void poll();
  bool busy() const { return pending_.valid(); }
  // The last hand-in's outcome for the player ("Handed in (attempt 2, unfinished at hour 32): ...").
  const std::string& message() const { return message_; }
  bool last_ok() const { return last_ok_; }
  const std::optional<ServerAnswer>& last_answer() const { return last_; }
  int num_handed_in() const { return num_handed_in_; }
  const StudentLink& link() const { return link_; }
  // Waits for the hand-in under way (tests, exit).
  void wait();

 private:
  void collect();

  StudentLink link_;
  GameSource game_;
  Post post_;
  std::future<ServerAnswer> pending_;
  std::optional<ServerAnswer> last_;
  std::string message_;
  bool last_ok_ = false;
  classroom::EndOfGameHandIn end_;
  int num_handed_in_ = 0;
};

// The player's line for a server's answer to a hand-in.
std::string hand_in_message(const ServerAnswer& a);

}  // namespace tycoon::ui::desktop
