// A student's submission: the finished game of a class, as the class report needs it to check and
// rank it — who played, for which class (id, scenario and its hash, seed, length), every command
// with its hour (GameState::log), the summary the student saw, and a checksum.
//
//   {"format": "inference-tycoon-submission", "version": 1, "checksum": "fnv1a64:…",
//    "payload": {"student": "Ada", "class_id": "econ-101", "scenario": "…", "scenario_hash": "…",
//                "seed": 2026, "days": 2, "commands": [{"at_hour": 0, "type": "set_prices", …}],
//                "summary": {…game::to_json(GameSummary)…}}}
//
// The checksum (FNV-1a 64 of the payload's JSON, game::checksum_of, as saves use) catches a file
// damaged or edited by hand; anyone can recompute it. What makes a submission hard to forge is
// the report: it replays the commands on the class's world and refuses a summary the commands do
// not produce. A forger has to find commands that earn the score, which is playing the game.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/classroom/class_spec.h"
#include "sim/game/command.h"
#include "sim/game/counterfactual.h"
#include "sim/game/game.h"

namespace tycoon::classroom {

inline constexpr std::string_view kSubmissionFormat = "inference-tycoon-submission";
inline constexpr int kSubmissionVersion = 1;
inline constexpr std::size_t kMaxStudentNameLength = 80;

// The figures of the summary the report checks and ranks by.
struct ClaimedResult {
  double profit_usd = 0;
  double score_points = 0;
  double slo_attainment = 0;
};

struct Submission {
  std::string file;  // where it was read from
  std::string student;
  std::string student_code;  // the roster's code the student was given; empty without a roster
  std::string class_id;
  std::string scenario;
  std::string scenario_hash;
  std::uint64_t seed = 0;
  int days = 0;
  std::vector<game::LoggedCommand> commands;
  // The hour a game handed in unfinished had reached (payload/stopped_at_hour; unset: played to its
  // end): the replay runs it to the end without another command and scores the share played.
  std::optional<std::int64_t> stopped_at_hour;
  ClaimedResult claimed;
  nlohmann::json summary;  // as exported (the claimed figures are read from it)
};

// Why `name` cannot be a student's name (empty when it can): 1 to kMaxStudentNameLength
// characters, no control characters.
std::string student_name_problem(std::string_view name);

// The submission of `game`, a finished game of `world`'s class, with its summary completed by
// `counterfactuals` (run_counterfactuals on it). Throws std::invalid_argument when the game is not
// finished, was not played on the class's world (scenario, seed, length), or the name is bad.
// `student_code` (empty: none) is the code a class roster gave the student (roster.h); it is
// written as payload/student_code, under the checksum. `stopped_at_hour`: the hour the player
// stopped a game handed in unfinished (`game` is then its replay, run to the end; the summary
// scores the share played), written as payload/stopped_at_hour.
nlohmann::json make_submission(const ClassWorld& world, const game::Game& game,
                               const game::Counterfactuals& counterfactuals, std::string_view student,
                               std::string_view student_code = {},
                               std::optional<std::int64_t> stopped_at_hour = std::nullopt);
// The submission file's text (one JSON object, indented, newline-terminated).
std::string submission_text(const nlohmann::json& submission);

// Strict load: format, version, then the checksum, then the contents. Throws data::LoadError
// naming the file and the JSON pointer (/checksum for a file edited after export).
Submission submission_from_json(const nlohmann::json& j, const std::string& file);
Submission load_submission(const std::filesystem::path& path);

// Plays `commands` on a new game of the class (game::replay: the clock advances to each command's
// hour, then runs to the end). Returns the game; `refused` receives the commands not applied.
std::unique_ptr<game::Game> play_class_game(const ClassWorld& world, const data::Catalog& catalog,
                                            const std::vector<game::LoggedCommand>& commands,
                                            std::vector<game::RefusedCommand>* refused = nullptr);

// A class game's state at `hour`: `game`'s own command log replayed on a new game of the class up
// to that hour (game::replay_until) and the commands of that hour applied (played before the
// hand-in), for an unfinished hand-in's figures (game::summarize).
game::GameState state_at_stop(const ClassWorld& world, const game::Game& game, std::int64_t hour);

// A student's submission of `commands` (a command log, or a save's: `stopped_at_hour` set when
// that game was unfinished) played on a new game of the class: play_class_game, the
// counterfactual runs its score is measured against, make_submission. `refused` receives the
// commands not applied.
nlohmann::json submission_of_play(const ClassWorld& world, const data::Catalog& catalog,
                                  const std::vector<game::LoggedCommand>& commands, std::string_view student,
                                  std::string_view student_code, std::optional<std::int64_t> stopped_at_hour,
                                  std::vector<game::RefusedCommand>* refused = nullptr);

}  // namespace tycoon::classroom
