// What makes a run long (sim/serving/run_budget.h): every front end refuses a run past one of these
// bounds unless its user lifts them, and the first bound passed is named so that the front end can
// say which of its own flags or fields set it.
#include "sim/serving/run_budget.h"
#include "tests/test_serving_support.h"

using namespace tycoon;
using namespace tycoon::serving_test;

TEST_CASE("a run past a bound is named by the first bound it passes, and a run within them by none") {
  auto c = gpt_oss_h200();
  c.arrival.concurrency = 64;
  c.num_requests = 640;
  CHECK_FALSE(serving::find_long_run(c).has_value());

  auto many = c;
  many.num_requests = serving::kMaxRunRequests + 1;
  auto past = serving::find_long_run(many);
  REQUIRE(past);
  CHECK(past->bound == serving::LongRunBound::kRequests);
  CHECK(past->limit == static_cast<double>(serving::kMaxRunRequests));

  // Warm-up requests are simulated like measured ones: within the bound each, past it together.
  auto warm = c;
  warm.num_requests = serving::kMaxRunRequests / 2 + 1;
  warm.warmup_requests = serving::kMaxRunRequests / 2;
  past = serving::find_long_run(warm);
  REQUIRE(past);
  CHECK(past->bound == serving::LongRunBound::kWarmupRequests);

  auto crowd = c;
  crowd.arrival.concurrency = static_cast<int>(serving::kMaxRunUsers) + 1;
  past = serving::find_long_run(crowd);
  REQUIRE(past);
  CHECK(past->bound == serving::LongRunBound::kUsers);

  auto fleet = c;
  fleet.replicas = static_cast<int>(serving::kMaxRunGpus);  // × 1 GPU each: at the bound, not past it
  CHECK_FALSE(serving::find_long_run(fleet).has_value());
  fleet.deployment.tensor_parallel = 2;
  past = serving::find_long_run(fleet);
  REQUIRE(past);
  CHECK(past->bound == serving::LongRunBound::kReplicaGpus);
  CHECK(past->amount == 2.0 * serving::kMaxRunGpus);

  auto week = c;
  week.num_requests = 0;
  week.duration_s = 7 * 86'400;
  past = serving::find_long_run(week);
  REQUIRE(past);
  CHECK(past->bound == serving::LongRunBound::kSpan);
}

TEST_CASE("a growing run held to the bounds stops at the request bound unless its user lifts it") {
  // 20,000 users would grow to 80 requests each (1.6 million); held to the bound, to 1 million.
  auto c = gpt_oss_h200();
  c.arrival.concurrency = static_cast<int>(serving::kMaxRunUsers);
  c.num_requests = 10 * c.arrival.concurrency;
  CHECK(serving::budgeted_steady_rule(c, false).max_requests == serving::kMaxRunRequests);
  CHECK(serving::budgeted_steady_rule(c, true).max_requests == serving::default_max_requests(c));
  CHECK(serving::default_max_requests(c) == 80 * serving::kMaxRunUsers);
}

TEST_CASE("a run's estimate is in the unit a reader can act on") {
  // 75,000 requests per wall second and core: 1.5 million requests are 20 s on one core.
  CHECK(serving::run_estimate(1.5e6) == "about 1.5e+06 requests, ~20 s of wall time on one core");
  CHECK(serving::run_estimate(2.7e9, 2) == "about 2.7e+09 requests, ~5 h of wall time on 2 cores");
}
