// The class server's rules about hand-ins (sim/classroom/hand_in.h): which attempt counts, how an
// unfinished game ranks, when two command logs are near-identical, and the deadline's time format.
#include <doctest/doctest.h>

#include "sim/classroom/hand_in.h"
#include "sim/core/input_error.h"

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
  // The same prices an hour later each: nothing in common.
  auto late = a;
  for (auto& c : late) ++c.at_hour;
  CHECK(classroom::command_log_similarity(a, late) == 0.0);
  // Empty logs and logs shorter than kMinCommandsCompared are never flagged.
  CHECK(classroom::command_log_similarity({}, {}) == 0.0);
  const auto one = prices({{0, 0.1725}});
  CHECK_FALSE(classroom::near_identical_logs(one, one));
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
