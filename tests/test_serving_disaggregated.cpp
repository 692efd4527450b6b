// Disaggregated prefill/decode serving (sim/serving/disaggregated.h): closed forms for one
// request, conservation of requests and KV blocks across the pools, and the interference the
// technique exists to remove.
#include <algorithm>
#include <fstream>

#include "sim/core/input_error.h"
#include "sim/data/json_reader.h"
#include "sim/perf/memory_plan.h"
#include "sim/serving/disaggregated.h"
#include "tests/test_serving_support.h"

using namespace tycoon;
using namespace tycoon::serving_test;

namespace {

// Each step and the transfer are rounded to whole nanoseconds once; sums of rounded durations
// match to floating-point precision.
constexpr double kNsExact = 1e-12;

// GPT-OSS-120B: `prefill` H200 replicas feed `decode` H200 replicas (the recipe's settings in both
// pools) over `link`.
serving::ServingConfig disaggregated(int prefill, int decode,
                                     serving::KvLinkKind link = serving::KvLinkKind::kInfiniband) {
  auto cfg = gpt_oss_h200();
  cfg.replicas = prefill;
  serving::Disaggregation d;
  d.decode.deployment = cfg.deployment;
  d.decode.scheduler = cfg.scheduler;
  d.decode.replicas = decode;
  const auto& chip = catalog().accelerator("h200");
  d.link = serving::resolve_kv_link(link, chip, chip, catalog().kv_links);
  cfg.disaggregated = d;
  return cfg;
}

double rounded(double s) { return core::to_seconds(core::from_seconds(s)); }

}  // namespace

TEST_CASE("KV links: latency from hardware_db/kv_links.json, bandwidth from the chip cards") {
  const auto& c = catalog();
  const auto& h200 = c.accelerator("h200");
  const auto& b200 = c.accelerator("b200");
  // InfiniBand runs at the scale-out NIC rate of the slower chip: 400 Gb/s NDR = 50e9 B/s per GPU
  // on both cards; 1 us latency (Dynamo's transport table).
  auto ib = serving::resolve_kv_link(serving::KvLinkKind::kInfiniband, h200, b200, c.kv_links);
  CHECK(ib.bandwidth_bytes_per_s ==
        doctest::Approx(std::min(h200.scale_out_bandwidth_bytes_per_s, b200.scale_out_bandwidth_bytes_per_s)));
  CHECK(ib.latency_s == doctest::Approx(1e-6));
  // NVLink within one H200 HGX: the card's 450e9 B/s per GPU per direction.
  auto nv = serving::resolve_kv_link(serving::KvLinkKind::kNvlink, h200, h200, c.kv_links);
  CHECK(nv.bandwidth_bytes_per_s == doctest::Approx(h200.scale_up.bandwidth_bytes_per_s));
  // Host-staged TCP: the file's own 10 GB/s and 50 us.
  auto eth = serving::resolve_kv_link(serving::KvLinkKind::kEthernet, h200, b200, c.kv_links);
  CHECK(eth.bandwidth_bytes_per_s == doctest::Approx(10e9));
  CHECK(eth.latency_s == doctest::Approx(50e-6));
  // An NVLink domain does not span two chip types.
  CHECK_THROWS_AS(serving::resolve_kv_link(serving::KvLinkKind::kNvlink, h200, b200, c.kv_links),
                  std::invalid_argument);
}

TEST_CASE("the KV link file is strict: an unknown key names its pointer") {
  auto path = std::filesystem::temp_directory_path() / "tycoon_test_kv_links.json";
  {
    std::ofstream out(path);
    out << R"({"description": "x", "links": [{"id": "ethernet", "name": "e", "bandwidth_bytes_per_s": 1e10,
              "latency_s": 5e-5, "latncy_s": 1}], "sources": {"ethernet": "s"}})";
  }
  try {
    data::load_kv_links(path);
    FAIL("an unknown key must be an error");
  } catch (const data::LoadError& e) {
    CHECK(e.pointer() == "/links/0/latncy_s");
  }
}

TEST_CASE("one request: TTFT = prefill + KV transfer + the decode side's first step; TPOT is decode only") {
  // 1,000 prompt tokens prefilled on the prefill replica in one step; the KV of 1,000 tokens
  // crosses InfiniBand (latency + per-GPU shard / 50e9 B/s); the decode replica then computes
  // the last prompt token (a 1-token chunk at context 999) and streams the first token; 99
  // decode steps at contexts 1000..1098 follow, exactly as in the aggregated case.
  auto path = write_trace("disagg_single", {R"({"arrival_s": 0.5, "input_tokens": 1000, "output_tokens": 100})"});
  auto cfg = with_trace(disaggregated(1, 1), path);
  const auto& d = cfg.deployment;
  const auto& cal = h200_calibration();

  const double prefill = step_s(perf::predict_prefill(d, cal, 1000));
  const auto plan = perf::plan_memory(d, cfg.scheduler.max_num_batched_tokens, cfg.scheduler.max_num_seqs);
  const double shard_bytes = 1000 * plan.kv_bytes_per_token + plan.fixed_bytes_per_sequence;
  const double transfer = rounded(1e-6 + shard_bytes / catalog().accelerator("h200").scale_out_bandwidth_bytes_per_s);
  perf::PrefillChunk last{1, 999, true};
  const double first_decode = step_s(perf::predict_iteration(perf::BatchShape{std::span(&last, 1), {}}, d, cal));
  double decode_total = 0;
  for (std::int64_t ctx = 1000; ctx < 1099; ++ctx) decode_total += step_s(perf::predict_decode(d, cal, 1, ctx));

  serving::DisaggregatedSimulation sim(cfg, cal);
  CHECK(sim.transfer_s(1000) == doctest::Approx(1e-6 + shard_bytes / 50e9).epsilon(kNsExact));
  auto s = sim.run();
  REQUIRE(s.disaggregated.has_value());
  CHECK(s.requests_completed == 1);
  CHECK(s.output_tokens == 100);
  CHECK(s.ttft_s.mean == doctest::Approx(prefill + transfer + first_decode).epsilon(kNsExact));
  CHECK(s.tpot_s.mean == doctest::Approx(decode_total / 99).epsilon(kNsExact));
  CHECK(s.e2e_s.mean == doctest::Approx(prefill + transfer + first_decode + decode_total).epsilon(kNsExact));
  // 1 prefill step + 1 first step + 99 decode steps; the transfer is not a step.
  CHECK(s.disaggregated->prefill.num_iterations == 1);
  CHECK(s.disaggregated->decode.num_iterations == 100);
  CHECK(s.disaggregated->num_transfers == 1);
  CHECK(s.disaggregated->transfer_s_mean == doctest::Approx(1e-6 + shard_bytes / 50e9).epsilon(kNsExact));
  CHECK(s.disaggregated->kv_bytes_transferred == doctest::Approx(shard_bytes * d.gpus_per_replica()));
  CHECK(s.num_gpus == 2);
  // The TTFT breakdown: prefill, no waits, the transfer, the first step.
  CHECK(s.disaggregated->ttft_prefill_s_mean == doctest::Approx(prefill).epsilon(kNsExact));
  CHECK(s.disaggregated->ttft_kv_wait_s_mean == 0);
  CHECK(s.disaggregated->ttft_link_wait_s_mean == 0);
  CHECK(s.disaggregated->ttft_transfer_s_mean == doctest::Approx(transfer).epsilon(kNsExact));
  CHECK(s.disaggregated->ttft_first_step_s_mean == doctest::Approx(first_decode).epsilon(kNsExact));
  // The prefill replica was busy for its one step over the run's 0.5 s + the request's life.
  CHECK(s.disaggregated->prefill.busy_fraction ==
        doctest::Approx(prefill / (0.5 + prefill + transfer + first_decode + decode_total)).epsilon(1e-9));
}

TEST_CASE("a slower link adds exactly its extra transfer time to TTFT") {
  // Same request over Ethernet (10e9 B/s, 50 us) instead of InfiniBand (50e9 B/s, 1 us): TTFT
  // grows by the difference of the two transfer times and nothing else changes.
  auto path = write_trace("disagg_link", {R"({"arrival_s": 0, "input_tokens": 4000, "output_tokens": 10})"});
  const auto& cal = h200_calibration();
  serving::DisaggregatedSimulation ib_sim(with_trace(disaggregated(1, 1, serving::KvLinkKind::kInfiniband), path), cal);
  serving::DisaggregatedSimulation eth_sim(with_trace(disaggregated(1, 1, serving::KvLinkKind::kEthernet), path), cal);
  const double extra = rounded(eth_sim.transfer_s(4000)) - rounded(ib_sim.transfer_s(4000));
  CHECK(extra > 0);
  auto ib = ib_sim.run();
  auto eth = eth_sim.run();
  CHECK(eth.ttft_s.mean - ib.ttft_s.mean == doctest::Approx(extra).epsilon(1e-9));
  CHECK(eth.tpot_s.mean == doctest::Approx(ib.tpot_s.mean).epsilon(kNsExact));
}

TEST_CASE("requests and KV blocks are conserved across the pools") {
  // Closed-loop chat traffic over 2 prefill and 3 decode replicas; SUBCASE: a decode cache so
  // small that transfers wait for blocks and running requests get preempted.
  auto cfg = disaggregated(2, 3);
  cfg.workload.kind = serving::WorkloadKind::kChat;
  cfg.arrival.concurrency = 48;
  cfg.num_requests = 400;
  SUBCASE("ample KV") {}
  SUBCASE("scarce decode KV") { cfg.disaggregated->decode.scheduler.kv_capacity_tokens = 24000; }
  serving::DisaggregatedSimulation sim(cfg, h200_calibration());
  auto s = sim.run();
  REQUIRE(s.disaggregated.has_value());
  // Every request ended exactly once, in one terminal state.
  CHECK(sim.num_terminal_transitions() == s.requests_arrived);
  CHECK(s.requests_completed + s.requests_failed == s.requests_arrived);
  CHECK(s.requests_arrived == 400);
  for (const auto& r : sim.requests()) CHECK(r.ended);
  // No block leaked on either side; reference counts match the block tables.
  CHECK(sim.kv_blocks_in_use() == 0);
  CHECK(sim.kv_invariants_hold());
  // Each request that reached the decode pool crossed the link once.
  std::int64_t to_decode = 0;
  for (auto n : s.disaggregated->decode.requests_per_replica) to_decode += n;
  CHECK(s.disaggregated->num_transfers == to_decode);
  CHECK(s.requests_completed <= s.disaggregated->num_transfers);
  std::int64_t to_prefill = 0;
  for (auto n : s.disaggregated->prefill.requests_per_replica) to_prefill += n;
  CHECK(to_prefill == s.requests_arrived - s.requests_exceeding_context);
  CHECK(s.disaggregated->prefill.busy_fraction > 0);
  CHECK(s.disaggregated->prefill.busy_fraction <= 1);
  CHECK(s.disaggregated->decode.busy_fraction <= 1);
  // The TTFT parts of the counted completed requests add up to their mean TTFT.
  const auto& st = *s.disaggregated;
  CHECK(st.ttft_prefill_s_mean + st.ttft_kv_wait_s_mean + st.ttft_link_wait_s_mean + st.ttft_transfer_s_mean +
            st.ttft_first_step_s_mean ==
        doctest::Approx(s.ttft_s.mean).epsilon(1e-9));
  if (cfg.disaggregated->decode.scheduler.kv_capacity_tokens > 0) {
    CHECK(s.disaggregated->kv_wait_s_mean > 0);  // transfers queued behind full decode caches
  }
}

TEST_CASE("same seed, same bytes: the disaggregated run is deterministic") {
  auto cfg = disaggregated(1, 2);
  cfg.workload.kind = serving::WorkloadKind::kAgenticCoding;
  cfg.arrival.kind = serving::ArrivalKind::kPoisson;
  cfg.arrival.rate_per_s = 4;
  cfg.num_requests = 120;
  auto a = serving::simulate(cfg, h200_calibration());
  auto b = serving::simulate(cfg, h200_calibration());
  CHECK(a.ttft_s.p99 == b.ttft_s.p99);
  CHECK(a.itl_s.p99 == b.itl_s.p99);
  CHECK(a.output_tok_per_s_per_gpu == b.output_tok_per_s_per_gpu);
  CHECK(a.disaggregated->transfer_s_mean == b.disaggregated->transfer_s_mean);
  CHECK(a.requests_per_replica == b.requests_per_replica);
  // The decode fast path is speed only: the step-by-step run gives the same numbers.
  cfg.scheduler.fast_forward_decode = false;
  cfg.disaggregated->decode.scheduler.fast_forward_decode = false;
  auto c = serving::simulate(cfg, h200_calibration());
  CHECK(c.itl_s.p99 == a.itl_s.p99);
  CHECK(c.e2e_s.mean == a.e2e_s.mean);
  CHECK(c.num_iterations == a.num_iterations);
  // So is cutting its runs into events of a few steps (as a sliced front end does).
  cfg.scheduler.fast_forward_decode = true;
  cfg.disaggregated->decode.scheduler.fast_forward_decode = true;
  serving::SlicedSimulation sliced(cfg, h200_calibration());
  while (!sliced.advance(1)) {
  }
  auto d = sliced.result();
  CHECK(d.itl_s.p99 == a.itl_s.p99);
  CHECK(d.e2e_s.mean == a.e2e_s.mean);
  CHECK(d.num_iterations == a.num_iterations);
  CHECK(d.disaggregated->transfer_s_mean == a.disaggregated->transfer_s_mean);
}

TEST_CASE("decode steps no longer wait behind prefill chunks once the pools are split") {
  // 16 closed-loop users with 8,000-token prompts and 256-token answers. Aggregated, one
  // replica mixes the prompts' chunks into the decode steps: a sequence's gap between tokens
  // includes a chunk of up to 8,192 prompt tokens, so the ITL tail is at least one such chunk's
  // time. Split into a prefill and a decode replica, a decode step holds decodes only: every gap
  // is at most one step of the whole batch at the longest context (16 x 8,256 tokens).
  auto agg = gpt_oss_h200();
  agg.workload.kind = serving::WorkloadKind::kRandom;
  agg.workload.input_tokens = 8000;
  agg.workload.output_tokens = 256;
  agg.arrival.concurrency = 16;
  agg.num_requests = 96;
  auto dis = disaggregated(1, 1);
  dis.workload = agg.workload;
  dis.arrival = agg.arrival;
  dis.num_requests = agg.num_requests;
  const auto& cal = h200_calibration();
  const auto& d = agg.deployment;

  // The longest decode-pool step: 16 sequences at the longest context, one of which may be a
  // request's first step there (its last prompt token, a 1-token chunk).
  std::vector<std::int64_t> decodes(15, 8256);
  perf::PrefillChunk first{1, 8255, true};
  const double longest_decode_step =
      std::max(step_s(perf::predict_decode(d, cal, 16, 8256)),
               step_s(perf::predict_iteration(perf::BatchShape{std::span(&first, 1), decodes}, d, cal)));
  perf::PrefillChunk chunk{6400, 0, true};  // the shortest prompt (0.8 x 8,000) in one chunk
  const double shortest_prompt_chunk =
      step_s(perf::predict_iteration(perf::BatchShape{std::span(&chunk, 1), {}}, d, cal));
  REQUIRE(shortest_prompt_chunk > 2 * longest_decode_step);

  auto a = serving::simulate(agg, cal);
  auto s = serving::simulate(dis, cal);
  // The histogram reports bucket midpoints (width 1/128): tolerance on the bound.
  constexpr double kHistogramTol = 0.005;
  CHECK(a.itl_s.p99 >= shortest_prompt_chunk * (1 - kHistogramTol));
  CHECK(s.itl_s.p99 <= longest_decode_step * (1 + kHistogramTol));
  CHECK(s.itl_s.p99 < a.itl_s.p99);
}

TEST_CASE("the aggregated and the disaggregated run see one request stream from one seed") {
  // Both simulations draw their requests from one client (sim/serving/clients.h). With open-loop
  // Poisson arrivals the stream does not depend on how fast it is served: request i has the same
  // arrival instant and lengths in both runs. Random lengths in [0.5 x 2,048, 2,048] and
  // [0.3 x 512, 512] (the range ratios must reach the disaggregated run too).
  auto dis = disaggregated(1, 2);
  dis.workload.kind = serving::WorkloadKind::kRandom;
  dis.workload.input_tokens = 2048;
  dis.workload.output_tokens = 512;
  dis.workload.input_range_ratio = 0.5;
  dis.workload.output_range_ratio = 0.3;
  dis.arrival.kind = serving::ArrivalKind::kPoisson;
  dis.arrival.rate_per_s = 6;
  dis.num_requests = 80;
  auto agg = dis;
  agg.disaggregated.reset();
  serving::DisaggregatedSimulation d(dis, h200_calibration());
  d.run();
  serving::Simulation a(agg, h200_calibration());
  a.run();
  REQUIRE(d.requests().size() == 80);
  REQUIRE(a.requests().size() == 80);
  bool lengths_vary = false;
  for (std::size_t i = 0; i < 80; ++i) {
    const auto& x = a.requests()[i];
    const auto& y = d.requests()[i];
    CHECK(x.arrived_at == y.arrived_at);
    CHECK(x.input_tokens == y.input_tokens);
    CHECK(x.output_tokens == y.output_tokens);
    CHECK(y.num_output == y.output_tokens);  // completed with the request's own length
    lengths_vary = lengths_vary || x.output_tokens != 512;
  }
  CHECK(lengths_vary);  // the output range ratio drew shorter answers
}

TEST_CASE("a disaggregated warm-up of requests ends before the measured run and counts nowhere") {
  // 8 closed-loop users, a warm-up of 16 requests (InferenceX: 2 x concurrency), then 40 measured
  // ones; as in the aggregated run (test_serving_client.cpp), the measured run starts when the
  // last warm-up request ended, every user at once, and only measured requests enter the metrics.
  auto cfg = disaggregated(1, 1);
  cfg.workload.kind = serving::WorkloadKind::kRandom;
  cfg.workload.input_tokens = 1024;
  cfg.workload.output_tokens = 256;
  cfg.workload.output_range_ratio = 0.8;
  cfg.arrival.concurrency = 8;
  cfg.warmup_requests = 16;
  cfg.num_requests = 40;
  serving::DisaggregatedSimulation sim(cfg, h200_calibration());
  auto s = sim.run();
  const auto& rs = sim.requests();
  REQUIRE(rs.size() == 16 + 40);
  core::Time warmup_end{}, first_measured = core::kNever, last{};
  std::int64_t measured_output = 0;
  for (std::size_t i = 0; i < rs.size(); ++i) {
    if (i < 16) {
      CHECK_FALSE(rs[i].counted);
      warmup_end = std::max(warmup_end, rs[i].finished_at);
    } else {
      CHECK(rs[i].counted);
      first_measured = std::min(first_measured, rs[i].arrived_at);
      measured_output += rs[i].num_output;
      last = std::max(last, rs[i].finished_at);
    }
  }
  CHECK(first_measured == warmup_end);
  CHECK(std::count_if(rs.begin(), rs.end(), [&](const serving::Request& r) { return r.arrived_at == warmup_end; }) ==
        8);
  CHECK(s.requests_arrived == 56);
  CHECK(s.output_tokens == measured_output);
  constexpr double kRoundoff = 1e-12;
  CHECK(s.output_tok_per_s_per_gpu ==
        doctest::Approx(static_cast<double>(measured_output) / core::to_seconds(last - warmup_end) / s.num_gpus)
            .epsilon(kRoundoff));
}

TEST_CASE("a disaggregated ramp-up spreads the users' first requests evenly") {
  // User k of 4 starts at k x 0.4 / 4 s; each request has over 200 decode steps of over a
  // millisecond, so the first four requests are the four users' first.
  auto cfg = disaggregated(1, 1);
  cfg.workload.kind = serving::WorkloadKind::kRandom;
  cfg.workload.input_tokens = 1024;
  cfg.workload.output_tokens = 256;
  cfg.arrival.concurrency = 4;
  cfg.arrival.ramp_up_s = 0.4;
  cfg.num_requests = 8;
  serving::DisaggregatedSimulation sim(cfg, h200_calibration());
  sim.run();
  const auto& rs = sim.requests();
  REQUIRE(rs.size() == 8);
  for (int k = 0; k < 4; ++k) {
    CHECK(rs[static_cast<std::size_t>(k)].arrived_at - core::kSimStart == core::from_seconds(0.1 * k));
  }
}

// One serving kernel (sim/serving/simulation.h) runs aggregated and split deployments: the
// front end, admission and the faults are the same code, so they must give the same answers.

TEST_CASE("a split deployment's TTFT includes the API server's front end exactly as an aggregated one's does") {
  // One request on idle engines, served through vLLM's API server and then offline (token ids
  // in). The front end holds the request for max(per-request latency, its prompt's tokenization)
  // before any engine sees it; nothing else differs, so the served TTFT is the offline one plus
  // that time, aggregated or split alike.
  const auto& cal = h200_calibration();
  data::Engine vllm = catalog().engine("vllm");
  REQUIRE(vllm.frontend_request_s == doctest::Approx(0.012));  // the engine card's figure
  std::int64_t prompt_tokens = 1024;
  double front_end_s = 0;
  SUBCASE("the per-request latency dominates") {
    // 1,024 tokens x 2.07 us = 2.1 ms of tokenization, inside the 12 ms request latency.
    REQUIRE(1024 * vllm.tokenize_s_per_input_token < vllm.frontend_request_s);
    front_end_s = vllm.frontend_request_s;
  }
  SUBCASE("the tokenization lane dominates") {
    // 100 tokens at 1 ms each: 0.1 s, beyond the 12 ms request latency.
    vllm.tokenize_s_per_input_token = 1e-3;
    prompt_tokens = 100;
    front_end_s = 0.1;
  }
  auto path = write_trace("kernel_front_end", {R"({"arrival_s": 0.5, "input_tokens": )" +
                                               std::to_string(prompt_tokens) + R"(, "output_tokens": 20})"});
  const auto ttft_shift = [&](serving::ServingConfig cfg) {
    cfg.deployment.engine = &vllm;
    if (cfg.disaggregated) cfg.disaggregated->decode.deployment.engine = &vllm;
    cfg.api_server = true;
    const double served = serving::simulate(cfg, cal).ttft_s.mean;
    cfg.api_server = false;
    return served - serving::simulate(cfg, cal).ttft_s.mean;
  };
  const double aggregated = ttft_shift(with_trace(gpt_oss_h200(), path));
  const double split = ttft_shift(with_trace(disaggregated(1, 1), path));
  constexpr double kEventTimeRounding = 1e-8;  // conversions of the front end's times to integer event time
  CHECK(std::abs(aggregated - front_end_s) < kEventTimeRounding);
  CHECK(std::abs(split - front_end_s) < kEventTimeRounding);
  CHECK(split == doctest::Approx(aggregated).epsilon(kNsExact));
}

TEST_CASE("a workload that makes no progress raises the same input error, aggregated or split") {
  // Four closed-loop users and a queue that admits nobody (max_queue 0): every request is
  // rejected the instant it arrives and its user sends the next one at that same instant, so
  // the clock never moves. The kernel stops it after its limit of events at one instant (lowered
  // here from 50 million so the test is quick) with core::InputError — bad input, not a bug.
  auto split = disaggregated(1, 1);
  split.workload.kind = serving::WorkloadKind::kRandom;
  split.workload.input_tokens = 256;
  split.workload.output_tokens = 16;
  split.arrival.concurrency = 4;
  split.num_requests = 0;
  split.duration_s = 60;
  split.scheduler.max_queue = 0;
  auto aggregated = split;
  aggregated.disaggregated.reset();
  constexpr std::int64_t kEventsAtOneInstant = 10'000;
  const char* const kMessage = "the workload makes no progress: every request fails at once";
  for (const auto* cfg : {&aggregated, &split}) {
    CAPTURE(cfg->disaggregated.has_value());
    serving::Simulation sim(*cfg, h200_calibration());
    sim.limit_events_at_one_instant(kEventsAtOneInstant);
    CHECK_THROWS_WITH_AS(sim.run(), kMessage, core::InputError);
    CHECK(sim.num_terminal_transitions() > 0);  // every request that ended was rejected
    CHECK(sim.requests().back().arrived_at == core::kSimStart);
  }
}

TEST_CASE("one request through the same chip: the split's decode phase is the aggregated one's") {
  // Through the API server (vLLM's 12 ms front end) on one H200 aggregated and on 1P+1D H200s
  // over InfiniBand. Both run the 1,000-token prompt in one prefill step and then 99 decode steps
  // at contexts 1,000..1,098, so TPOT and E2E - TTFT agree; the split's TTFT is the aggregated
  // one (front end + prefill) plus what only the split pays: the KV transfer and the decode
  // side's first step (the last prompt token as a 1-token chunk at context 999).
  auto path = write_trace("kernel_agree", {R"({"arrival_s": 0.5, "input_tokens": 1000, "output_tokens": 100})"});
  auto split_cfg = with_trace(disaggregated(1, 1), path);
  split_cfg.api_server = true;
  auto aggregated_cfg = split_cfg;
  aggregated_cfg.disaggregated.reset();
  const auto& cal = h200_calibration();
  const auto& d = split_cfg.deployment;
  serving::DisaggregatedSimulation split_sim(split_cfg, cal);
  const double transfer = rounded(split_sim.transfer_s(1000));
  perf::PrefillChunk last{1, 999, true};
  const double first_decode = step_s(perf::predict_iteration(perf::BatchShape{std::span(&last, 1), {}}, d, cal));
  const double front_end = rounded(catalog().engine("vllm").frontend_request_s);

  const auto split = split_sim.run();
  const auto aggregated = serving::simulate(aggregated_cfg, cal);
  REQUIRE(split.requests_completed == 1);
  REQUIRE(aggregated.requests_completed == 1);
  CHECK(split.output_tokens == aggregated.output_tokens);
  CHECK(split.tpot_s.mean == doctest::Approx(aggregated.tpot_s.mean).epsilon(kNsExact));
  CHECK(split.e2e_s.mean - split.ttft_s.mean ==
        doctest::Approx(aggregated.e2e_s.mean - aggregated.ttft_s.mean).epsilon(kNsExact));
  CHECK(split.ttft_s.mean == doctest::Approx(aggregated.ttft_s.mean + transfer + first_decode).epsilon(kNsExact));
  // The TTFT breakdown's first part holds the front end: front end + prefill.
  const double prefill = step_s(perf::predict_prefill(d, cal, 1000));
  CHECK(split.disaggregated->ttft_prefill_s_mean == doctest::Approx(front_end + prefill).epsilon(kNsExact));
}

TEST_CASE("admission refuses a request beyond the context window alike, aggregated or split") {
  // GPT-OSS-120B's window is 131,072 tokens: a 140,000-token prompt can never run, and a
  // 1,000-token one beside it is unaffected. Both deployments count the same arrivals, the same
  // failure as beyond the context, and serve the other request.
  auto path = write_trace("kernel_window", {R"({"arrival_s": 0, "input_tokens": 140000, "output_tokens": 10})",
                                            R"({"arrival_s": 0.1, "input_tokens": 1000, "output_tokens": 10})"});
  auto split_cfg = with_trace(disaggregated(1, 1), path);
  auto aggregated_cfg = split_cfg;
  aggregated_cfg.disaggregated.reset();
  const auto split = serving::simulate(split_cfg, h200_calibration());
  const auto aggregated = serving::simulate(aggregated_cfg, h200_calibration());
  for (const auto* s : {&aggregated, &split}) {
    CAPTURE(s->disaggregated.has_value());
    CHECK(s->requests_arrived == 2);
    CHECK(s->requests_failed == 1);
    CHECK(s->requests_exceeding_context == 1);
    CHECK(s->requests_exceeding_kv_cache == 0);
    CHECK(s->requests_completed == 1);
  }
}
