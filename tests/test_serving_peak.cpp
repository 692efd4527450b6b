// The most sequences a replica ran at once (ServingSummary::peak_running_seqs): what the advisor
// reads to skip raising a max_num_seqs limit the traffic never reached.
#include <doctest/doctest.h>

#include "tests/test_serving_support.h"

using namespace tycoon;

TEST_CASE("peak running sequences: the users when the limit is loose, the limit when it binds") {
  auto cfg = serving_test::gpt_oss_h200();
  cfg.workload.input_tokens = 512;
  cfg.workload.output_tokens = 128;
  cfg.arrival.concurrency = 8;
  cfg.num_requests = 64;
  SUBCASE("8 closed-loop users under a limit of 256: at most 8 can ever run, and all 8 do") {
    cfg.scheduler.max_num_seqs = 256;
    CHECK(serving::simulate(cfg, serving_test::h200_calibration()).peak_running_seqs == 8);
  }
  SUBCASE("64 users under a limit of 16: the limit binds") {
    cfg.arrival.concurrency = 64;
    cfg.num_requests = 256;
    cfg.scheduler.max_num_seqs = 16;
    CHECK(serving::simulate(cfg, serving_test::h200_calibration()).peak_running_seqs == 16);
  }
}
