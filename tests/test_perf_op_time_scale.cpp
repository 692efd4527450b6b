// perf::Deployment::op_time_scale: a code change that makes one op class faster or slower
// rescales exactly that class's time, and the step time follows (Amdahl).
#include <doctest/doctest.h>

#include "sim/data/catalog.h"
#include "sim/perf/iteration_cost.h"
#include "sim/perf/profile_lookup.h"
#include "tests/test_common.h"

using namespace tycoon;
using perf::OpClass;

namespace {

constexpr double kExactScaled = 1e-9;  // the same arithmetic, one factor applied

using test::catalog;

perf::Deployment gpt_oss_on_h200() {
  perf::Deployment d;
  d.model = &catalog().model("gpt-oss-120b");
  d.hardware = &catalog().accelerator("h200");
  d.engine = &catalog().engine("vllm");
  d.precision = Precision::kFp4;
  return d;
}

std::size_t idx(OpClass c) { return static_cast<std::size_t>(c); }

}  // namespace

TEST_CASE("op_time_scale defaults to 1 and leaves the prediction unchanged") {
  auto d = gpt_oss_on_h200();
  for (double f : d.op_time_scale) CHECK(f == 1.0);
  const auto& cal = perf::calibration_for(catalog(), *d.hardware);
  auto a = perf::predict_decode(d, cal, 32, 2000);
  d.op_time_scale = perf::Deployment::uniform_op_time_scale();
  auto b = perf::predict_decode(d, cal, 32, 2000);
  CHECK(a.total_s == b.total_s);
}

TEST_CASE("scaling one op class changes that class and the total by exactly its time saved") {
  auto d = gpt_oss_on_h200();
  const auto& cal = perf::calibration_for(catalog(), *d.hardware);
  // CUDA graphs: launch gaps are per kernel, independent of GPU time, so only the scaled class moves.
  REQUIRE(d.cuda_graphs);
  auto base = perf::predict_decode(d, cal, 64, 4000);
  const double moe_s = base.op(OpClass::kMoeExperts).time_s;
  REQUIRE(moe_s > 0);

  SUBCASE("routed experts 2x faster: the step saves half the MoE time") {
    d.op_time_scale[idx(OpClass::kMoeExperts)] = 0.5;
    auto fast = perf::predict_decode(d, cal, 64, 4000);
    CHECK(fast.op(OpClass::kMoeExperts).time_s == doctest::Approx(0.5 * moe_s).epsilon(kExactScaled));
    CHECK(fast.op(OpClass::kMoeExperts).memory_s ==
          doctest::Approx(0.5 * base.op(OpClass::kMoeExperts).memory_s).epsilon(kExactScaled));
    CHECK(fast.op(OpClass::kAttentionDecode).time_s == base.op(OpClass::kAttentionDecode).time_s);
    CHECK(fast.total_s == doctest::Approx(base.total_s - 0.5 * moe_s).epsilon(kExactScaled));
  }
  SUBCASE("a slower kernel (fast_mode on the wrong shapes) costs its extra time") {
    d.op_time_scale[idx(OpClass::kMoeExperts)] = 1.8;
    auto slow = perf::predict_decode(d, cal, 64, 4000);
    CHECK(slow.total_s == doctest::Approx(base.total_s + 0.8 * moe_s).epsilon(kExactScaled));
  }
  SUBCASE("engine overhead is scaled too") {
    const double eo = base.op(OpClass::kEngineOverhead).time_s;
    d.op_time_scale[idx(OpClass::kEngineOverhead)] = 0.5;
    auto fast = perf::predict_decode(d, cal, 64, 4000);
    CHECK(fast.total_s == doctest::Approx(base.total_s - 0.5 * eo).epsilon(kExactScaled));
  }
}
