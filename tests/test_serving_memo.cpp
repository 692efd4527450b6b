// The simulation memo (sim/serving/simulation_memo.h): a call it has seen is answered with the
// summary computed then, byte for byte; a call that differs in anything the fingerprint names is
// computed; it runs its calls through the interceptor installed before it, and lets go when it
// ends.
#include <doctest/doctest.h>

#include <memory>

#include "sim/serving/simulation_memo.h"
#include "sim/serving/summary_json.h"
#include "sim/traffic/trace.h"
#include "tests/test_serving_support.h"

using namespace tycoon;

namespace {

serving::ServingConfig short_run() { return serving_test::poisson_run(serving_test::gpt_oss_h200(), 4, 10, 800, 200); }

// Counts the calls that reach it and computes them.
struct Counter final : serving::SimulateInterceptor {
  int calls = 0;
  serving::SimulateInterceptor* below = nullptr;
  serving::ServingSummary simulate(const serving::ServingConfig& c, const perf::CalibrationProfile& cal) override {
    ++calls;
    serving::ScopedSimulateInterceptor off(below);
    return serving::simulate(c, cal);
  }
};

std::string bytes(const serving::ServingSummary& s) { return serving::summary_json(s).dump(); }

}  // namespace

TEST_CASE("a simulation memo answers a repeated call with the summary it computed, and computes any other") {
  const auto& cal = serving_test::h200_calibration();
  const auto cfg = short_run();
  const auto computed = serving::simulate(cfg, cal);  // no memo installed yet: the kernel
  Counter counter;
  serving::ScopedSimulateInterceptor count(&counter);
  {
    serving::SimulationMemo memo;
    CHECK(bytes(serving::simulate(cfg, cal)) == bytes(computed));
    CHECK(bytes(serving::simulate(cfg, cal)) == bytes(computed));  // the answer kept: the same bytes
    CHECK(memo.misses() == 1);
    CHECK(memo.hits() == 1);
    CHECK(counter.calls == 1);  // the repeat never reached the interceptor below the memo

    auto other_seed = cfg;
    other_seed.seed = cfg.seed + 1;
    const auto reseeded = serving::simulate(other_seed, cal);
    CHECK(counter.calls == 2);  // a different seed is another question
    CHECK(bytes(reseeded) != bytes(computed));

    auto longer = cfg;
    longer.duration_s = cfg.duration_s * 2;
    serving::simulate(longer, cal);
    CHECK(counter.calls == 3);
    CHECK(memo.misses() == 3);
    CHECK(memo.hits() == 1);
  }
  // Gone with its scope: calls reach the interceptor below again, every time.
  serving::simulate(cfg, cal);
  serving::simulate(cfg, cal);
  CHECK(counter.calls == 5);
}

TEST_CASE("a simulation memo never answers a call with an unknown draft method from an EAGLE run's result") {
  // The run refuses a method it does not know; the memo must not hand it the summary of the same
  // deployment drafting with EAGLE-3 (the fingerprint names an unknown method).
  const auto& cal = serving_test::h200_calibration();
  auto cfg = short_run();
  cfg.deployment.spec_decode = data::SpecDecode{"eagle3", 3, 2.31};
  serving::SimulationMemo memo;
  serving::simulate(cfg, cal);
  auto unknown = cfg;
  unknown.deployment.spec_decode->method = "medusa";
  CHECK_THROWS(serving::simulate(unknown, cal));
  CHECK(memo.hits() == 0);
}

TEST_CASE("a simulation memo never answers a trace given in memory, which its fingerprint cannot name") {
  const auto& cal = serving_test::h200_calibration();
  auto cfg = short_run();
  cfg.workload.kind = serving::WorkloadKind::kTrace;
  cfg.workload.trace_timestamps = true;
  auto trace = std::make_shared<traffic::Trace>();
  trace->file = "in memory";
  for (int i = 0; i < 4; ++i) {
    traffic::TraceEntry e;
    e.arrival_s = 0.5 * i;
    e.input_tokens = 500;
    e.output_tokens = 50;
    trace->entries.push_back(e);
  }
  cfg.workload.trace = trace;
  Counter counter;
  serving::ScopedSimulateInterceptor count(&counter);
  serving::SimulationMemo memo;
  const auto first = serving::simulate(cfg, cal);
  CHECK(first.requests_completed == 4);
  trace->entries.pop_back();  // same fingerprint, other requests
  const auto second = serving::simulate(cfg, cal);
  CHECK(second.requests_completed == 3);
  CHECK(counter.calls == 2);
  CHECK(memo.hits() == 0);
}
