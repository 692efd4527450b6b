// `tycoon benchmark`: a simulated serving benchmark, the way vLLM's `bench serve` and InferenceX
// run one (fixed concurrency or an open-loop rate, ISL/OSL, a workload shape), on the serving
// simulator. Prints one JSON object (--json) or a table.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "cli/benchmark_report.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/export_files.h"
#include "cli/long_run.h"
#include "cli/progress.h"
#include "sim/analysis/model_error.h"
#include "sim/core/input_error.h"
#include "sim/perf/deployment_json.h"
#include "sim/perf/profile_lookup.h"
#include "sim/serving/benchmark_run.h"
#include "sim/serving/deployment_plan.h"
#include "sim/serving/disaggregated.h"
#include "sim/serving/serving_sim.h"
#include "sim/serving/steady_state.h"
#include "sim/serving/summary_json.h"
#include "sim/traffic/trace.h"

namespace tycoon::cli {

namespace {

// The flags as given; the run's defaults are sim's (serving::BenchmarkRun, serving_sim.h).
struct BenchmarkOptions {
  DeploymentOptions deployment;
  std::int64_t isl = 0;
  std::int64_t osl = 0;
  int concurrency = serving::ArrivalSpec{}.concurrency;
  std::int64_t num_requests = 0;
  bool steady_state = false;
  double duration_s = 0;
  double warmup_s = 0;
  std::int64_t warmup_requests = 0;
  double ramp_up_s = serving::ArrivalSpec{}.ramp_up_s;
  double pause_cap_s = serving::WorkloadSpec{}.max_pause_s;
  std::string pause_basis{traffic::kPauseBasisNames[static_cast<std::size_t>(serving::WorkloadSpec{}.pause_basis)]};
  double idle_cap_s = serving::ArrivalSpec{}.idle_cap_s;
  std::string agentx_timing{serving::kAgentxTimings[serving::kDefaultAgentxTiming].name};
  double random_range_ratio = serving::WorkloadSpec{}.input_range_ratio;
  double output_range_ratio = serving::WorkloadSpec{}.output_range_ratio;
  std::string workload{serving::kWorkloadNames[static_cast<std::size_t>(serving::WorkloadSpec{}.kind)]};
  std::string trace;
  std::string arrival;
  double rate = 0;
  double burst_factor = serving::ArrivalSpec{}.burst_factor;
  double diurnal_amplitude = serving::ArrivalSpec{}.diurnal_amplitude;
  int replicas = serving::PoolRequest{}.replicas;
  std::string router{serving::kRouterNames[static_cast<std::size_t>(serving::ServingConfig{}.router)]};
  std::uint64_t seed = serving::ServingConfig{}.seed;
  int max_num_seqs = 0;
  int max_num_batched_tokens = 0;
  int batch_wait_iters = 0;
  double batch_wait_tokens_ratio = 0;
  int recv_interval = 0;
  bool async_scheduling = false;
  bool no_prefix_caching = false;
  bool offline = false;
  bool no_chunked_prefill = false;
  double queue_timeout_s = 0;  // set only with --queue-timeout-s
  int max_queue = 0;           // set only with --max-queue
  std::int64_t kv_capacity_tokens = 0;
  std::string kv_admission;
  bool json = false;
  ExportFlags export_to;  // --export DIR: the run's deployment and figures as `tycoon export` writes them
  bool allow_long_run = false;
  // Disaggregated prefill/decode: the deployment flags above are then the prefill pool's.
  bool disaggregated = false;
  std::string decode_hardware;  // default: --hardware
  std::string decode_precision;
  int decode_tp = 0;
  int decode_ep = 0;
  int decode_replicas = serving::PoolRequest{}.replicas;
  int decode_max_num_seqs = 0;
  int decode_max_num_batched_tokens = 0;
  std::string kv_link{serving::kKvLinkNames[static_cast<std::size_t>(serving::PlanRequest{}.link)]};
  // The flags whose meaning depends on the others: whether each was given.
  const CLI::Option *isl_flag = nullptr, *osl_flag = nullptr, *conc_flag = nullptr, *arrival_flag = nullptr,
                    *rate_flag = nullptr, *warmup_s_flag = nullptr, *warmup_requests_flag = nullptr,
                    *range_ratio_flag = nullptr, *out_ratio_flag = nullptr, *ramp_flag = nullptr,
                    *pause_cap_flag = nullptr, *pause_basis_flag = nullptr, *idle_cap_flag = nullptr,
                    *agentx_timing_flag = nullptr, *queue_timeout_flag = nullptr, *max_queue_flag = nullptr;
};

bool given(const CLI::Option* flag) { return flag && flag->count() > 0; }

template <class T>
std::optional<T> if_given(const CLI::Option* flag, const T& value) {
  return given(flag) ? std::optional<T>(value) : std::nullopt;
}

// A benchmark past a bound of sim/serving/run_budget.h runs for minutes or needs gigabytes:
// refused unless --allow-long-run, in the words of the flags that set it.
void check_limits(const BenchmarkOptions& o, serving::ServingConfig& c) {
  // A trace is read once, here (its rows and span are checked), and handed to the simulation.
  if (!c.workload.trace_path.empty() && !c.workload.trace) {
    c.workload.trace = std::make_shared<const traffic::Trace>(traffic::load_trace(c.workload.trace_path));
  }
  if (o.allow_long_run) return;
  const auto past = serving::find_long_run(c);
  if (!past) return;
  const auto count = [](double v) { return format_fixed(v, 0); };
  const std::string limit = count(past->limit);
  const std::string trace = "--trace " + c.workload.trace_path;
  std::string what;
  switch (past->bound) {
    case serving::LongRunBound::kRequests:
      what = "--num-requests " + count(past->amount) + " is more than " + limit + " requests (" +
             run_estimate(past->amount) + ")";
      break;
    case serving::LongRunBound::kWarmupRequests:
      what = "--warmup-requests " + std::to_string(c.warmup_requests) + " + " + std::to_string(c.num_requests) +
             " measured requests: " + run_estimate(past->amount) + ", more than " + limit + " requests";
      break;
    case serving::LongRunBound::kUsers:
      what = "--concurrency: " + count(past->amount) + " users at once, more than " + limit;
      break;
    case serving::LongRunBound::kTraceRows:
      what = trace + " (" + count(past->amount) + " rows): " + run_estimate(past->amount) + ", more than " + limit +
             " requests";
      break;
    case serving::LongRunBound::kTraceSpan:
      what =
          trace + " spans " + count(past->amount) + " simulated seconds, more than a simulated day (" + limit + " s)";
      break;
    case serving::LongRunBound::kReplicaGpus:
      what = "--replicas " + std::to_string(c.replicas) + " x " + std::to_string(c.deployment.tensor_parallel) +
             " GPUs each is more than " + limit + " GPUs";
      break;
    case serving::LongRunBound::kAllGpus:
      what = "the prefill and decode pools hold " + count(past->amount) + " GPUs, more than " + limit;
      break;
    case serving::LongRunBound::kSpan:
      what = "--duration-s " + count(past->amount) + " is more than a simulated day (" + limit + " s)";
      break;
    case serving::LongRunBound::kRateTimesSpan:
      what = "--rate x --duration-s sends about " + count(past->amount) + " requests, more than " + limit;
      break;
  }
  throw core::InputError(what + kLongRunHint);
}

// The flags as the deployment plan's request: the recipe's settings and the engine card's under
// the flags, the decode pool and the KV link when split, the queue limits. `own_model` holds a
// model card the flags define (--model-file).
serving::PlanRequest plan_request(const BenchmarkOptions& o, const data::Catalog& catalog,
                                  std::unique_ptr<data::ModelCard>& own_model) {
  // Scheduler flags; the rest comes from the recipe and the engine card (serving::resolve_serving).
  serving::ServingOverrides sched;
  if (o.max_num_seqs > 0) sched.max_num_seqs = o.max_num_seqs;
  if (o.max_num_batched_tokens > 0) sched.max_num_batched_tokens = o.max_num_batched_tokens;
  if (o.no_prefix_caching) sched.prefix_caching = false;
  if (o.no_chunked_prefill) sched.chunked_prefill = false;
  if (o.batch_wait_iters > 0) sched.batch_wait_iters = o.batch_wait_iters;
  if (o.batch_wait_tokens_ratio > 0) sched.batch_wait_tokens_ratio = o.batch_wait_tokens_ratio;
  if (o.recv_interval > 0) sched.recv_interval = o.recv_interval;
  if (o.async_scheduling) sched.async_scheduling = true;
  if (!o.kv_admission.empty()) {
    sched.kv_admission = *parse_enum<serving::KvAdmission>(o.kv_admission, serving::kKvAdmissionNames);
  }
  serving::PlanRequest request;
  request.model = &model_of(catalog, o.deployment, own_model);
  request.pool.chip = o.deployment.hardware;
  request.pool.recipe = deployment_overrides(o.deployment, sched);
  request.pool.replicas = o.replicas;
  request.pool.recipe.router = *parse_enum<serving::RouterKind>(o.router, serving::kRouterNames);
  request.queue_timeout_s = if_given(o.queue_timeout_flag, o.queue_timeout_s);
  request.max_queue = if_given(o.max_queue_flag, o.max_queue);
  if (o.disaggregated) {
    // The decode pool: its own flags; what they leave unset follows the plan's rule for a
    // decode pool (serving::decode_overrides).
    serving::PoolRequest decode;
    decode.chip = o.decode_hardware.empty() ? o.deployment.hardware : o.decode_hardware;
    if (o.decode_tp > 0) decode.recipe.tensor_parallel = o.decode_tp;
    if (o.decode_ep > 0) decode.recipe.expert_parallel = o.decode_ep;
    if (!o.decode_precision.empty())
      decode.recipe.precision = *parse_enum<Precision>(o.decode_precision, kPrecisionNames);
    if (o.decode_max_num_seqs > 0) decode.recipe.max_num_seqs = o.decode_max_num_seqs;
    if (o.decode_max_num_batched_tokens > 0) decode.recipe.max_num_batched_tokens = o.decode_max_num_batched_tokens;
    decode.replicas = o.decode_replicas;
    request.decode = std::move(decode);
    request.link = *parse_enum<serving::KvLinkKind>(o.kv_link, serving::kKvLinkNames);
  } else if (!o.decode_hardware.empty() || !o.decode_precision.empty() || o.decode_tp > 0 || o.decode_ep > 0 ||
             o.decode_replicas != serving::PoolRequest{}.replicas || o.decode_max_num_seqs > 0 ||
             o.decode_max_num_batched_tokens > 0) {
    throw std::invalid_argument(
        "--decode-* options describe the decode pool of --disaggregated serving: add --disaggregated");
  }
  return request;
}

// The run's flags as sim's request; what they leave unset takes sim's defaults.
serving::BenchmarkRun benchmark_run(const BenchmarkOptions& o) {
  serving::BenchmarkRun run;
  run.workload = *parse_enum<serving::WorkloadKind>(o.workload, serving::kWorkloadNames);
  run.trace_path = o.trace;
  run.input_tokens = if_given(o.isl_flag, o.isl);
  run.output_tokens = if_given(o.osl_flag, o.osl);
  run.input_range_ratio = if_given(o.range_ratio_flag, o.random_range_ratio);
  run.output_range_ratio = if_given(o.out_ratio_flag, o.output_range_ratio);
  if (given(o.arrival_flag)) run.arrival = *parse_enum<serving::ArrivalKind>(o.arrival, serving::kArrivalNames);
  run.concurrency = if_given(o.conc_flag, o.concurrency);
  run.rate_per_s = if_given(o.rate_flag, o.rate);
  run.burst_factor = o.burst_factor;
  run.diurnal_amplitude = o.diurnal_amplitude;
  run.ramp_up_s = if_given(o.ramp_flag, o.ramp_up_s);
  run.idle_cap_s = if_given(o.idle_cap_flag, o.idle_cap_s);
  run.max_pause_s = if_given(o.pause_cap_flag, o.pause_cap_s);
  if (given(o.pause_basis_flag))
    run.pause_basis = *parse_enum<traffic::PauseBasis>(o.pause_basis, traffic::kPauseBasisNames);
  if (given(o.agentx_timing_flag)) {
    for (std::size_t i = 0; i < serving::kAgentxTimingNames.size(); ++i)
      if (serving::kAgentxTimingNames[i] == o.agentx_timing) run.agentx_timing = i;
  }
  run.num_requests = o.num_requests;
  run.duration_s = o.duration_s;
  run.warmup_s = if_given(o.warmup_s_flag, o.warmup_s);
  run.warmup_requests = if_given(o.warmup_requests_flag, o.warmup_requests);
  run.api_server = !o.offline;
  run.kv_capacity_tokens = o.kv_capacity_tokens;
  run.seed = o.seed;
  return run;
}

// The run, with progress on stderr once it lasts (the simulator reports, the CLI prints): in
// requests when the run stops on a count, else in simulated seconds when it stops on a span, else
// (a trace read to its end) requests so far. By default the run follows the published benchmark
// protocol it reproduces (InferenceX's benchmark_serving.py: the requests asked, after the warm-up
// asked, every user starting together) and is judged by the steady-state rule, which it does not
// change: a benchmark's published TTFT includes that first wave. With --steady-state it follows the
// rule (sim/serving/steady_state.h) as sweeps do: without an explicit --num-requests (nor a span or
// a timed trace) it grows until its P90s' intervals are narrow, and its warm-up is cut unless one
// is given.
serving::SteadyRun simulate_with_progress(const BenchmarkOptions& o, const serving::ServingConfig& c,
                                          const perf::CalibrationProfile& cal) {
  const bool by_span = c.num_requests == 0 && c.duration_s > 0;
  const serving::SteadyStateRule rule = serving::budgeted_steady_rule(c, o.allow_long_run);
  // One meter per simulation: a growing run starts each longer one afresh.
  std::optional<ProgressMeter> meter;
  double last_total = -1;
  auto observe = [&](const serving::ServingProgress& p) {
    const double total = by_span ? p.duration_s : static_cast<double>(p.requests_expected);
    if (!meter || total != last_total) {
      meter.emplace("benchmark", total, by_span ? "simulated seconds" : "requests");
      last_total = total;
    }
    meter->update(by_span ? std::min(p.simulated_s, p.duration_s) : static_cast<double>(p.requests_ended));
  };
  const bool explicit_count = o.num_requests > 0;
  // Under the rule, a warm-up the user chose (--warmup-s, --warmup-requests) is kept as given; else
  // it is cut.
  const bool cut_warmup = o.steady_state && !given(o.warmup_s_flag) && !given(o.warmup_requests_flag);
  serving::SteadyRun run = o.steady_state && !explicit_count
                               ? serving::run_to_steady_state(c, cal, rule, observe)
                               : serving::run_and_judge(c, cal, rule, observe, cut_warmup);
  const serving::ServingSummary& r = run.summary;
  if (meter)
    meter->finish(by_span ? std::min(r.simulated_time_s, c.duration_s) : static_cast<double>(r.requests_arrived));
  if (c.warmup_s > 0 && r.requests_completed > 0 && r.e2e_s.mean == 0) {
    throw core::InputError("--warmup-s " + format_fixed(c.warmup_s, 1) +
                           ": every request arrived during the "
                           "warm-up (the run lasted " +
                           format_fixed(r.simulated_time_s, 1) + " s): nothing was measured");
  }
  if (!run.steady.stationary) {
    std::fprintf(stderr, "warning: the percentiles of this run are not steady-state figures: %s%s\n",
                 run.steady.why_not.c_str(),
                 o.steady_state ? (explicit_count ? " (leave out --num-requests to run until they are)" : "")
                                : " (--steady-state runs until they are)");
  }
  return run;
}

// A default as the help shows it: "0.8", "60".
std::string format_default(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// The run's flags: traffic shape, arrivals, length and warm-up.
void add_traffic_flags(CLI::App& sub, BenchmarkOptions& o) {
  o.isl_flag = sub.add_option("--isl", o.isl, "Input tokens per request (random: nominal ISL, drawn in [R, 1] x ISL)")
                   ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 30));
  o.osl_flag = sub.add_option("--osl", o.osl, "Output tokens per request")
                   ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 30));
  o.conc_flag = sub.add_option("--concurrency", o.concurrency,
                               "Closed loop: users, each sending the next request when one ends (default " +
                                   std::to_string(serving::ArrivalSpec{}.concurrency) + ")")
                    ->check(CLI::Range(1, serving::kMaxBenchmarkUsers));
  sub.add_option("--num-requests", o.num_requests,
                 "Requests to send (default: " + std::to_string(serving::kRequestsPerUser) +
                     " x concurrency, or the whole trace)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 31));
  sub.add_flag("--steady-state", o.steady_state,
               "Run until the P90s are steady and cut the warm-up (the steady-state rule of sweeps; without it "
               "the run follows the published benchmark protocol: the requests asked, after the warm-up asked, "
               "the first wave included, and is only judged)");
  sub.add_option("--duration-s", o.duration_s, "Stop sending after this many simulated seconds")
      ->check(finite_range(0.0, serving::kMaxRunSpanS));
  o.warmup_s_flag =
      sub.add_option("--warmup-s", o.warmup_s, "Requests arriving before this are left out of the metrics")
          ->check(finite_range(0.0, serving::kMaxRunSpanS));
  o.warmup_requests_flag =
      sub.add_option("--warmup-requests", o.warmup_requests,
                     "Closed loop: warm-up requests sent and ended before the measured run, left out of the metrics "
                     "(default: " +
                         std::to_string(serving::kWarmupRequestsPerUser) +
                         " x concurrency for single-request workloads, as InferenceX runs vLLM's "
                         "benchmark_serving.py; 0 for sessions)")
          ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 31));
  o.range_ratio_flag =
      sub.add_option("--random-range-ratio", o.random_range_ratio,
                     "Random workload: input and output lengths uniform in [R x ISL, ISL] and [R x OSL, "
                     "OSL] (default " +
                         format_default(serving::WorkloadSpec{}.input_range_ratio) +
                         ", InferenceX's; 1: exact lengths)")
          ->check(finite_range(0.0, 1.0));
  o.out_ratio_flag = sub.add_option("--output-range-ratio", o.output_range_ratio,
                                    "Random workload: the output lengths' ratio alone (default: --random-range-ratio; "
                                    "1: exactly OSL, every user in lock-step)")
                         ->check(finite_range(0.0, 1.0));
  o.ramp_flag = sub.add_option("--ramp-up-s", o.ramp_up_s,
                               "Closed loop: users start spread evenly over this many seconds (default 0: all at once, "
                               "as benchmark_serving.py with --request-rate inf)")
                    ->check(finite_range(0.0, 1e6));
  o.pause_cap_flag = sub.add_option("--pause-cap-s", o.pause_cap_s,
                                    "Agentic coding: the longest pause kept of a recorded one (default: the "
                                    "--agentx-timing's; 0: as recorded)")
                         ->check(finite_range(0.0, 1e6));
  o.pause_basis_flag =
      sub.add_option("--pause-basis", o.pause_basis,
                     "Agentic coding: how a recorded pause is taken: think-time (the trace's think_time, as "
                     "kv-cache-tester and AgentX in May 2026 replay it), start-to-start (the gap between request "
                     "starts, the recorded answer's time included, waited after each answer: AgentX from June to "
                     "July 2026) or end-to-start (that gap less the answer's recorded time: AgentX from late July "
                     "2026). Default: the --agentx-timing's")
          ->check(one_of(traffic::kPauseBasisNames));
  o.agentx_timing_flag =
      sub.add_option("--agentx-timing", o.agentx_timing,
                     "Agentic coding: AgentX's replay timing as InferenceX ran it: may-2026 (think-time, pauses "
                     "capped at 60 s), june-2026 (start-to-start, 60 s), july-2026 (start-to-start, 10 s) or "
                     "august-2026 (default: end-to-start, pauses capped at 300 s, the system idle at most 10 s; "
                     "AgentX's current harness). --pause-basis, --pause-cap-s and --idle-cap-s refine it")
          ->check(one_of(serving::kAgentxTimingNames));
  o.idle_cap_flag = sub.add_option("--idle-cap-s", o.idle_cap_s,
                                   "Closed loop: the longest the whole system may sit idle; then the user due first "
                                   "sends now and every waiting user's turn moves earlier by as much (0: no limit; "
                                   "default 0, or the --agentx-timing's for closed-loop agentic coding)")
                        ->check(finite_range(0.0, 1e6));
  sub.add_option("--workload", o.workload, "Traffic shape")->check(one_of(serving::kWorkloadNames));
  sub.add_option("--trace", o.trace,
                 "Trace to replay: ours (JSONL), Mooncake JSONL, Azure LLM CSV, AgentX/kv-cache-tester JSON(L) or a "
                 "folder of them (sim/traffic/trace_import.h)");
  o.arrival_flag =
      sub.add_option("--arrival", o.arrival, "Arrival process (default closed-loop; a trace: its own times)")
          ->check(one_of(serving::kArrivalNames));
  o.rate_flag = sub.add_option("--rate", o.rate, "Open loop: mean requests (or sessions) per second")
                    ->check(finite_range(1e-9, 1e9));
  sub.add_option("--burst-factor", o.burst_factor, "Bursty: rate inside a burst / mean rate")
      ->check(finite_range(1.0001, 1e3));
  sub.add_option("--diurnal-amplitude", o.diurnal_amplitude, "Diurnal: relative swing over 24 h")
      ->check(finite_range(0.0, 1.0));
}

// The deployment's flags beyond the recipe's: replicas, router, scheduler, queue, the split.
void add_serving_flags(CLI::App& sub, BenchmarkOptions& o) {
  sub.add_option("--replicas", o.replicas, "Engine replicas (data parallel), each of --tp GPUs")
      ->check(CLI::Range(1, serving::kMaxBenchmarkReplicas));
  sub.add_option("--router", o.router, "How requests are spread over replicas")->check(one_of(serving::kRouterNames));
  sub.add_option("--seed", o.seed, "Random seed (same seed, same output)")->check(seed_digits());
  sub.add_option("--max-num-seqs", o.max_num_seqs, "Sequences per batch (default: the recipe's)")
      ->check(CLI::Range(1, serving::kMaxBenchmarkSeqs));
  sub.add_option("--max-num-batched-tokens", o.max_num_batched_tokens, "Token budget per step (default: the recipe's)")
      ->check(CLI::Range(1, serving::kMaxBenchmarkBatchedTokens));
  sub.add_option("--batch-wait-iters", o.batch_wait_iters,
                 "Batch waiting (TensorRT-LLM's batch_wait_timeout_iters): a step with decodes holds prompts back "
                 "for up to this many steps in a row, until they fill --batch-wait-tokens-ratio of the token budget "
                 "(both needed, as in TensorRT-LLM; default 0: off)")
      ->check(CLI::Range(0, 1000000));
  sub.add_option("--batch-wait-tokens-ratio", o.batch_wait_tokens_ratio,
                 "Batch waiting (TensorRT-LLM's batch_wait_max_tokens_ratio): held prompts run once they and the "
                 "decodes reach this share of the token budget (with --batch-wait-iters; default 0)")
      ->check(CLI::Range(0.0, 1.0));
  sub.add_option("--scheduler-recv-interval", o.recv_interval,
                 "SGLang's --scheduler-recv-interval: the scheduler takes new requests in only every N decode steps "
                 "(at once when idle; also a pass that weighs a step with a prefill: the step just ended, or with "
                 "--async-scheduling the step starting, so a prompt arriving during a prefill waits N steps; "
                 "default 0 or 1: every step)")
      ->check(CLI::Range(0, 1000000));
  sub.add_flag("--async-scheduling", o.async_scheduling,
               "Form each step while the one before it runs, so a request arriving mid-step starts a step later: "
               "vLLM's --async-scheduling (its default since v0.14), SGLang's and TensorRT-LLM's overlap schedulers "
               "(their defaults) (default: off)");
  sub.add_flag("--no-prefix-caching", o.no_prefix_caching, "Disable the prefix cache");
  sub.add_flag("--offline", o.offline,
               "Token ids straight to the engine (trtllm-bench, vLLM benchmark_throughput): no API server, so no "
               "per-request front-end latency or tokenization");
  sub.add_flag("--no-chunked-prefill", o.no_chunked_prefill, "Prefill whole prompts only");
  o.queue_timeout_flag =
      sub.add_option("--queue-timeout-s", o.queue_timeout_s,
                     "A request still waiting this long times out (0: never; default: the scheduler's, " +
                         format_default(serving::SchedulerConfig{}.queue_timeout_s) + ")")
          ->check(finite_range(0.0, serving::kMaxRunSpanS));
  o.max_queue_flag = sub.add_option("--max-queue", o.max_queue,
                                    "Waiting requests per replica beyond which arrivals are rejected (default: the "
                                    "scheduler's, " +
                                        std::to_string(serving::SchedulerConfig{}.max_queue) + ")")
                         ->check(CLI::Range(0, serving::kMaxBenchmarkQueue));
  sub.add_option("--kv-capacity-tokens", o.kv_capacity_tokens, "KV cache per replica in tokens (default: memory plan)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  sub.add_option("--kv-admission", o.kv_admission,
                 "When a request may start: optimistic (vLLM, preempts on KV exhaustion) or guaranteed-no-evict "
                 "(TensorRT-LLM's default); default: the engine's")
      ->check(one_of(serving::kKvAdmissionNames));
  sub.add_flag("--disaggregated", o.disaggregated,
               "Disaggregated prefill/decode serving: --hardware, --tp, --replicas ... describe the prefill pool, "
               "--decode-* the decode pool, --kv-link the link between them");
  sub.add_option("--decode-hardware", o.decode_hardware, "Decode pool: accelerator id (default: --hardware)");
  sub.add_option("--decode-precision", o.decode_precision,
                 "Decode pool: weight precision (default: --precision on the same chip, else its chip's recipe's)")
      ->check(one_of(kPrecisionNames));
  sub.add_option(
         "--decode-tp", o.decode_tp,
         "Decode pool: tensor-parallel GPUs per replica (default: --tp on the same chip, else its chip's recipe's)")
      ->check(CLI::Range(1, serving::kMaxBenchmarkParallel));
  sub.add_option("--decode-ep", o.decode_ep,
                 "Decode pool: expert-parallel degree (default: --ep on the same chip, else its chip's recipe's)")
      ->check(CLI::Range(1, serving::kMaxBenchmarkParallel));
  sub.add_option("--decode-replicas", o.decode_replicas, "Decode pool: replicas")
      ->check(CLI::Range(1, serving::kMaxBenchmarkReplicas));
  sub.add_option(
         "--decode-max-num-seqs", o.decode_max_num_seqs,
         "Decode pool: sequences per batch (default: --max-num-seqs on the same chip, else its chip's recipe's)")
      ->check(CLI::Range(1, serving::kMaxBenchmarkSeqs));
  sub.add_option("--decode-max-num-batched-tokens", o.decode_max_num_batched_tokens,
                 "Decode pool: token budget per step (default: --max-num-batched-tokens on the same chip, else its "
                 "chip's recipe's)")
      ->check(CLI::Range(1, serving::kMaxBenchmarkBatchedTokens));
  sub.add_option("--kv-link", o.kv_link, "Link the KV cache crosses from prefill to decode (hardware_db/kv_links.json)")
      ->check(one_of(serving::kKvLinkNames));
  sub.add_flag("--json", o.json, "One JSON object on stdout");
  sub.add_flag("--allow-long-run", o.allow_long_run,
               "Run beyond the limits (" + std::to_string(serving::kMaxRunRequests) + " requests, " +
                   std::to_string(serving::kMaxRunGpus) +
                   " GPUs, a simulated day) that keep a benchmark under a minute");
}

// `--export DIR`: the run's deployment as `tycoon export` writes it, with what the run found as
// the benchmark plan's expectation: each figure ± the model error of its provenance
// (hardware_db/model_error.json), the P90 latencies also ± the run's own batch-means half width.
void export_run(const BenchmarkOptions& o, const GlobalOptions& global, const std::filesystem::path& root,
                const serving::DeploymentPlan& plan, const serving::SteadyRun& run, std::ostream& console) {
  const auto& r = run.summary;
  const auto& c = run.config;
  analysis::ExportPoint p;
  p.config = plan.config;
  p.label = c.deployment.model->id + " on " + std::to_string(c.replicas) + " x " + c.deployment.hardware->id +
            (c.disaggregated ? " (prefill) + " + std::to_string(c.disaggregated->decode.replicas) + " x " +
                                   c.disaggregated->decode.deployment.hardware->id + " (decode)"
                             : std::string()) +
            ", " + std::to_string(c.arrival.concurrency) + " users";
  std::string cmd;
  for (std::size_t i = 1; i < global.command_line.size(); ++i) cmd += (i > 1 ? " " : "") + global.command_line[i];
  p.source = "tycoon " + cmd;
  const auto kind = c.workload.kind;
  p.workload = std::string(serving::kWorkloadNames[static_cast<std::size_t>(kind)]);
  if (kind == serving::WorkloadKind::kRandom || kind == serving::WorkloadKind::kInputHeavy ||
      kind == serving::WorkloadKind::kOutputHeavy) {
    p.input_tokens = c.workload.input_tokens;
    p.output_tokens = c.workload.output_tokens;
  }
  if (c.arrival.kind == serving::ArrivalKind::kClosedLoop) p.concurrency = c.arrival.concurrency;
  p.provenance = std::string(perf::to_string(r.provenance));
  p.steady_state_figures = o.steady_state;
  const double e = analysis::load_model_errors(root).of(r.provenance);
  auto add = [&](const char* metric, const char* unit, double v, double run_half_width) {
    const double model = e * std::fabs(v);
    const double h = std::isfinite(run_half_width) ? std::hypot(model, run_half_width) : model;
    p.expected.push_back({metric, unit, v, v - h, v + h});
  };
  add("output_tok_per_s_per_gpu", "tok/s/GPU", r.output_tok_per_s_per_gpu, std::nan(""));
  add("p90_tok_per_s_per_user", "tok/s/user", r.p90_interactivity_tok_per_s_per_user, std::nan(""));
  add("ttft_p90_ms", "ms", 1e3 * r.ttft_s.p90, 1e3 * run.steady.ttft_p90_s.half_width);
  add("tpot_p90_ms", "ms", 1e3 * r.tpot_s.p90, 1e3 * run.steady.tpot_p90_s.half_width);
  export_point(p, root, o.export_to, console);
}

int run_benchmark(const BenchmarkOptions& o, const GlobalOptions& global) {
  const auto wall_start = std::chrono::steady_clock::now();
  auto catalog = load_catalog_for(global);
  std::unique_ptr<data::ModelCard> own_model;
  const serving::DeploymentPlan plan =
      serving::resolve_plan(catalog, plan_request(o, catalog, own_model), serving::catalog_calibrations(catalog));
  const auto& cal = plan.calibration;
  serving::ServingConfig c = serving::benchmark_config(plan.config, benchmark_run(o));
  check_limits(o, c);
  const serving::SteadyRun run = simulate_with_progress(o, c, cal);
  const serving::ServingSummary& r = run.summary;
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  if (o.json) {
    // The run's results (the one writer, sim/serving/summary_json.h), then this run's wall time,
    // calibration and configuration.
    nlohmann::json out = serving::summary_json(r);
    out["wall_time_s"] = wall_s;
    out["calibration_source"] = cal.source;
    out["config"] = serving::run_config_json(run.config, r);
    out["steady_state"] = serving::steady_state_json(run.steady);
    std::cout << out.dump(2) << "\n";
    // What the export prints goes to stderr: stdout is the JSON.
    if (!o.export_to.out.empty()) export_run(o, global, catalog.root, plan, run, std::cerr);
    return kExitOk;
  }
  print_benchmark_report(run.config, r, cal, wall_s);
  std::printf("  steady state           %s\n", serving::describe(run.steady).c_str());
  if (!o.export_to.out.empty()) {
    std::fflush(stdout);
    export_run(o, global, catalog.root, plan, run, std::cout);
  }
  return kExitOk;
}

}  // namespace

CommandRunner add_benchmark_command(CLI::App& app, const GlobalOptions& global) {
  auto o = std::make_shared<BenchmarkOptions>();
  auto* sub =
      app.add_subcommand("benchmark", "Simulate a serving benchmark: latency percentiles, tok/s/GPU, interactivity");
  add_deployment_options(*sub, o->deployment);
  add_traffic_flags(*sub, *o);
  add_serving_flags(*sub, *o);
  sub->add_option("--export", o->export_to.out,
                  "Also write the run's deployment as `tycoon export` does (launch commands, manifest, benchmark "
                  "plan with this run's figures) into this folder");
  sub->add_option("--export-model-path", o->export_to.model_path,
                  "With --export: the checkpoint to serve (default: the model's published repository)");
  return [o, &global]() {
    if (!o->export_to.out.empty()) check_output_folder("--export", o->export_to.out);
    return run_benchmark(*o, global);
  };
}

}  // namespace tycoon::cli
