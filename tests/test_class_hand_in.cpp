// The class server's rules about hand-ins (sim/classroom/hand_in.h): which attempt counts, how an
// unfinished game ranks, when two command logs are near-identical, the deadline's time format,
// and which saves are games of the class.
#include <doctest/doctest.h>

#include "sim/classroom/answer_key.h"
#include "sim/classroom/hand_in.h"
#include "sim/classroom/roster.h"
#include "sim/core/input_error.h"
#include "sim/game/save.h"
#include "tests/game_test_util.h"

using namespace tycoon;
using classroom::AttemptFigures;
using classroom::AttemptPolicy;

namespace {

std::vector<game::LoggedCommand> prices(std::vector<std::pair<std::int64_t, double>> moves) {
  std::vector<game::LoggedCommand> out;
  for (auto [h, p] : moves) out.push_back({h, game::SetPrices{"gpt-oss-120b", std::nullopt, std::nullopt, p}});
  return out;
}

}  // namespace

TEST_CASE("the attempt that counts: best, last or first") {
  // Attempt 2 scores highest but stopped at hour 32; attempt 3 is finished.
  const std::vector<AttemptFigures> attempts = {{1, 60, 1000, true}, {2, 80, 1500, false}, {3, 70, 1200, true}};
  CHECK(classroom::counted_attempt(AttemptPolicy::kFirst, attempts) == 0u);
  CHECK(classroom::counted_attempt(AttemptPolicy::kLast, attempts) == 2u);
  // Best: a finished game above an unfinished one whatever the scores.
  CHECK(classroom::counted_attempt(AttemptPolicy::kBest, attempts) == 2u);
  CHECK_FALSE(classroom::counted_attempt(AttemptPolicy::kBest, {}));
  // A late attempt (a class that marks them) never replaces an on-time one, whatever the policy; it
  // counts for a student with none on time.
  const std::vector<AttemptFigures> with_late = {
      {1, 40, 300, true, false}, {2, 80, 1500, true, true}, {3, 50, 400, true, false}, {4, 90, 1600, true, true}};
  CHECK(classroom::counted_attempt(AttemptPolicy::kBest, with_late) == 2u);
  CHECK(classroom::counted_attempt(AttemptPolicy::kLast, with_late) == 2u);
  CHECK(classroom::counted_attempt(AttemptPolicy::kFirst, with_late) == 0u);
  CHECK(classroom::counted_attempt(AttemptPolicy::kBest, {{1, 60, 9, true, true}, {2, 70, 9, true, true}}) == 1u);
  // Equal figures: the earlier attempt stays.
  CHECK(classroom::counted_attempt(AttemptPolicy::kBest, {{1, 70, 5, true}, {2, 70, 5, true}}) == 0u);
  CHECK(classroom::parse_attempt_policy("last") == AttemptPolicy::kLast);
  CHECK_THROWS_WITH_AS(classroom::parse_attempt_policy("most"), doctest::Contains("best, last or first"),
                       core::InputError);
  CHECK_THROWS_AS(classroom::parse_late_policy("ignore"), core::InputError);
}

TEST_CASE("command logs: identical is 1, one move of ten changed stays near-identical, doing nothing is no evidence") {
  const auto a = prices({{0, 0.17},
                         {2, 0.18},
                         {4, 0.16},
                         {6, 0.17},
                         {8, 0.18},
                         {10, 0.16},
                         {12, 0.17},
                         {14, 0.18},
                         {16, 0.16},
                         {18, 0.17}});
  auto b = a;
  CHECK(classroom::command_log_similarity(a, b) == 1.0);
  CHECK(classroom::near_identical_logs(a, b));
  // One price of ten changed: 9 common of 10 + 10 -> 2 * 9 / 20 = 0.9, at the threshold.
  b[5] = {10, game::SetPrices{"gpt-oss-120b", std::nullopt, std::nullopt, 0.2}};
  CHECK(classroom::command_log_similarity(a, b) == doctest::Approx(0.9));
  CHECK(classroom::near_identical_logs(a, b));
  // A copy with every price nudged in its fourth significant digit (0.17 -> 0.1704) is still the same moves:
  // numbers are compared to kComparedSignificantDigits.
  auto nudged = a;
  for (auto& c : nudged) {
    auto& p = std::get<game::SetPrices>(c.command);
    p.output_usd_per_mtok = *p.output_usd_per_mtok * 1.0025;
  }
  CHECK(classroom::command_log_similarity(a, nudged) == 1.0);
  CHECK(classroom::near_identical_logs(a, nudged));
  // Prices a student chose apart (0.17 and 0.175, 3%) are different moves.
  CHECK(classroom::command_log_similarity(prices({{0, 0.17}}), prices({{0, 0.175}})) == 0.0);
  // The same prices an hour later each: nothing in common.
  auto late = a;
  for (auto& c : late) ++c.at_hour;
  CHECK(classroom::command_log_similarity(a, late) == 0.0);
  // Empty logs and logs shorter than kMinCommandsCompared are never flagged.
  CHECK(classroom::command_log_similarity({}, {}) == 0.0);
  const auto one = prices({{0, 0.1725}});
  CHECK_FALSE(classroom::near_identical_logs(one, one));
}

TEST_CASE("a copied log is flagged on both sides, once per pair of students; a student's own attempts never") {
  const auto ada = prices({{0, 0.17}, {24, 0.175}, {72, 0.18}, {120, 0.1725}});
  const auto own = prices({{0, 0.16}, {30, 0.15}, {90, 0.19}});
  const std::vector<classroom::EarlierHandIn> earlier = {
      {"Ada", 1, ada}, {"Ada", 2, ada}, {"Ben", 1, ada}, {"Chen", 1, own}};
  // Ben hands in Ada's moves again: Ada's first attempt is flagged (not her second), never Ben's own.
  const auto flags = classroom::copy_flags("Ben", ada, earlier);
  REQUIRE(flags.size() == 1);
  CHECK(flags[0].earlier == 0);
  CHECK(flags[0].on_new == "commands near-identical to Ada's attempt 1 (similarity 1.00)");
  CHECK(flags[0].on_earlier == "commands near-identical to Ben's later hand-in (similarity 1.00)");
  // Chen's own moves are like nobody's.
  CHECK(classroom::copy_flags("Chen", own, earlier).empty());
}

TEST_CASE("deadlines are UTC times") {
  // 2026-12-11T17:00:00Z: 20,798 days after 1970-01-01, plus 17 hours.
  constexpr std::int64_t kExpected = 20798LL * 86400 + 17 * 3600;
  CHECK(classroom::parse_utc_time("2026-12-11T17:00:00Z") == kExpected);
  CHECK(classroom::parse_utc_time("2026-12-11T17:00Z") == kExpected);
  CHECK(classroom::format_utc_time(kExpected) == "2026-12-11T17:00:00Z");
  for (const char* bad : {"next friday", "2026-12-11 17:00", "2026-13-01T00:00Z", "2026-02-30T00:00Z",
                          "2026-12-11T17:00:00Zjunk", "", "2026-12-11T17:00:00+01:00"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(classroom::parse_utc_time(bad), core::InputError);
  }
}

TEST_CASE("a hand-in in the deadline's own second is on time; one second later it is late") {
  constexpr std::int64_t kDeadline = 20798LL * 86400 + 17 * 3600;
  CHECK_FALSE(classroom::deadline_passed(kDeadline, kDeadline));
  CHECK(classroom::deadline_passed(kDeadline, kDeadline + 1));
  CHECK_FALSE(classroom::deadline_passed(std::nullopt, kDeadline + 1'000'000));  // no deadline: never late
  // Refused only under "refuse" and only once late; under "mark" a late hand-in is taken.
  CHECK(classroom::hand_in_refused(classroom::LatePolicy::kRefuse, kDeadline, kDeadline + 1));
  CHECK_FALSE(classroom::hand_in_refused(classroom::LatePolicy::kRefuse, kDeadline, kDeadline));
  CHECK_FALSE(classroom::hand_in_refused(classroom::LatePolicy::kMark, kDeadline, kDeadline + 1));
  // The debrief's answer key opens by the same rule, and never without a clock.
  CHECK_FALSE(classroom::answer_key_shown(kDeadline, kDeadline));
  CHECK(classroom::answer_key_shown(kDeadline, kDeadline + 1));
  CHECK_FALSE(classroom::answer_key_shown(kDeadline, std::nullopt));

  // A student's briefing: a level with a question keeps its lesson (the answer) and the reference
  // strategy back until then; a level without one shows its lesson, as play does, but still not
  // the reference strategy.
  game::Scenario asked;
  asked.question = "Which price earns the most?";
  asked.lesson = "The one just above the market's.";
  asked.reference_strategy = game::ReferenceStrategy{};
  asked.reference_strategy->description = "Raise every price 15%.";
  const auto before = classroom::briefing_key(asked, kDeadline, kDeadline);
  CHECK_FALSE(before.lesson.has_value());
  CHECK_FALSE(before.reference_strategy.has_value());
  const auto after = classroom::briefing_key(asked, kDeadline, kDeadline + 1);
  CHECK(after.lesson == asked.lesson);
  CHECK(after.reference_strategy == "Raise every price 15%.");
  CHECK_FALSE(classroom::briefing_key(asked, std::nullopt, kDeadline + 1).lesson.has_value());  // no deadline
  // Outside a class (a code typed on the start screen, an import, a save), a classroom scenario's
  // key stays back on the player's screens too: it is the class's answer. Other levels show theirs.
  asked.kind = game::ScenarioKind::kClassroom;
  CHECK(classroom::answer_key_hidden_in_play(asked));
  asked.kind = game::ScenarioKind::kCampaign;
  CHECK_FALSE(classroom::answer_key_hidden_in_play(asked));
  game::Scenario told = asked;
  told.question.clear();
  const auto plain = classroom::briefing_key(told, kDeadline, kDeadline);
  CHECK(plain.lesson == told.lesson);
  CHECK_FALSE(plain.reference_strategy.has_value());
}

TEST_CASE("a class game's end is handed in once; the button's hand-in of a finished game counts; play again re-arms") {
  classroom::EndOfGameHandIn end;
  CHECK_FALSE(end.due(std::nullopt));  // the start screen: nothing to hand in
  CHECK_FALSE(end.due(false));         // a game under way
  end.sent(false);                     // the button mid-game: the end is still to hand in
  CHECK(end.due(true));                // the game ends: hand it in
  end.sent(true);
  CHECK_FALSE(end.due(true));  // once
  CHECK_FALSE(end.due(std::nullopt));
  CHECK_FALSE(end.due(false));  // "play again": a new game under way
  CHECK(end.due(true));         // its end is handed in too
  classroom::EndOfGameHandIn by_button;
  CHECK_FALSE(by_button.due(false));
  by_button.sent(true);  // the player handed in the finished game before the poll saw it end
  CHECK_FALSE(by_button.due(true));
}

TEST_CASE("a roster's codes are distinct even when the random source repeats itself") {
  // A source that gives the same two words twice before moving on: the repeated code is drawn again.
  std::uint64_t calls = 0;
  auto word = [&] { return (calls++ / 4) * 0x9e3779b97f4a7c15ULL; };
  const auto codes = classroom::draw_student_codes(3, word);
  REQUIRE(codes.size() == 3);
  CHECK(codes[0] != codes[1]);
  CHECK(codes[1] != codes[2]);
  CHECK(codes[0] != codes[2]);
  CHECK(calls == 10);  // five draws of two words: two of them repeats
  for (const auto& c : codes) CHECK(classroom::issued_code(c) == c);
}

TEST_CASE("a student's code as typed finds the code as issued") {
  // Codes are issued as four groups of four (format_student_code); a student may type them in
  // lower case, without dashes or with spaces.
  const std::string issued = classroom::format_student_code(0x0123456789abcdefULL, 0xfedcba9876543210ULL);
  REQUIRE(issued.size() == 19);
  CHECK(classroom::issued_code(issued) == issued);
  std::string typed;
  for (char c : issued) {
    if (c != '-') typed += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  }
  CHECK(classroom::issued_code(typed) == issued);
  CHECK(classroom::issued_code(" " + issued.substr(0, 9) + " " + issued.substr(10)) == issued);
  CHECK_FALSE(classroom::issued_code(issued.substr(0, 18)));  // a character short
  CHECK_FALSE(classroom::issued_code(""));
}

TEST_CASE("a save from another world is refused with what differs; the class's own passes") {
  const auto& catalog = test::catalog();
  auto scenario = game::load_scenario(game::find_scenario("classroom-prices-only", TYCOON_SOURCE_DIR), catalog);
  auto world_of = [&](std::uint64_t seed, int days, int history) {
    classroom::ClassChoices c;
    c.class_id = "econ-101";
    c.seed = seed;
    c.days = days;
    c.history_days = history;
    return classroom::class_world(classroom::make_class(scenario, c), "class", catalog, TYCOON_SOURCE_DIR);
  };
  const auto cls = world_of(2026, 1, 0);
  auto save_in = [&](const classroom::ClassWorld& w) {
    auto g = w.new_game(catalog);
    game::replay(*g, prices({{0, 0.17}}));
    return game::save_text(*g);
  };
  const auto own = classroom::hand_in_from_save(cls, catalog, save_in(cls));
  CHECK(own.finished);
  CHECK(own.commands.size() == 1);
  CHECK(own.at_hour == 24);
  CHECK_THROWS_WITH_AS(classroom::hand_in_from_save(cls, catalog, save_in(world_of(7, 1, 0))),
                       doctest::Contains("seed 7, the class plays seed 2026"), classroom::NotThisClassError);
  CHECK_THROWS_WITH_AS(classroom::hand_in_from_save(cls, catalog, save_in(world_of(2026, 2, 0))),
                       doctest::Contains("a game of 48 hours, the class plays 24"), classroom::NotThisClassError);
  CHECK_THROWS_WITH_AS(classroom::hand_in_from_save(cls, catalog, save_in(world_of(2026, 1, 2))),
                       doctest::Contains("2 days of history before hour 0, the class has 0"),
                       classroom::NotThisClassError);
  // A log no one plays by hand (it would be replayed and compared with every classmate's).
  std::vector<std::pair<std::int64_t, double>> flood(classroom::kMaxHandInCommands + 1, {0, 0.17});
  {
    auto g = cls.new_game(catalog);
    game::replay(*g, prices(flood));
    CHECK_THROWS_WITH_AS(classroom::hand_in_from_save(cls, catalog, game::save_text(*g)),
                         doctest::Contains("10001 commands, more than the 10000"), core::InputError);
  }
  // Not a save at all: plain bad input, not "another world".
  CHECK_THROWS_WITH_AS(classroom::hand_in_from_save(cls, catalog, std::string_view("{\"format\": 1}")),
                       doctest::Contains("not a save this game can read"), core::InputError);
}

TEST_CASE("a student reads the class's policies and each receipt in the same words in the browser and the desktop") {
  constexpr std::int64_t kDeadline = 20798LL * 86400 + 17 * 3600;  // 2026-12-11T17:00:00Z
  CHECK(classroom::policy_sentence(classroom::AttemptPolicy::kBest, std::nullopt, classroom::LatePolicy::kRefuse) ==
        "the best attempt counts");
  CHECK(classroom::policy_sentence(classroom::AttemptPolicy::kLast, kDeadline, classroom::LatePolicy::kMark) ==
        "the last attempt counts, deadline 2026-12-11T17:00:00Z (later hand-ins are marked late, and count only for a "
        "student with no hand-in on "
        "time)");
  classroom::ReceiptFigures f{2, true, 168, 168, true, 71.3, 1604.4, 0.888};
  CHECK(classroom::hand_in_receipt(f) == "Handed in (attempt 2, late): score 71.3, profit $1604.40, SLO 88.8%");
  // Unfinished: the score is for the share played, the money and service those of the hours played.
  f = {1, false, 32, 168, false, 11.8, 314.2, 0.888};
  CHECK(classroom::hand_in_receipt(f) ==
        "Handed in (attempt 1, unfinished at hour 32 of 168): score 11.8 for the share played; profit $314.20, SLO "
        "88.8% over the hours played");
}

TEST_CASE("a save is named so that one student's never takes another's: class, student and hour") {
  CHECK(game::save_file_name("classroom-prices-only", 30, "econ-101", "Ada Lovelace") ==
        "econ-101-ada-lovelace-h30.json");
  CHECK(game::save_file_name("classroom-prices-only", 30, "econ-101") == "econ-101-h30.json");  // student unknown
  CHECK(game::save_file_name("classroom-prices-only", 30) == "classroom-prices-only-day2-06h.json");
  // Whatever a name holds, the file name is safe: no path, no quote, no space.
  CHECK(game::save_file_name("x", 0, "econ-101", "../Zoë \"O'Brien\"/") == "econ-101-zo-o-brien-h0.json");
}

TEST_CASE("leaving a class game saves it under the class and the student, never over a classmate's autosave") {
  CHECK(game::autosave_file_name("classroom-prices-only") == "autosave-classroom-prices-only.json");
  CHECK(game::autosave_file_name("classroom-prices-only", "econ-101", "Ada Lovelace") ==
        "autosave-econ-101-ada-lovelace.json");
  CHECK(game::autosave_file_name("classroom-prices-only", "econ-101", "Ben") !=
        game::autosave_file_name("classroom-prices-only", "econ-101", "Ada Lovelace"));
}
