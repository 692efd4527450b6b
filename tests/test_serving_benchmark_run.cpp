// A benchmark's run: the defaults InferenceX's runs use, written once for `tycoon benchmark`,
// sweeps and the game's previews, and the choices that do not apply to each other refused.
#include <doctest/doctest.h>

#include <stdexcept>

#include "sim/analysis/sweep_spec.h"
#include "sim/core/input_error.h"
#include "sim/serving/benchmark_run.h"

using namespace tycoon;
using serving::ArrivalKind;
using serving::BenchmarkRun;
using serving::WorkloadKind;

namespace {

// Ratios are copied, never computed: they compare exactly.
serving::ServingConfig run_of(const BenchmarkRun& run) { return serving::benchmark_config({}, run); }

}  // namespace

TEST_CASE("a shape's lengths default to InferenceX's: 1k/1k chat, 8k/1k summarisation, 1k/8k reasoning") {
  CHECK(serving::default_lengths(WorkloadKind::kRandom).input_tokens == 1024);
  CHECK(serving::default_lengths(WorkloadKind::kRandom).output_tokens == 1024);
  CHECK(serving::default_lengths(WorkloadKind::kInputHeavy).input_tokens == 8192);
  CHECK(serving::default_lengths(WorkloadKind::kInputHeavy).output_tokens == 1024);
  CHECK(serving::default_lengths(WorkloadKind::kOutputHeavy).input_tokens == 1024);
  CHECK(serving::default_lengths(WorkloadKind::kOutputHeavy).output_tokens == 8192);
  SUBCASE("a sweep's workload takes the same lengths, and its default workload is the benchmark's") {
    auto spec = analysis::parse_sweep_spec(nlohmann::json::parse(R"({"format_version": 1, "name": "s",
        "base": {"model": "llama-3.1-8b", "hardware": "h200"}, "concurrency": [4],
        "workloads": [{"kind": "input-heavy"}, {"kind": "output-heavy"}]})"),
                                           "spec.json");
    REQUIRE(spec.workloads.size() == 2);
    CHECK(spec.workloads[0].input_tokens == 8192);
    CHECK(spec.workloads[0].output_tokens == 1024);
    CHECK(spec.workloads[1].name == "output-heavy 1024/8192");
    CHECK(spec.requests_per_user == serving::kRequestsPerUser);
    auto plain = analysis::parse_sweep_spec(nlohmann::json::parse(R"({"format_version": 1, "name": "s",
        "base": {"model": "llama-3.1-8b", "hardware": "h200"}, "concurrency": [4]})"),
                                            "spec.json");
    REQUIRE(plain.workloads.size() == 1);
    CHECK(plain.workloads[0].name == "random 1024/1024");
    CHECK(plain.workloads[0].pointer == "/workloads");
  }
}

TEST_CASE("a closed-loop point sends 10 x concurrency requests after 2 x concurrency warm-ups") {
  SUBCASE("nothing given: 64 users, 640 requests, 128 warm-ups, lengths in [0.8, 1] x 1k") {
    // InferenceX per point: --num-prompts 10 x C, --num-warmups 2 x C; C defaults to 64.
    const auto c = run_of({});
    CHECK(c.arrival.kind == ArrivalKind::kClosedLoop);
    CHECK(c.arrival.concurrency == 64);
    CHECK(c.num_requests == 640);
    CHECK(c.warmup_requests == 128);
    CHECK(c.workload.input_tokens == 1024);
    CHECK(c.workload.input_range_ratio == 0.8);
    CHECK(c.workload.output_range_ratio == 0.8);
    CHECK(c.api_server);
  }
  SUBCASE("chat sessions at 8 users: 80 requests and no warm-up (one that ends cuts sessions short)") {
    BenchmarkRun run;
    run.workload = WorkloadKind::kChat;
    run.concurrency = 8;
    const auto c = run_of(run);
    CHECK(c.num_requests == 80);
    CHECK(c.warmup_requests == 0);
    CHECK_FALSE(serving::one_request_per_session(WorkloadKind::kChat));
    CHECK(serving::one_request_per_session(WorkloadKind::kOutputHeavy));
  }
  SUBCASE("a warm-up given in seconds replaces the request warm-up") {
    BenchmarkRun run;
    run.warmup_s = 5;
    run.duration_s = 60;
    const auto c = run_of(run);
    CHECK(c.warmup_requests == 0);
    CHECK(c.num_requests == 0);  // the run stops on its span
  }
  SUBCASE("the output ratio follows the input's unless given") {
    BenchmarkRun run;
    run.input_range_ratio = 0.5;
    CHECK(run_of(run).workload.output_range_ratio == 0.5);
    run.output_range_ratio = 1.0;
    CHECK(run_of(run).workload.output_range_ratio == 1.0);
  }
  SUBCASE("an open-loop run has no warm-up requests; its count still defaults to 10 x the default users") {
    BenchmarkRun run;
    run.arrival = ArrivalKind::kPoisson;
    run.rate_per_s = 2;
    const auto c = run_of(run);
    CHECK(c.warmup_requests == 0);
    CHECK(c.num_requests == 640);
  }
  SUBCASE("a trace is replayed whole, at its own times") {
    BenchmarkRun run;
    run.trace_path = "t.jsonl";
    const auto c = run_of(run);
    CHECK(c.workload.kind == WorkloadKind::kTrace);
    CHECK(c.workload.trace_timestamps);
    CHECK(c.num_requests == 0);
  }
}

TEST_CASE("agentic coding replays AgentX under its current harness unless another dated timing is named") {
  BenchmarkRun run;
  run.workload = WorkloadKind::kAgenticCoding;
  run.concurrency = 20;
  SUBCASE("by default: end-to-start pauses capped at 300 s, the system idle at most 10 s (august-2026)") {
    auto c = run_of(run);
    CHECK(c.workload.pause_basis == traffic::PauseBasis::kEndToStart);
    CHECK(c.workload.max_pause_s == 300);
    CHECK(c.arrival.idle_cap_s == 10);
    REQUIRE(serving::agentx_timing_of(c) != nullptr);
    CHECK(serving::agentx_timing_of(c)->name == "august-2026");
  }
  SUBCASE("may-2026: the trace's think time capped at 60 s and no idle cap, the game's and sweeps' pacing") {
    run.agentx_timing = 0;
    auto c = run_of(run);
    CHECK(c.workload.pause_basis == serving::WorkloadSpec{}.pause_basis);
    CHECK(c.workload.max_pause_s == serving::WorkloadSpec{}.max_pause_s);
    CHECK(c.arrival.idle_cap_s == 0);
    CHECK(serving::agentx_timing_of(c)->name == "may-2026");
  }
  SUBCASE("a flag refines one part: july-2026 with a 20 s cap is no named timing") {
    run.agentx_timing = 2;
    run.max_pause_s = 20;
    auto c = run_of(run);
    CHECK(c.workload.pause_basis == traffic::PauseBasis::kStartToStart);
    CHECK(c.workload.max_pause_s == 20);
    CHECK(serving::agentx_timing_of(c) == nullptr);
  }
  SUBCASE("open-loop agentic arrivals take the pauses but not the idle cap (closed-loop users only)") {
    run.concurrency.reset();
    run.arrival = ArrivalKind::kPoisson;
    run.rate_per_s = 1;
    auto c = run_of(run);
    CHECK(c.workload.pause_basis == traffic::PauseBasis::kEndToStart);
    CHECK(c.arrival.idle_cap_s == 0);
    REQUIRE(serving::agentx_timing_of(c) != nullptr);
    CHECK(serving::agentx_timing_of(c)->name == "august-2026");
  }
  SUBCASE("other shapes keep their own: a named timing on random traffic is refused") {
    BenchmarkRun plain;
    CHECK(run_of(plain).workload.pause_basis == serving::WorkloadSpec{}.pause_basis);
    CHECK(run_of(plain).arrival.idle_cap_s == 0);
    plain.agentx_timing = 3;
    CHECK_THROWS_AS(run_of(plain), std::invalid_argument);
  }
}

TEST_CASE("a benchmark refuses choices that do not apply to each other") {
  BenchmarkRun run;
  SUBCASE("a rate without an open-loop arrival") {
    run.rate_per_s = 3;
    CHECK_THROWS_AS(run_of(run), std::invalid_argument);
  }
  SUBCASE("an open-loop arrival without a rate") {
    run.arrival = ArrivalKind::kPoisson;
    CHECK_THROWS_AS(run_of(run), std::invalid_argument);
  }
  SUBCASE("lengths for agentic sessions, which model their own") {
    run.workload = WorkloadKind::kAgenticCoding;
    run.input_tokens = 100;
    CHECK_THROWS_AS(run_of(run), core::InputError);
  }
  SUBCASE("a pause cap on a workload without pauses") {
    run.max_pause_s = 10;
    CHECK_THROWS_AS(run_of(run), std::invalid_argument);
  }
  SUBCASE("a warm-up as long as the run") {
    run.duration_s = 10;
    run.warmup_s = 10;
    CHECK_THROWS_AS(run_of(run), core::InputError);
  }
  SUBCASE("an open-loop span past the simulator's 1e8 s") {
    // 640 default requests at 1e-6 per second span 6.4e8 s > kMaxRunSpanS = 1e8 s.
    run.arrival = ArrivalKind::kPoisson;
    run.rate_per_s = 1e-6;
    CHECK_THROWS_WITH_AS(run_of(run), doctest::Contains("more than the simulator's 1e8 s"), std::invalid_argument);
  }
}

TEST_CASE("a configuration's GPUs: replicas x tensor-parallel GPUs in each pool") {
  serving::ServingConfig c;
  c.replicas = 3;
  c.deployment.tensor_parallel = 2;
  CHECK(serving::num_gpus(c) == 6);  // 3 x 2
  serving::Disaggregation split;
  split.decode.replicas = 2;
  split.decode.deployment.tensor_parallel = 4;
  c.disaggregated = split;
  CHECK(serving::num_gpus(c) == 14);  // 3 x 2 prefill + 2 x 4 decode
}
