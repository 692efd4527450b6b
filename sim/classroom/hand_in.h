// A hand-in to a class server: a student's saved game, checked against the class's world before
// anything else happens to it, and the rules the server applies to a class's hand-ins — which
// attempt counts (best, last or first), whether a hand-in after the deadline is refused or marked
// late, and when two students' command logs are so alike that the instructor should look.
// The server (server/) only stores and transports; every rule about a hand-in is here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/classroom/class_spec.h"
#include "sim/core/input_error.h"
#include "sim/game/command.h"
#include "sim/game/save.h"

namespace tycoon::classroom {

// Why a game of `scenario` at `state` was not played in `world`'s class (empty when it was): another
// scenario, seed or length, other locks, or another history before hour 0. `make_submission` and the server's hand-in
// share it.
std::string class_game_problem(const ClassWorld& world, const game::Scenario& scenario, const game::GameState& state);

// A save handed in, as the server keeps and scores it.
struct HandIn {
  std::vector<game::LoggedCommand> commands;  // the save's command log: what is replayed
  std::int64_t at_hour = 0;                   // the hour the student had reached
  std::int64_t end_hour = 0;                  // the class's last hour
  bool finished = false;                      // the game had ended (its last hour, or bankruptcy)
};

// The hour a hand-in's game stopped at when it was handed in unfinished (replay_submission scores
// it on the share played); nullopt for a finished game.
inline std::optional<std::int64_t> stopped_at_hour(bool finished, std::int64_t at_hour) {
  return finished ? std::nullopt : std::optional<std::int64_t>(at_hour);
}

// A save that loads but is not a game of the class (another seed, scenario, length, locks or
// version of the scenario).
class NotThisClassError : public core::InputError {
 public:
  using core::InputError::InputError;
};

// Reads `save_text` (a game::save_text file, the browser's exported save) and checks it against the
// class: it must load (game::load_save_text: format, checksum, contents; else core::InputError),
// be a game of the class (class_game_problem) and of the class's version of the scenario (the
// whole scenario as a new game of the class holds it, by scenario_hash; else NotThisClassError).
// The reason names what differs ("the save is a game of seed 7, the class plays seed 2026"),
// never the save's content.
HandIn hand_in_from_save(const ClassWorld& world, const data::Catalog& catalog, std::string_view save_text);
// A hand-in's command log is replayed and compared with every classmate's: longer than this it is
// refused (core::InputError). A week of play by hand is a few hundred commands.
inline constexpr std::size_t kMaxHandInCommands = 10'000;
// The same checks on a save already loaded (`class submit --save` loads it from its file).
HandIn hand_in_from_save(const ClassWorld& world, const data::Catalog& catalog, game::SaveData saved);

// Which of a student's attempts counts.
enum class AttemptPolicy { kBest, kLast, kFirst };
inline constexpr std::string_view kAttemptPolicyNames[] = {"best", "last", "first"};
// A new class's policies until the instructor sets others.
inline constexpr AttemptPolicy kDefaultAttemptPolicy = AttemptPolicy::kBest;
std::string_view to_string(AttemptPolicy p);
// Throws core::InputError naming the accepted words.
AttemptPolicy parse_attempt_policy(std::string_view word);

// What happens to a hand-in after the class's deadline.
enum class LatePolicy { kRefuse, kMark };
inline constexpr std::string_view kLatePolicyNames[] = {"refuse", "mark"};
inline constexpr LatePolicy kDefaultLatePolicy = LatePolicy::kRefuse;
std::string_view to_string(LatePolicy p);
LatePolicy parse_late_policy(std::string_view word);
// Whether a class's deadline (seconds since 1970, UTC) has passed at `now_unix_s`: strictly after
// it (a hand-in in the deadline's own second is on time). No deadline: never.
bool deadline_passed(std::optional<std::int64_t> deadline_unix_s, std::int64_t now_unix_s);
// Whether a hand-in at `now_unix_s` is refused under `late` (after the deadline, refuse).
bool hand_in_refused(LatePolicy late, std::optional<std::int64_t> deadline_unix_s, std::int64_t now_unix_s);

// When a class game's end is handed in by itself, in the browser and the desktop game alike: once
// the game on screen has finished and has not been handed in since it finished. A hand-in of the
// finished game by the player's button is the end's hand-in; a game under way (a new game, "play
// again") has its end still to hand in. The front end polls `due` and calls `sent` with every
// hand-in it sends, by the button or because `due` said so.
class EndOfGameHandIn {
 public:
  // `game_finished`: whether the game on screen has finished (nullopt: no game on screen).
  bool due(std::optional<bool> game_finished) {
    if (game_finished && !*game_finished) handed_in_at_end_ = false;
    return game_finished && *game_finished && !handed_in_at_end_;
  }
  // A hand-in of the game on screen was sent; `finished`: that game had finished.
  void sent(bool finished) {
    if (finished) handed_in_at_end_ = true;
  }

 private:
  bool handed_in_at_end_ = false;
};

// One scored attempt, as the policy compares them.
struct AttemptFigures {
  int attempt = 0;  // 1, 2, ... in the order handed in
  double score_points = 0;
  double profit_usd = 0;
  bool finished = false;
  bool late = false;  // handed in after the deadline (a class that marks late hand-ins)
};
// Whether `a` stands above `b` in a class's standings (and is the better of two attempts): a
// finished game above an unfinished one whatever their scores (an abandoned game never outranks a
// played one), then the higher score, then the higher profit. False for equals.
bool ranks_before(const AttemptFigures& a, const AttemptFigures& b);
// The index into `attempts` (in hand-in order) of the one that counts; nullopt when there is none.
// Best: the first of those no other ranks_before. A late attempt counts only for a student with
// none on time: after the deadline the answer key is out, and a late attempt never replaces an
// on-time grade.
std::optional<std::size_t> counted_attempt(AttemptPolicy policy, const std::vector<AttemptFigures>& attempts);

// Command logs compared: the share of commands the two have in common, in order (twice the longest
// common subsequence of the commands, each with its hour, over the two lengths together). 1 for
// identical logs; 0 when one is empty (doing nothing is no evidence of copying). Commands are
// compared by a 64-bit hash of their JSON with fractional numbers rounded to
// kComparedSignificantDigits (a price copied and nudged, 0.1725 to 0.1726, is the same move); logs longer than
// kMaxHandInCommands are compared on their first kMaxHandInCommands commands (the time stays bounded: n x m steps).
double command_log_similarity(const std::vector<game::LoggedCommand>& a, const std::vector<game::LoggedCommand>& b);
// At or above this, two students' logs are flagged for the instructor: the same moves at the same
// hours but for a tenth of them. Below kMinCommandsCompared commands a log says too little (one
// obvious price change is what many students will make).
inline constexpr double kNearIdenticalLogSimilarity = 0.9;
inline constexpr int kComparedSignificantDigits = 3;
inline constexpr std::size_t kMinCommandsCompared = 3;
bool near_identical_logs(const std::vector<game::LoggedCommand>& a, const std::vector<game::LoggedCommand>& b);

// A classmate's hand-in already kept, as a new hand-in is compared with it.
struct EarlierHandIn {
  std::string student;
  int attempt = 0;
  std::vector<game::LoggedCommand> commands;
};
// A near-identical pair: the flag the new hand-in carries, and the one added to `earlier`'s.
struct CopyFlag {
  std::size_t earlier = 0;  // index into the hand-ins compared
  std::string on_new;
  std::string on_earlier;
};
// The flags a new hand-in by `student` with `commands` raises against `earlier` (in the order they
// were handed in): each other student's first near-identical attempt, flagged on both sides, once
// per pair of students; a student's own attempts are never compared.
std::vector<CopyFlag> copy_flags(const std::string& student, const std::vector<game::LoggedCommand>& commands,
                                 const std::vector<EarlierHandIn>& earlier);

// What a student is told of a class's policies, in their game and the printed briefing: "the best
// attempt counts, deadline 2026-12-11T17:00:00Z (later hand-ins are refused)".
std::string policy_sentence(AttemptPolicy attempts, std::optional<std::int64_t> deadline_unix_s, LatePolicy late);

// A stored hand-in as its student's receipt says it, in the browser and the desktop game alike:
// "Handed in (attempt 2, late): score 71.3, profit $1604.40, SLO 88.8%". An unfinished game's
// figures say what they are (game::summarize): its score is for the share played, its profit and
// SLO those of the hours played.
struct ReceiptFigures {
  int attempt = 0;
  bool finished = true;
  std::int64_t at_hour = 0, end_hour = 0;
  bool late = false;
  double score_points = 0, profit_usd = 0, slo_attainment = 0;
};
std::string hand_in_receipt(const ReceiptFigures& f);

// "2026-12-11T17:00:00Z" (UTC, seconds optional) as seconds since 1970; throws core::InputError.
std::int64_t parse_utc_time(std::string_view text);
// Seconds since 1970 as "2026-12-11T17:00:00Z".
std::string format_utc_time(std::int64_t unix_s);

}  // namespace tycoon::classroom
