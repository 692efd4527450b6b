// The decode fast path (Replica::fast_forward) is a speed-up only: with it on or off, every
// configuration gives the same summary bit for bit, and every request ends in the same state.
// It rests on perf::DecodeStepModel pricing a decode-only step exactly as predict_iteration does.
#include "tests/test_serving_support.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "sim/core/rng.h"

using namespace tycoon;
using namespace tycoon::serving_test;

namespace {

// Bitwise equality: the fast path must not move a single bit, so no tolerance anywhere here.
bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// A decode batch's attended keys and sparse-indexer keys per layer group, summed over `contexts`
// (what the replica keeps running sums of), and the longest context.
struct SummedKeys {
  std::vector<double> keys, index;
  std::int64_t longest = 0;
};
SummedKeys summed_keys(const perf::DecodeStepModel& model, const std::vector<std::int64_t>& contexts) {
  SummedKeys out{std::vector<double>(model.num_groups(), 0.0), std::vector<double>(model.num_groups(), 0.0), 0};
  for (auto c : contexts) out.longest = std::max(out.longest, c);
  for (std::size_t g = 0; g < model.num_groups(); ++g) {
    const auto& m = model.mixer(g);
    for (auto c : contexts) {
      out.keys[g] += model.keys_of(g, c);
      if (m.sparse_top_k_tokens > 0 && m.indexer_num_heads > 0)
        out.index[g] += static_cast<double>(c) + model.q_per_seq();
    }
  }
  return out;
}

void check_same_latency(const char* what, const serving::LatencyStats& a, const serving::LatencyStats& b) {
  INFO(what);
  CHECK(same_bits(a.mean, b.mean));
  CHECK(same_bits(a.p50, b.p50));
  CHECK(same_bits(a.p90, b.p90));
  CHECK(same_bits(a.p99, b.p99));
}

// Every field of ServingSummary.
void check_same_summary(const serving::ServingSummary& a, const serving::ServingSummary& b) {
  check_same_latency("ttft", a.ttft_s, b.ttft_s);
  check_same_latency("tpot", a.tpot_s, b.tpot_s);
  check_same_latency("itl", a.itl_s, b.itl_s);
  check_same_latency("e2e", a.e2e_s, b.e2e_s);
  CHECK(same_bits(a.output_tok_per_s_per_gpu, b.output_tok_per_s_per_gpu));
  CHECK(same_bits(a.p90_interactivity_tok_per_s_per_user, b.p90_interactivity_tok_per_s_per_user));
  CHECK(a.requests_arrived == b.requests_arrived);
  CHECK(a.requests_completed == b.requests_completed);
  CHECK(a.requests_rejected == b.requests_rejected);
  CHECK(a.requests_timed_out == b.requests_timed_out);
  CHECK(a.requests_failed == b.requests_failed);
  CHECK(a.requests_exceeding_context == b.requests_exceeding_context);
  CHECK(a.input_tokens == b.input_tokens);
  CHECK(a.cached_input_tokens == b.cached_input_tokens);
  CHECK(a.output_tokens == b.output_tokens);
  CHECK(same_bits(a.prefix_cache_hit_rate, b.prefix_cache_hit_rate));
  CHECK(same_bits(a.simulated_time_s, b.simulated_time_s));
  CHECK(same_bits(a.mean_batch_size, b.mean_batch_size));
  CHECK(same_bits(a.kv_utilization_mean, b.kv_utilization_mean));
  CHECK(a.num_iterations == b.num_iterations);
  CHECK(a.num_preemptions == b.num_preemptions);
  for (std::size_t i = 0; i < perf::kNumOpClasses; ++i) {
    INFO("time_by_op_s[" << perf::kOpClassNames[i] << "]");
    CHECK(same_bits(a.time_by_op_s[i], b.time_by_op_s[i]));
  }
  CHECK(a.provenance == b.provenance);
  CHECK(a.requests_per_replica == b.requests_per_replica);
  CHECK(a.kv_capacity_tokens_per_replica == b.kv_capacity_tokens_per_replica);
  CHECK(a.num_gpus == b.num_gpus);
}

struct Outcome {
  serving::ServingSummary summary;
  std::vector<serving::Request> requests;
  std::int64_t num_events = 0;  // events the loop handled
  bool kv_clean = false;
};

// `max_steps_per_event`: the fast path's runs cut into events of at most that many steps (as a
// sliced front end runs them, SlicedSimulation::kStepsPerEvent): the same bytes in smaller pieces.
Outcome run(serving::ServingConfig cfg, bool fast, std::int64_t max_steps_per_event = 0) {
  cfg.scheduler.fast_forward_decode = fast;
  serving::Simulation sim(cfg, h200_calibration());
  if (max_steps_per_event > 0) sim.limit_steps_per_event(max_steps_per_event);
  Outcome o;
  sim.start();
  while (!sim.advance(1)) ++o.num_events;
  o.summary = sim.finish();
  o.requests = sim.requests();
  o.kv_clean = sim.kv_blocks_in_use() == 0 && sim.kv_invariants_hold();
  return o;
}

// Requests whose end state differs between two runs of one configuration.
std::size_t mismatched_requests(const Outcome& x, const Outcome& y) {
  REQUIRE(x.requests.size() == y.requests.size());
  std::size_t mismatched = 0;
  for (std::size_t i = 0; i < x.requests.size(); ++i) {
    const auto& a = x.requests[i];
    const auto& b = y.requests[i];
    bool same = a.state == b.state && a.num_output == b.num_output && a.num_computed == b.num_computed &&
                a.num_cached_tokens == b.num_cached_tokens && a.num_preemptions == b.num_preemptions &&
                a.replica == b.replica && a.arrived_at == b.arrived_at && a.first_token_at == b.first_token_at &&
                a.last_token_at == b.last_token_at && a.finished_at == b.finished_at;
    mismatched += same ? 0 : 1;
  }
  return mismatched;
}

// Runs `cfg` both ways, and the fast way cut into events of 5 steps at most, and checks summaries
// and every request's end state; returns the first two.
std::pair<Outcome, Outcome> check_fast_equals_steps(const serving::ServingConfig& cfg) {
  auto fast = run(cfg, true);
  auto steps = run(cfg, false);
  check_same_summary(fast.summary, steps.summary);
  CHECK(fast.kv_clean);
  CHECK(steps.kv_clean);
  CHECK(mismatched_requests(fast, steps) == 0);
  {
    INFO("the fast path cut into events of at most 5 steps");
    auto cut = run(cfg, true, 5);
    check_same_summary(cut.summary, steps.summary);
    CHECK(cut.kv_clean);
    CHECK(mismatched_requests(cut, steps) == 0);
    // Cut runs are more events than whole ones (when any run was longer than 5 steps), never fewer.
    CHECK(cut.num_events >= fast.num_events);
  }
  return {std::move(fast), std::move(steps)};
}

const data::Catalog& ff_catalog() { return catalog(); }

// Llama 3.1 8B on one H200 with vLLM in BF16, the engine's defaults (no recipe in the catalog).
serving::ServingConfig llama8b_h200() {
  serving::ServingConfig cfg;
  cfg.deployment.model = &ff_catalog().model("llama-3.1-8b");
  cfg.deployment.hardware = &ff_catalog().accelerator("h200");
  cfg.deployment.engine = &ff_catalog().engine("vllm");
  cfg.deployment.precision = Precision::kBf16;
  cfg.seed = 3;
  return cfg;
}

serving::ServingConfig random_1k1k(serving::ServingConfig cfg, int users, std::int64_t requests) {
  cfg.workload.kind = serving::WorkloadKind::kRandom;
  cfg.workload.input_tokens = 1024;
  cfg.workload.output_tokens = 1024;
  cfg.arrival.kind = serving::ArrivalKind::kClosedLoop;
  cfg.arrival.concurrency = users;
  cfg.num_requests = requests;
  return cfg;
}

}  // namespace

TEST_CASE("DecodeStepModel prices a decode-only step bit for bit as predict_iteration") {
  // Random batches on models covering every attention pattern the model knows: full (Llama),
  // sliding window (GPT-OSS, Gemma), chunked (Llama 4), MLA + sparse indexer (DeepSeek V3.2),
  // linear attention (Qwen 3.5); with and without speculative decoding, CUDA graphs and scaling.
  core::RngStream rng(11, core::RngPurpose::kAdvisor);
  for (const char* id : {"llama-3.1-8b", "gpt-oss-120b", "gemma-4-31b", "llama-4-scout", "deepseek-v3.2",
                         "qwen3.5-397b", "nemotron-3-ultra"}) {
    for (bool spec : {false, true}) {
      perf::Deployment d;
      d.model = &ff_catalog().model(id);
      d.hardware = &ff_catalog().accelerator("h200");
      d.engine = &ff_catalog().engine("vllm");
      d.tensor_parallel = 8;
      if (spec) {
        // Also eager launches (the host-bound branch) and per-class code-change scaling.
        d.spec_decode = data::SpecDecode{"eagle3", 3, 2.3};
        d.cuda_graphs = false;
        for (std::size_t i = 0; i < perf::kNumOpClasses; ++i) d.op_time_scale[i] = 0.55 + 0.07 * static_cast<double>(i);
      }
      for (std::int64_t n : {1, 7, 64, 256}) {
        perf::DecodeStepModel model(d, h200_calibration(), n);
        std::vector<std::int64_t> contexts(static_cast<std::size_t>(n));
        for (int trial = 0; trial < 5; ++trial) {
          for (auto& c : contexts) c = rng.uniform_int(1, trial < 2 ? 300 : 200000);
          const auto [keys, index, longest] = summed_keys(model, contexts);
          perf::IterationCost fast;
          model.evaluate(keys, index, static_cast<double>(longest) + model.q_per_seq(), fast);
          perf::DecodeStepTimes times;
          model.step_times(keys, index, static_cast<double>(longest) + model.q_per_seq(), times);
          auto full = perf::predict_iteration(perf::BatchShape{{}, contexts}, d, h200_calibration());
          INFO(id << (spec ? " spec" : "") << " batch " << n);
          CHECK(same_bits(fast.total_s, full.total_s));
          CHECK(same_bits(fast.gpu_s, full.gpu_s));
          CHECK(same_bits(fast.host_launch_s, full.host_launch_s));
          CHECK(fast.provenance == full.provenance);
          CHECK(same_bits(times.total_s, full.total_s));
          CHECK(times.provenance == full.provenance);
          for (std::size_t i = 0; i < perf::kNumOpClasses; ++i) {
            CHECK(same_bits(fast.ops[i].time_s, full.ops[i].time_s));
            CHECK(same_bits(fast.ops[i].compute_s, full.ops[i].compute_s));
            CHECK(same_bits(fast.ops[i].memory_s, full.ops[i].memory_s));
            CHECK(same_bits(fast.ops[i].flop, full.ops[i].flop));
            CHECK(same_bits(fast.ops[i].bytes, full.ops[i].bytes));
            CHECK(same_bits(times.time_s[i], full.ops[i].time_s));
          }
        }
      }
    }
  }
}

TEST_CASE("DecodeStepModel matches predict_iteration with an engine efficiency below 1 and compute-bound attention") {
  // step_times skips the engine efficiency's divisions only when it is 1.0, and the compute
  // term's division only when the memory term is far above it: an AMD chip (vLLM at 0.7 there)
  // and 15 draft tokens (compute-bound decode attention on MLA) take the other branches.
  core::RngStream rng(12, core::RngPurpose::kAdvisor);
  int compute_bound = 0;  // steps whose decode attention is compute-bound (the other branch)
  for (const char* chip : {"h200", "mi300x"}) {
    for (const char* id : {"llama-3.1-8b", "gpt-oss-120b", "deepseek-v3.2"}) {
      for (int drafts : {0, 15}) {
        perf::Deployment d;
        d.model = &ff_catalog().model(id);
        d.hardware = &ff_catalog().accelerator(chip);
        d.engine = &ff_catalog().engine("vllm");
        d.tensor_parallel = 8;
        if (drafts > 0) d.spec_decode = data::SpecDecode{"eagle3", drafts, 3.1};
        for (std::int64_t n : {1, 64}) {
          perf::DecodeStepModel model(d, h200_calibration(), n);
          std::vector<std::int64_t> contexts(static_cast<std::size_t>(n));
          for (int trial = 0; trial < 4; ++trial) {
            for (auto& c : contexts) c = rng.uniform_int(1, trial < 2 ? 300 : 100000);
            const auto [keys, index, longest] = summed_keys(model, contexts);
            perf::DecodeStepTimes times;
            model.step_times(keys, index, static_cast<double>(longest) + model.q_per_seq(), times);
            auto full = perf::predict_iteration(perf::BatchShape{{}, contexts}, d, h200_calibration());
            INFO(chip << " " << id << " drafts " << drafts << " batch " << n);
            CHECK(same_bits(times.total_s, full.total_s));
            CHECK(times.provenance == full.provenance);
            for (std::size_t i = 0; i < perf::kNumOpClasses; ++i) CHECK(same_bits(times.time_s[i], full.ops[i].time_s));
            const auto& attention = full.op(perf::OpClass::kAttentionDecode);
            compute_bound += attention.compute_s >= attention.memory_s ? 1 : 0;
          }
        }
      }
    }
  }
  CHECK(compute_bound > 0);
}

TEST_CASE("metrics::sort_samples sorts as std::sort") {
  core::RngStream rng(13, core::RngPurpose::kAdvisor);
  for (std::size_t n : {0, 5, 2047, 2048, 10000}) {
    for (int kind = 0; kind < 4; ++kind) {
      std::vector<double> v(n);
      for (auto& x : v) {
        switch (kind) {
          case 0:
            x = rng.uniform01();
            break;  // latencies
          case 1:
            x = static_cast<double>(rng.uniform_int(0, 50)) * 0.125;
            break;  // many ties, zeros
          case 2:
            x = std::ldexp(0.5 + 0.5 * rng.uniform01(), static_cast<int>(rng.uniform_int(-60, 60)));
            break;
          default:
            x = 2 * rng.uniform01() - 1;
            break;  // negatives: std::sort
        }
      }
      if (kind == 3 && n > 0) v[n / 2] = -0.0;
      auto expected = v;
      std::sort(expected.begin(), expected.end());
      metrics::sort_samples(v);
      INFO("n " << n << " kind " << kind);
      REQUIRE(v.size() == expected.size());
      bool same = true;
      for (std::size_t i = 0; i < n; ++i) same = same && same_bits(v[i], expected[i]);
      CHECK(same);
    }
  }
}

TEST_CASE("the decode fast path gives the step-by-step summary, bit for bit") {
  SUBCASE("Llama 3.1 8B, closed loop, 1 / 8 / 64 users") {
    for (int users : {1, 8, 64}) {
      INFO(users << " users");
      auto [fast, steps] = check_fast_equals_steps(random_1k1k(llama8b_h200(), users, 3 * users));
      // The point of it: most steps never become events. At 64 users a request completes about
      // every 1024 / 64 = 16 steps, so runs average ~10 steps; ask for at least 3x fewer events.
      CHECK(fast.num_events * 3 < steps.num_events);
    }
  }
  SUBCASE("GPT-OSS-120B (sliding-window layers), closed loop, 1 / 8 / 64 users") {
    for (int users : {1, 8, 64}) {
      INFO(users << " users");
      auto [fast, steps] = check_fast_equals_steps(random_1k1k(gpt_oss_h200(), users, 2 * users));
      CHECK(fast.num_events < steps.num_events);
    }
  }
  SUBCASE("other model families from their recipes (MLA, sparse, chunked, hybrid linear attention)") {
    // The fast path runs, or stands aside where attended keys are not closed-form; either way the
    // same bytes.
    const std::pair<const char*, const char*> recipes[] = {{"deepseek-v3.2", "h200"}, {"kimi-k2.6", "h200"},
                                                           {"qwen3.5-397b", "h200"},  {"minimax-m2.7", "h200"},
                                                           {"llama-4-scout", "h100"}, {"gemma-4-31b", "h100"}};
    int num_ran = 0;
    for (const auto& [model_id, chip_id] : recipes) {
      const char *model = model_id, *chip = chip_id;  // INFO captures them; clang 14 cannot capture bindings
      const auto* recipe = ff_catalog().find_recipe(model, chip);
      REQUIRE(recipe != nullptr);
      serving::ServingConfig cfg;
      auto resolved =
          serving::resolve_serving(ff_catalog(), ff_catalog().model(model), ff_catalog().accelerator(chip), {});
      cfg.deployment = resolved.deployment;
      cfg.deployment.spec_decode.reset();
      cfg.scheduler = resolved.scheduler;
      cfg = random_1k1k(cfg, 32, 64);
      INFO(model << " on " << chip);
      check_fast_equals_steps(cfg);
      ++num_ran;
    }
    CHECK(num_ran == 6);
  }
  SUBCASE("short prompts decode inside GPT-OSS's 128-token window first") {
    auto cfg = random_1k1k(gpt_oss_h200(), 16, 48);
    cfg.workload.input_tokens = 40;
    cfg.workload.output_tokens = 300;
    check_fast_equals_steps(cfg);
  }
  SUBCASE("Poisson arrivals") {
    auto cfg = random_1k1k(llama8b_h200(), 0, 200);
    cfg.arrival.kind = serving::ArrivalKind::kPoisson;
    cfg.arrival.rate_per_s = 4;
    check_fast_equals_steps(cfg);
  }
  SUBCASE("2 and 4 replicas, each router") {
    for (int replicas : {2, 4}) {
      for (auto router : {serving::RouterKind::kRoundRobin, serving::RouterKind::kLeastOutstanding,
                          serving::RouterKind::kPrefixAffinity}) {
        INFO(replicas << " replicas, router " << serving::kRouterNames[static_cast<std::size_t>(router)]);
        auto cfg = random_1k1k(llama8b_h200(), 16 * replicas, 32 * replicas);
        cfg.replicas = replicas;
        cfg.router = router;
        check_fast_equals_steps(cfg);
      }
    }
  }
  SUBCASE("8 replicas: their runs interleave in time order instead of stopping at each other's steps") {
    auto cfg = random_1k1k(llama8b_h200(), 8 * 32, 8 * 64);
    cfg.replicas = 8;
    cfg.router = serving::RouterKind::kLeastOutstanding;
    auto [fast, steps] = check_fast_equals_steps(cfg);
    // Without the interleaving each run would end at the next replica's step (~1 step a run).
    CHECK(fast.num_events * 3 < steps.num_events);
    auto tight = cfg;
    tight.scheduler.kv_capacity_tokens = 40000;  // preemptions in every replica
    tight.warmup_s = 20;
    tight.router = serving::RouterKind::kRoundRobin;
    auto [fast_tight, steps_tight] = check_fast_equals_steps(tight);
    CHECK(steps_tight.summary.num_preemptions > 0);
    auto oss = random_1k1k(gpt_oss_h200(), 8 * 16, 8 * 32);
    oss.replicas = 8;
    oss.workload.kind = serving::WorkloadKind::kAgenticCoding;
    oss.router = serving::RouterKind::kPrefixAffinity;
    check_fast_equals_steps(oss);
  }
  SUBCASE("agentic coding: prefix caching hashes decoded blocks, think times between turns") {
    auto cfg = gpt_oss_h200();
    cfg.workload.kind = serving::WorkloadKind::kAgenticCoding;
    cfg.arrival.kind = serving::ArrivalKind::kPoisson;
    cfg.arrival.rate_per_s = 0.5;
    cfg.num_requests = 150;
    auto [fast, steps] = check_fast_equals_steps(cfg);
    CHECK(fast.summary.cached_input_tokens > 0);
    auto llama = cfg;
    llama.deployment = llama8b_h200().deployment;
    llama.arrival.kind = serving::ArrivalKind::kClosedLoop;
    llama.arrival.concurrency = 32;
    check_fast_equals_steps(llama);
  }
  SUBCASE("chat workload, prefix caching on and off") {
    for (bool caching : {true, false}) {
      auto cfg = random_1k1k(llama8b_h200(), 24, 120);
      cfg.workload.kind = serving::WorkloadKind::kChat;
      cfg.scheduler.prefix_caching = caching;
      check_fast_equals_steps(cfg);
    }
  }
  SUBCASE("KV pressure: preemptions, recompute, guaranteed-no-evict admission") {
    for (auto admission : {serving::KvAdmission::kOptimistic, serving::KvAdmission::kGuaranteedNoEvict}) {
      auto cfg = random_1k1k(llama8b_h200(), 16, 48);
      cfg.scheduler.kv_capacity_tokens = 12000;
      cfg.scheduler.kv_admission = admission;
      auto [fast, steps] = check_fast_equals_steps(cfg);
      if (admission == serving::KvAdmission::kOptimistic) CHECK(steps.summary.num_preemptions > 0);
      auto oss = random_1k1k(gpt_oss_h200(), 16, 48);
      oss.scheduler.kv_capacity_tokens = 4096;
      oss.scheduler.kv_admission = admission;
      check_fast_equals_steps(oss);
    }
  }
  SUBCASE("warmup, a duration limit and queue timeouts under overload") {
    auto cfg = random_1k1k(llama8b_h200(), 0, 0);
    cfg.arrival.kind = serving::ArrivalKind::kPoisson;
    cfg.arrival.rate_per_s = 40;
    cfg.duration_s = 30;
    cfg.warmup_s = 7.5;
    cfg.scheduler.max_num_seqs = 32;
    cfg.scheduler.queue_timeout_s = 2;
    auto [fast, steps] = check_fast_equals_steps(cfg);
    CHECK(steps.summary.requests_timed_out > 0);
  }
  SUBCASE("batch waiting: held prompts, and KV pressure that leaves waiting prompts unadmittable") {
    // TensorRT-LLM's setting as InferenceX ran Llama-3.1-70B (20 steps, 90%): steps that hold
    // prompts are decode-only, and a run may go by while no prompt can be admitted; either way
    // the hold count, and so the bytes, are the step-by-step path's.
    for (std::int64_t kv : {std::int64_t{0}, std::int64_t{12000}}) {
      auto cfg = random_1k1k(llama8b_h200(), 16, 48);
      cfg.scheduler.batch_wait_iters = 20;
      cfg.scheduler.batch_wait_tokens_ratio = 0.9;
      cfg.scheduler.kv_capacity_tokens = kv;
      INFO("kv " << kv);
      check_fast_equals_steps(cfg);
    }
  }
  SUBCASE("no chunked prefill, a small token budget") {
    auto cfg = random_1k1k(llama8b_h200(), 32, 96);
    cfg.scheduler.chunked_prefill = false;
    cfg.scheduler.max_num_batched_tokens = 2048;
    check_fast_equals_steps(cfg);
  }
  SUBCASE("speculative decoding: the same acceptance draws in the same order") {
    // EAGLE-3 with 7 drafts (the recipe's): steps emit 1-8 tokens per sequence at random.
    auto [fast, steps] = check_fast_equals_steps(random_1k1k(gpt_oss_h200(true), 64, 128));
    CHECK(fast.num_events * 2 < steps.num_events);
    SUBCASE("with two replicas sharing the acceptance stream, agentic prefix caching, KV pressure") {
      auto cfg = gpt_oss_h200(true);
      cfg.replicas = 2;
      cfg.workload.kind = serving::WorkloadKind::kAgenticCoding;
      cfg.arrival.concurrency = 24;
      cfg.num_requests = 100;
      check_fast_equals_steps(cfg);
      auto tight = random_1k1k(gpt_oss_h200(true), 16, 48);
      tight.scheduler.kv_capacity_tokens = 6000;
      auto [fast_tight, steps_tight] = check_fast_equals_steps(tight);
      CHECK(steps_tight.summary.num_preemptions > 0);
      auto llama = random_1k1k(llama8b_h200(), 32, 64);
      llama.deployment.spec_decode = data::SpecDecode{"eagle3", 3, 2.31};
      check_fast_equals_steps(llama);
    }
    SUBCASE(
        "scheduled asynchronously, two and three replicas with a few more users than seats: arrivals held for a step") {
      // Saturated replicas keep requests waiting while runs go on; a request that arrived during
      // a replica's step becomes schedulable only at that replica's next step start, which a
      // replica joining an interleaved run must not skip.
      for (int users : {17, 18, 20, 25}) {
        for (int replicas : {2, 3}) {
          CAPTURE(users);
          CAPTURE(replicas);
          auto cfg = random_1k1k(llama8b_h200(), users, 300);
          cfg.workload.input_tokens = 256;
          cfg.workload.output_tokens = 96;
          cfg.replicas = replicas;
          cfg.scheduler.max_num_seqs = 8;
          cfg.scheduler.async_scheduling = true;
          auto [fast_async, steps_async] = check_fast_equals_steps(cfg);
          CHECK(fast_async.num_events < steps_async.num_events);  // the fast path still ran
        }
      }
    }
  }
}

TEST_CASE("the decode fast path matches the steps over 100 random configurations") {
  int num_ran = 0;
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    core::RngStream r(seed, core::RngPurpose::kAdvisor);
    auto pick = [&](int n) { return static_cast<int>(r.uniform_int(0, n - 1)); };
    auto c = pick(2) == 0 ? llama8b_h200() : gpt_oss_h200();
    if (pick(3) == 0) {
      const int k = static_cast<int>(r.uniform_int(1, 7));
      c.deployment.spec_decode = data::SpecDecode{"eagle3", k, 1 + k * r.uniform01()};
    }
    c.seed = seed;
    c.workload.kind = static_cast<serving::WorkloadKind>(pick(5));
    c.workload.input_tokens = r.uniform_int(16, 3000);
    c.workload.output_tokens = r.uniform_int(1, 600);
    c.arrival.kind = static_cast<serving::ArrivalKind>(pick(4));
    c.arrival.concurrency = static_cast<int>(r.uniform_int(1, 64));
    c.arrival.rate_per_s = 0.5 + 20 * r.uniform01();
    c.replicas = static_cast<int>(r.uniform_int(1, 8));
    c.router = static_cast<serving::RouterKind>(pick(3));
    c.arrival.burst_factor = 1.5 + 4 * r.uniform01();
    c.num_requests = r.uniform_int(10, 150);
    if (pick(4) == 0) {
      c.duration_s = 5 + 60 * r.uniform01();
      if (pick(2) == 0) c.num_requests = 0;
    }
    if (pick(3) == 0) c.warmup_s = 10 * r.uniform01();
    auto& sc = c.scheduler;
    sc.max_num_seqs = static_cast<int>(r.uniform_int(1, 128));
    sc.max_num_batched_tokens = static_cast<int>(r.uniform_int(512, 8192));
    sc.chunked_prefill = pick(4) != 0;
    sc.prefix_caching = pick(4) != 0;
    sc.kv_capacity_tokens = pick(2) == 0 ? r.uniform_int(4000, 40000) : 0;
    if (pick(3) == 0) sc.queue_timeout_s = 0.05 + 5 * r.uniform01();
    if (pick(3) == 0) sc.kv_admission = serving::KvAdmission::kGuaranteedNoEvict;
    if (pick(4) == 0) sc.max_queue = static_cast<int>(r.uniform_int(0, 20));
    const int k = c.deployment.spec_decode ? c.deployment.spec_decode->num_draft_tokens : 0;
    sc.max_num_batched_tokens = std::max(sc.max_num_batched_tokens, 1 + k);
    sc.async_scheduling = pick(2) == 0;  // drawn last, so the draws before it stay as they were
    INFO("seed " << seed << ": " << c.deployment.model->id << ", "
                 << serving::kWorkloadNames[static_cast<std::size_t>(c.workload.kind)] << " " << c.workload.input_tokens
                 << "/" << c.workload.output_tokens << ", "
                 << serving::kArrivalNames[static_cast<std::size_t>(c.arrival.kind)] << ", " << c.replicas
                 << " replicas, kv " << sc.kv_capacity_tokens << ", drafts " << k);
    try {
      check_fast_equals_steps(c);
      ++num_ran;
    } catch (const std::invalid_argument&) {
      // A drawn combination the simulator refuses (both paths alike): skip it.
    }
  }
  // Refusals (a recipe that does not fit a drawn budget) are rare: most draws must run.
  CHECK(num_ran >= 80);
}
