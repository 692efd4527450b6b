// One request alone on one replica: every latency has a closed form in the performance model.
#include "tests/test_serving_support.h"

using namespace tycoon;
using namespace tycoon::serving_test;

namespace {

// Event time is integer nanoseconds and each step is rounded once: sums of rounded steps
// match to floating-point precision.
constexpr double kSingleNsExact = 1e-12;
// ITL percentiles come from a log-bucket histogram (bucket width 1/128, midpoint reported).
constexpr double kHistogramTol = 0.005;

}  // namespace

TEST_CASE("a single request: TTFT is its prefill step, TPOT the mean of its decode steps") {
  // 1,000 prompt tokens fit one 8,192-token step; 100 output tokens = the token sampled at the
  // end of prefill + 99 decode steps at contexts 1000, 1001, ..., 1098.
  auto path = write_trace("single", {R"({"arrival_s": 0.5, "input_tokens": 1000, "output_tokens": 100})"});
  auto cfg = with_trace(gpt_oss_h200(), path);
  const auto& d = cfg.deployment;
  const auto& cal = h200_calibration();

  const double prefill = step_s(perf::predict_prefill(d, cal, 1000));
  double decode_total = 0;
  for (std::int64_t ctx = 1000; ctx < 1099; ++ctx) decode_total += step_s(perf::predict_decode(d, cal, 1, ctx));

  auto s = serving::simulate(cfg, cal);
  CHECK(s.requests_completed == 1);
  CHECK(s.output_tokens == 100);
  CHECK(s.num_iterations == 100);
  CHECK(s.ttft_s.mean == doctest::Approx(prefill).epsilon(kSingleNsExact));
  CHECK(s.tpot_s.mean == doctest::Approx(decode_total / 99).epsilon(kSingleNsExact));
  CHECK(s.e2e_s.mean == doctest::Approx(prefill + decode_total).epsilon(kSingleNsExact));
  // Every gap between tokens is one decode step (~equal: the context grows by 1 per step).
  CHECK(s.itl_s.p50 == doctest::Approx(decode_total / 99).epsilon(kHistogramTol));
  CHECK(s.itl_s.mean == doctest::Approx(decode_total / 99).epsilon(kSingleNsExact));
  CHECK(s.p90_interactivity_tok_per_s_per_user == doctest::Approx(99 / decode_total).epsilon(kSingleNsExact));
  // The run ends with the last token, 0.5 s after the start plus the request's own time.
  CHECK(s.simulated_time_s == doctest::Approx(0.5 + prefill + decode_total).epsilon(kSingleNsExact));
  CHECK(s.output_tok_per_s_per_gpu == doctest::Approx(100 / (0.5 + prefill + decode_total)).epsilon(kSingleNsExact));
}

TEST_CASE("a long prompt is prefilled in chunks of the token budget") {
  // 20,000 tokens with an 8,192-token budget: chunks of 8192 + 8192 + 3616, each after the
  // context the previous ones built; only the last samples a token.
  auto path = write_trace("chunked", {R"({"arrival_s": 0, "input_tokens": 20000, "output_tokens": 2})"});
  auto cfg = with_trace(gpt_oss_h200(), path);
  const auto& d = cfg.deployment;
  const auto& cal = h200_calibration();
  auto chunk = [&](std::int64_t n, std::int64_t ctx, bool last) {
    perf::PrefillChunk c{n, ctx, last};
    return step_s(perf::predict_iteration(perf::BatchShape{std::span(&c, 1), {}}, d, cal));
  };
  const double ttft = chunk(8192, 0, false) + chunk(8192, 8192, false) + chunk(3616, 16384, true);
  auto s = serving::simulate(cfg, cal);
  CHECK(s.ttft_s.mean == doctest::Approx(ttft).epsilon(kSingleNsExact));
  CHECK(s.num_iterations == 4);  // three chunks and one decode step
  CHECK(s.e2e_s.mean == doctest::Approx(ttft + step_s(perf::predict_decode(d, cal, 1, 20000))).epsilon(kSingleNsExact));

  SUBCASE("without chunked prefill the prompt runs whole") {
    cfg.scheduler.chunked_prefill = false;
    auto whole = serving::simulate(cfg, cal);
    CHECK(whole.ttft_s.mean == doctest::Approx(step_s(perf::predict_prefill(d, cal, 20000))).epsilon(kSingleNsExact));
    CHECK(whole.num_iterations == 2);
  }
}

TEST_CASE("speculative decoding with certain acceptance emits k + 1 tokens per step") {
  // Acceptance length 4 with 3 drafts means every draft is accepted (p = 1): 100 tokens after
  // the first take 25 verification steps, at contexts 1000, 1004, ..., 1096.
  auto path = write_trace("spec", {R"({"arrival_s": 0, "input_tokens": 1000, "output_tokens": 101})"});
  auto cfg = with_trace(gpt_oss_h200(), path);
  cfg.deployment.spec_decode = data::SpecDecode{"eagle3", 3, 4.0};
  const auto& d = cfg.deployment;
  const auto& cal = h200_calibration();
  double decode_total = 0;
  for (std::int64_t ctx = 1000; ctx < 1100; ctx += 4) decode_total += step_s(perf::predict_decode(d, cal, 1, ctx));
  auto s = serving::simulate(cfg, cal);
  CHECK(s.num_iterations == 1 + 25);
  CHECK(s.tpot_s.mean == doctest::Approx(decode_total / 100).epsilon(kSingleNsExact));
  // Four tokens arrive together each step: the streamed chunks are one step apart.
  CHECK(s.itl_s.mean == doctest::Approx(decode_total / 25).epsilon(kSingleNsExact));
  CHECK(s.time_by_op_s[static_cast<std::size_t>(perf::OpClass::kDrafter)] > 0);
}

TEST_CASE("two requests arriving together share every step") {
  // Both prompts prefill in one step (2 x 500 tokens), then decode as a batch of two.
  auto path = write_trace("pair", {R"({"arrival_s": 0, "input_tokens": 500, "output_tokens": 3})",
                                   R"({"arrival_s": 0, "input_tokens": 500, "output_tokens": 3})"});
  auto cfg = with_trace(gpt_oss_h200(), path);
  const auto& d = cfg.deployment;
  const auto& cal = h200_calibration();
  const double prefill = step_s(perf::predict_prefill(d, cal, 500, 0, 2));
  const double decode = step_s(perf::predict_decode(d, cal, 2, 500)) + step_s(perf::predict_decode(d, cal, 2, 501));
  auto s = serving::simulate(cfg, cal);
  CHECK(s.requests_completed == 2);
  CHECK(s.num_iterations == 3);
  CHECK(s.ttft_s.p99 == doctest::Approx(prefill).epsilon(kSingleNsExact));
  CHECK(s.e2e_s.p50 == doctest::Approx(prefill + decode).epsilon(kSingleNsExact));
  CHECK(s.mean_batch_size == doctest::Approx(2.0));
}

TEST_CASE("tensor and expert parallel inside a replica: steps are the TP/EP steps, and every GPU counts") {
  // The request of the first test on replicas of 2 GPUs (TP 2, experts split EP 2), two replicas
  // behind round-robin: the request lands on replica 0, the other idles but is still rented.
  auto path = write_trace("single_tp2", {R"({"arrival_s": 0.5, "input_tokens": 1000, "output_tokens": 100})"});
  auto tp1 = with_trace(gpt_oss_h200(), path);
  auto cfg = tp1;
  cfg.deployment.tensor_parallel = 2;
  cfg.deployment.expert_parallel = 2;
  cfg.replicas = 2;
  const auto& d = cfg.deployment;
  const auto& cal = h200_calibration();

  const double prefill = step_s(perf::predict_prefill(d, cal, 1000));
  double decode_total = 0;
  for (std::int64_t ctx = 1000; ctx < 1099; ++ctx) decode_total += step_s(perf::predict_decode(d, cal, 1, ctx));
  // Splitting the weights and heads over two GPUs shortens the step despite the all-reduces.
  CHECK(prefill < step_s(perf::predict_prefill(tp1.deployment, cal, 1000)));

  auto s = serving::simulate(cfg, cal);
  auto one = serving::simulate(tp1, cal);
  CHECK(s.num_gpus == 4);
  CHECK(s.requests_per_replica == std::vector<std::int64_t>{1, 0});
  CHECK(s.ttft_s.mean == doctest::Approx(prefill).epsilon(kSingleNsExact));
  CHECK(s.tpot_s.mean == doctest::Approx(decode_total / 99).epsilon(kSingleNsExact));
  // Output per GPU divides by all four GPUs (data parallel x tensor parallel).
  CHECK(s.output_tok_per_s_per_gpu ==
        doctest::Approx(100 / (0.5 + prefill + decode_total) / 4).epsilon(kSingleNsExact));
  // Half the weights per GPU leaves more HBM for KV: each replica holds more tokens.
  CHECK(s.kv_capacity_tokens_per_replica > one.kv_capacity_tokens_per_replica);
}

TEST_CASE("a trace replayed on generated arrivals ends with its last entry") {
  // `benchmark --trace T --arrival poisson --rate 5` never ended: once the trace was used up,
  // every Poisson arrival found nothing to start and scheduled the next one, forever (also with
  // --num-requests larger than the trace, which is never reached).
  auto path = write_trace("poisson", {R"({"arrival_s": 0, "input_tokens": 100, "output_tokens": 10})",
                                      R"({"arrival_s": 1, "input_tokens": 100, "output_tokens": 10})",
                                      R"({"arrival_s": 2, "input_tokens": 100, "output_tokens": 10})"});
  auto cfg = with_trace(gpt_oss_h200(), path);
  cfg.workload.trace_timestamps = false;
  cfg.arrival.rate_per_s = 5;
  for (auto kind : {serving::ArrivalKind::kPoisson, serving::ArrivalKind::kBursty, serving::ArrivalKind::kDiurnal}) {
    for (std::int64_t num_requests : {std::int64_t{0}, std::int64_t{1000}}) {
      CAPTURE(static_cast<int>(kind));
      CAPTURE(num_requests);
      cfg.arrival.kind = kind;
      cfg.num_requests = num_requests;
      auto s = serving::simulate(cfg, h200_calibration());
      CHECK(s.requests_arrived == 3);  // the three entries, then the run ends
      CHECK(s.requests_completed == 3);
    }
  }
}
