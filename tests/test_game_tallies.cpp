// What the dashboard, the debrief and the deployments table sum or multiply, computed once in
// sim/: daily and running totals of the history, the cash change over a day, the advisor's claims
// for what the player accepted, and the gap to the reference.
#include <doctest/doctest.h>

#include "sim/game/last_hours.h"
#include "sim/game/tallies.h"

using namespace tycoon;

namespace {

constexpr double kTallyCentTol = 1e-12;  // sums of a few dozen small numbers

// `hours` hours of revenue $10, GPU rent $4 and fixed cost $1 each, cash rising by the $5 profit
// from `start_usd`.
game::History steady_history(int hours, double start_usd) {
  game::History h;
  for (int i = 0; i < hours; ++i) {
    std::array<double, game::kNumSeries> row{};
    row[static_cast<std::size_t>(game::Series::kRevenueUsd)] = 10;
    row[static_cast<std::size_t>(game::Series::kGpuCostUsd)] = 4;
    row[static_cast<std::size_t>(game::Series::kFixedCostUsd)] = 1;
    row[static_cast<std::size_t>(game::Series::kCashUsd)] = start_usd + 5.0 * (i + 1);
    h.push(row);
  }
  return h;
}

game::Advice advice(const char* id, std::int64_t deployment, game::AdviceStatus status, double claimed) {
  game::Advice a;
  a.id = id;
  a.deployment_id = deployment;
  a.status = status;
  a.claimed_speedup = claimed;
  return a;
}

}  // namespace

TEST_CASE("daily sums: 30 hours make a full day of 24 and a partial one of 6") {
  const auto h = steady_history(30, 1000);
  // Revenue $10 an hour: $240 on day 1, $60 on day 2.
  const auto revenue = game::daily_sums(h, game::Series::kRevenueUsd);
  REQUIRE(revenue.size() == 2);
  CHECK(revenue[0] == doctest::Approx(240).epsilon(kTallyCentTol));
  CHECK(revenue[1] == doctest::Approx(60).epsilon(kTallyCentTol));
  CHECK(game::daily_sums(game::History{}, game::Series::kRevenueUsd).empty());
}

TEST_CASE("running totals add the series hour by hour: the debrief's cumulative costs") {
  const auto h = steady_history(30, 1000);
  const auto costs = game::running_total(h, {game::Series::kGpuCostUsd, game::Series::kFixedCostUsd});
  REQUIRE(costs.size() == 30);
  // $4 rent + $1 fixed an hour: $5 after the first hour, $150 after 30.
  CHECK(costs.front() == doctest::Approx(5).epsilon(kTallyCentTol));
  CHECK(costs.back() == doctest::Approx(150).epsilon(kTallyCentTol));
}

TEST_CASE("the cash change over 24 hours: against the cash 24 hours before the last, else the starting cash") {
  SUBCASE("30 hours played: cash after hour 6 was $1,030; now $1,150 less a $20 fee paid since") {
    const auto h = steady_history(30, 1000);
    CHECK(game::cash_change_usd(h, 1130, 1000, 24) == doctest::Approx(100).epsilon(kTallyCentTol));
  }
  SUBCASE("10 hours played: against the starting $1,000") {
    const auto h = steady_history(10, 1000);
    CHECK(game::cash_change_usd(h, 1050, 1000, 24) == doctest::Approx(50).epsilon(kTallyCentTol));
  }
}

TEST_CASE("claimed code changes: accepted, not reverted, changing no recipe or replicas, claims multiplied") {
  std::vector<game::Advice> inbox = {advice("a", 1, game::AdviceStatus::kAccepted, 1.10),
                                     advice("b", 1, game::AdviceStatus::kAccepted, 1.20),
                                     advice("other-deployment", 2, game::AdviceStatus::kAccepted, 1.50),
                                     advice("rejected", 1, game::AdviceStatus::kRejected, 1.50),
                                     advice("pending", 1, game::AdviceStatus::kPending, 1.5),
                                     advice("reverted", 1, game::AdviceStatus::kAccepted, 1.50),
                                     advice("recipe", 1, game::AdviceStatus::kAccepted, 1.5)};
  inbox[5].reverted_at_hour = 7;
  inbox[6].effect.recipe.spec_draft_tokens = 3;
  const auto changes = game::claimed_code_changes(inbox, 1);
  // Only a and b count: 1.10 x 1.20 = 1.32.
  CHECK(changes.num_changes == 2);
  CHECK(changes.claimed_speedup == doctest::Approx(1.32).epsilon(kTallyCentTol));
  CHECK(game::claimed_code_changes(inbox, 3).num_changes == 0);
  CHECK(game::claimed_code_changes(inbox, 3).claimed_speedup == 1.0);

  SUBCASE("the debrief's tally counts every decision; the claim multiplies everything accepted") {
    const auto tally = game::advice_tally(inbox);
    CHECK(tally.num_accepted == 5);
    CHECK(tally.num_rejected == 1);
    CHECK(tally.num_pending == 1);
    // 1.10 x 1.20 x 1.50 x 1.50 x 1.50 = 4.455.
    CHECK(tally.claimed_speedup == doctest::Approx(4.455).epsilon(kTallyCentTol));
  }
}

TEST_CASE("the gap to the reference is its items added up") {
  const std::vector<game::GapItem> gap = {{"pricing", "Pricing", 120, ""}, {"checks", "Checks", -20, ""}};
  // $120 left on pricing, $20 better on checks: $100 in all.
  CHECK(game::gap_usd(gap) == doctest::Approx(100).epsilon(kTallyCentTol));
}
