// The answer key of a class: the reference strategy (what it did), the gap to it, what to try
// next, the level's answer and the truth of the advisor's proposals. Every student of a class
// plays the same world, so one student's debrief is every classmate's answer: a student sees the
// key after the class's deadline, the instructor sees it in the class report at any time.
// Front ends ask these rules; they decide nothing themselves.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sim/game/scenario.h"
#include "sim/game/summary.h"

namespace tycoon::classroom {

// Whether a student's end-of-game debrief may show the answer key: only once the class's deadline
// (seconds since 1970, UTC) has passed at `now_unix_s`. Without a deadline, or without a clock to
// read it by, never (the instructor shows it from the report).
bool answer_key_shown(std::optional<std::int64_t> deadline_unix_s, std::optional<std::int64_t> now_unix_s);

// Whether the game's own screens keep the answer key back for a game of `scenario` played outside
// a class (started from a code or seed, imported, loaded from a save): a classroom scenario's key
// is its class's, whatever route a student takes to the same world; the instructor has it from
// the class report, `tycoon run` and `tycoon balance`. A class game keeps it back by
// answer_key_shown.
bool answer_key_hidden_in_play(const game::Scenario& scenario);

// `summary` as a student sees it before the deadline: the reference's run keeps its figures and
// score (the score is measured against them, and the comparison sentence says by how much) but
// not its description; the gap to the reference and what to try next are taken out, and
// GameSummary::answer_key_hidden is set.
game::GameSummary without_answer_key(game::GameSummary summary);

// What a student's class briefing carries of the key at `now_unix_s`: the lesson when it answers
// nothing (the level asks no question: play shows it anyway) or once the key is shown; the
// reference strategy's description once the key is shown. Unset: kept back.
struct BriefingKey {
  std::optional<std::string> lesson, reference_strategy;
};
BriefingKey briefing_key(const game::Scenario& scenario, std::optional<std::int64_t> deadline_unix_s,
                         std::optional<std::int64_t> now_unix_s);

// What the debrief says in place of the key.
inline constexpr std::string_view kAnswerKeyHiddenNote =
    "The reference strategy, where your profit differed from it, what to try next and the truth of the advisor's "
    "proposals are shown after the class's deadline: every classmate plays this same world. Your instructor has "
    "them in the class report.";

}  // namespace tycoon::classroom
