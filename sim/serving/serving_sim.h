// The serving simulator's public interface: a request-level discrete-event simulation of one or
// more engine replicas under a workload, timed by the performance model.
//
// Contract used by the game (sim/game) and the CLI (`tycoon benchmark`):
//   ServingSummary s = simulate(config, calibration);
// is a pure function of (config, calibration): same inputs, same output, bit for bit.
#pragma once

#include <array>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/perf/calibration_profile.h"
#include "sim/perf/deployment.h"
#include "sim/perf/iteration_cost.h"
#include "sim/traffic/arrivals.h"
#include "sim/traffic/workload.h"

namespace tycoon::serving {

// Workload shapes and arrival kinds are traffic's (sim/traffic): one enum and one names table each.
using traffic::ArrivalKind;
using traffic::kArrivalNames;
using traffic::kWorkloadNames;
using traffic::WorkloadKind;

enum class RouterKind { kRoundRobin, kLeastOutstanding, kPrefixAffinity };
inline constexpr std::array<std::string_view, 3> kRouterNames = {"round-robin", "least-outstanding", "prefix-affinity"};

struct WorkloadSpec {
  WorkloadKind kind = WorkloadKind::kRandom;
  std::int64_t input_tokens = 1024;   // mean (random: nominal ISL, the top of its range)
  std::int64_t output_tokens = 1024;  // mean (random: nominal OSL, the top of its range)
  // Random: lengths uniform on [floor(X * ratio), X], the `--random-range-ratio` of vLLM's
  // benchmark_serving.py random dataset (`np.random.randint(int(X * ratio), X + 1)`) as InferenceX
  // runs it: RANDOM_RANGE_RATIO 0.8 for input and output alike (SemiAnalysisAI/InferenceX
  // benchmarks/benchmark_lib.sh `run_benchmark_serving`, utils/bench_serving/benchmark_serving.py
  // `sample_random_requests`; its recipes state `random_range_ratio: 0.8`). 1: exact lengths.
  double input_range_ratio = 0.8;
  double output_range_ratio = 0.8;
  std::string trace_path;  // kTrace: JSONL file (format in sim/traffic/trace.h)
  // kTrace: the file already read (the CLI reads it once to check its size before the run);
  // null: the simulation reads trace_path.
  std::shared_ptr<const traffic::Trace> trace;
  bool trace_timestamps = true;  // kTrace: arrive at the file's times (false: in file order,
                                 // paced by `arrival` like any other workload)
  // kAgenticCoding: the longest pause kept of a recorded one, seconds (traffic::WorkloadParams);
  // 0: as recorded.
  double max_pause_s = 60;
  // kAgenticCoding: how a recorded pause is taken from the trace (traffic::PauseBasis cites each).
  traffic::PauseBasis pause_basis = traffic::PauseBasis::kThinkTime;
};

// The traffic generator's parameters for `w` on a model whose window is `max_context_tokens` (a
// trace's entries when `w` holds the file already read).
traffic::WorkloadParams workload_params(const WorkloadSpec& w, std::int64_t max_context_tokens);
// The mean tokens a request of `w` holds in the KV cache when it ends (traffic::
// mean_request_context_tokens): what the memory plan divides the cache by for "requests at once".
double mean_request_context_tokens(const WorkloadSpec& w, std::int64_t max_context_tokens, std::uint64_t seed);

struct ArrivalSpec {
  ArrivalKind kind = ArrivalKind::kClosedLoop;
  int concurrency = 64;  // closed loop: users, each sends the next request when one ends
  // Closed loop: user k of n starts at k * ramp_up_s / n instead of all at t = 0 (and again from
  // the end of a request-count warm-up). 0: all at once, as benchmark_serving.py does with
  // `--request-rate inf --max-concurrency C` (every request is released at once and C of them
  // pass the semaphore together).
  double ramp_up_s = 0;
  double rate_per_s = 0;           // open loop: mean requests (or sessions) per second
  double burst_factor = 4.0;       // bursty: peak rate / mean rate
  double diurnal_amplitude = 0.5;  // diurnal: relative swing around the mean over 24 h
  // Closed loop: the longest the whole system may sit idle, seconds (0: no limit). When no request
  // is in flight for this long, the user whose next request is due first sends it now. This is
  // the later AgentX replays' only cap on time (AIPerf's inferencex-agentx-mvp scenario,
  // system_idle_gap_cap_seconds=10.0, SemiAnalysisAI/aiperf at 211ad67): a lone user's long
  // pause shrinks to it, while with many users a pause runs as recorded as long as someone works.
  double idle_cap_s = 0;
  // Closed loop: a conversation's next turn goes out as soon as its answer ends, as a load
  // generator keeping `concurrency` users busy does, instead of after the user's pause. Every user
  // then has a request in the engine, so the running batch is `concurrency` whatever the engine's
  // speed; with pauses a faster engine leaves its users idle a larger share of the time and runs
  // smaller batches, and a paired run would compare two different loads.
  bool skip_pauses = false;
};

// The KV admission policy is the engine card's (sim/data/engine.h): one enum, one names table.
using data::kKvAdmissionNames;
using data::KvAdmission;

struct SchedulerConfig {
  int max_num_batched_tokens = 8192;
  int max_num_seqs = 256;
  // The engine sizes its own running-request limit from its KV pool (data::Engine::
  // running_limit_from_kv_pool; SGLang without --max-running-requests): the replicas run with
  // data::kv_pool_running_limit instead of max_num_seqs, which still sizes the activation reserve.
  bool running_limit_from_engine = false;
  bool chunked_prefill = true;
  bool prefix_caching = true;
  double queue_timeout_s = 600;         // a request waiting longer before its first token times out
  int max_queue = 100000;               // admission limit: arrivals beyond it are rejected
  std::int64_t kv_capacity_tokens = 0;  // KV cache per replica in tokens (0: from the memory plan)
  KvAdmission kv_admission = KvAdmission::kOptimistic;
  // Batch waiting, as TensorRT-LLM runs it (its batch_wait_timeout_iters and
  // batch_wait_max_tokens_ratio; data::Engine::supports_batch_waiting): a step that would run
  // decodes together with prompts holds the prompts back, and runs the decodes alone, until the
  // prompts it would run and the decodes come to batch_wait_tokens_ratio x max_num_batched_tokens
  // tokens or it has held them batch_wait_iters steps in a row. A step without decodes never holds
  // them. 0 and 0: off (every engine's default).
  int batch_wait_iters = 0;
  double batch_wait_tokens_ratio = 0;
  // Receive interval, as SGLang runs it (--scheduler-recv-interval;
  // data::Engine::supports_recv_interval): the scheduler takes newly arrived requests in only when
  // a counter reaches recv_interval, each decode step adding 1, a step with a prefill 1,000 (SGLang's
  // weights) and an idle scheduler enough to reach it at once; a prompt arriving while it decodes
  // waits up to recv_interval steps. Steps are then simulated one by one (no decode fast path).
  // Not for disaggregated deployments (refused). 0 or 1: every step takes them in (every engine's
  // default).
  int recv_interval = 0;
  // Asynchronous scheduling, as vLLM runs it (--async-scheduling, its default since v0.14;
  // data::Engine::supports_async_scheduling): the scheduler forms step N+1 while step N runs, so a
  // request that arrives while a step runs is first scheduled in the step after the next one
  // (synchronously: the next one); an engine with nothing in flight schedules it at once. Only
  // arrivals are moved: decodes and prefill chunks continue step after step as before, and the
  // engine's per-step overhead (data::Engine::iteration_overhead_s) stays in the step. Not for
  // disaggregated deployments (refused). false: every engine's default.
  bool async_scheduling = false;
  // Simulator speed only, never results: runs of decode-only steps in which nothing else can
  // happen are applied in one go instead of step by step (sim/serving/replica.h,
  // Replica::fast_forward). The summary is the same bytes either way; false keeps the plain
  // step-by-step path (tests compare the two).
  bool fast_forward_decode = true;
};

// The running-request limit a replica of `d` with a KV pool of `kv_pool_tokens` runs with: the
// engine's own, sized from the pool (and capped by the engine's speculative-decoding limit when
// `d` drafts tokens), when `sc` leaves it to the engine; else sc.max_num_seqs.
int running_limit(const SchedulerConfig& sc, const perf::Deployment& d, std::int64_t kv_pool_tokens);

// Disaggregated prefill/decode serving (sim/serving/disaggregated.h): a prefill pool runs each
// prompt, its KV cache crosses a link to a decode pool, which streams every output token.
enum class KvLinkKind { kNvlink, kInfiniband, kEthernet };
inline constexpr std::array<std::string_view, 3> kKvLinkNames = {"nvlink", "infiniband", "ethernet"};

// The link KV caches cross, resolved from hardware_db/kv_links.json and the chip cards
// (serving::resolve_kv_link). Per GPU, per direction: each GPU moves its own shard.
struct KvLink {
  KvLinkKind kind = KvLinkKind::kInfiniband;
  double bandwidth_bytes_per_s = 0;
  double latency_s = 0;  // per transfer
};

struct DecodePool {
  perf::Deployment deployment;  // the same model as the prefill pool; its own chip, TP and recipe
  SchedulerConfig scheduler;
  int replicas = 1;
  // The decode chip's calibration; unset: the one simulate() is given (same chip in both pools).
  std::optional<perf::CalibrationProfile> calibration;
};

struct Disaggregation {
  DecodePool decode;
  KvLink link;
};

struct ServingConfig {
  perf::Deployment deployment;
  SchedulerConfig scheduler;
  int replicas = 1;
  RouterKind router = RouterKind::kRoundRobin;
  WorkloadSpec workload;
  ArrivalSpec arrival;
  std::int64_t num_requests = 0;  // stop after this many arrivals (0: use duration_s)
  double duration_s = 0;          // stop arrivals after this simulated time (0: use num_requests)
  double warmup_s = 0;            // requests arriving before this are not counted in metrics
  // Closed loop: a warm-up of this many requests before the measured run, left out of every
  // metric. The users send them, then wait until all of them have ended; the measured run (its
  // num_requests or duration_s, and the throughput window) starts from that instant with every
  // user starting afresh. This is benchmark_serving.py's `--num-warmups` as InferenceX runs it
  // (2 x concurrency, benchmarks/benchmark_lib.sh; the warm-up tasks are gathered before the
  // timed run starts). With warmup_s as well, counting starts at the later of the two (the
  // steady-state rule's cut, steady_state.h; `tycoon benchmark` takes one or the other).
  std::int64_t warmup_requests = 0;
  // Requests come through the engine's API server (text in: the engine card's per-request
  // front-end latency and tokenization lane apply). False: an offline benchmark that feeds token
  // ids to the engine directly (trtllm-bench, vLLM's benchmark_throughput), no front end.
  bool api_server = true;
  std::uint64_t seed = 1;
  // Set: disaggregated serving. `deployment`, `scheduler`, `replicas` and `router` are then the
  // prefill pool's, and this holds the decode pool and the KV link. Unset: aggregated.
  std::optional<Disaggregation> disaggregated;
};

struct LatencyStats {
  double mean = 0, p50 = 0, p90 = 0, p99 = 0;  // seconds
};

// One pool of a disaggregated deployment.
struct PoolStats {
  int replicas = 0;
  int num_gpus = 0;
  double busy_fraction = 0;        // share of replica time spent in a step (over the whole run)
  double kv_utilization_mean = 0;  // mean over the pool's steps of KV blocks in use / total
  double mean_batch_size = 0;
  std::int64_t num_iterations = 0;
  std::int64_t num_preemptions = 0;
  std::int64_t kv_capacity_tokens_per_replica = 0;
  int max_num_seqs = 0;                // the running limit the pool's replicas ran with
  std::int64_t peak_running_seqs = 0;  // most sequences one replica of the pool ran at once
  std::vector<std::int64_t> requests_per_replica;
};

struct DisaggregatedStats {
  PoolStats prefill, decode;
  KvLinkKind link = KvLinkKind::kInfiniband;
  std::int64_t num_transfers = 0;
  double kv_bytes_transferred = 0;  // KV bytes that crossed the link (all GPUs of the receiving replica)
  double transfer_s_mean = 0;       // latency + bytes / bandwidth, per transfer (link queueing excluded)
  double link_wait_s_mean = 0;      // waiting for a busy link
  double kv_wait_s_mean = 0;        // waiting for KV blocks on the decode replica before the transfer
  // Mean TTFT of the counted completed requests, part by part (the parts sum to ttft_s.mean):
  // arrival -> prefill end (front end + queue + prefill), -> KV blocks reserved on the decode replica, ->
  // transfer start (link busy), -> KV landed, -> first token (waiting for the decode replica's
  // next step + that step).
  double ttft_prefill_s_mean = 0, ttft_kv_wait_s_mean = 0, ttft_link_wait_s_mean = 0, ttft_transfer_s_mean = 0,
         ttft_first_step_s_mean = 0;
};

struct ServingSummary {
  LatencyStats ttft_s, tpot_s, itl_s, e2e_s;
  double output_tok_per_s_per_gpu = 0;
  double p90_interactivity_tok_per_s_per_user = 0;  // decode speed that 90% of requests meet or beat
  std::int64_t requests_arrived = 0;
  std::int64_t requests_completed = 0;
  std::int64_t requests_rejected = 0;
  std::int64_t requests_timed_out = 0;
  std::int64_t requests_failed = 0;             // any terminal state other than completed
  std::int64_t requests_exceeding_context = 0;  // of the failed: longer than the context window or
                                                // the KV cache (agentic sessions that cannot run)
  // Of those: requests within the context window that a replica's whole KV cache cannot hold over
  // their life (prompt + output; in a disaggregated deployment, either pool's), refused on arrival.
  std::int64_t requests_exceeding_kv_cache = 0;
  // The rest of them: longer than the model's context window.
  std::int64_t requests_beyond_context_window() const {
    return requests_exceeding_context - requests_exceeding_kv_cache;
  }
  std::int64_t input_tokens = 0;         // prompt tokens of completed requests
  std::int64_t cached_input_tokens = 0;  // of which served from the prefix cache
  std::int64_t output_tokens = 0;
  double prefix_cache_hit_rate = 0;  // cached / input tokens
  double simulated_time_s = 0;
  double mean_batch_size = 0;
  double kv_utilization_mean = 0;
  std::int64_t num_iterations = 0;
  std::int64_t num_preemptions = 0;
  // The most sequences one replica had running at once: below max_num_seqs, the limit never bound.
  std::int64_t peak_running_seqs = 0;
  int max_num_seqs = 0;  // the running-request limit the replicas ran with (the decode pool's when disaggregated)
  // GPU time by op class over the whole run (seconds), for profilers and the advisor.
  std::array<double, perf::kNumOpClasses> time_by_op_s{};
  perf::Provenance provenance = perf::Provenance::kDatasheet;
  std::vector<std::int64_t> requests_per_replica;  // routed to each replica
  std::int64_t kv_capacity_tokens_per_replica = 0;
  int num_gpus = 0;                                 // replicas x GPUs per replica (both pools when disaggregated)
  std::optional<DisaggregatedStats> disaggregated;  // per pool and transfer figures (disaggregated only)

  // Mean running sequences per step over the limit the replicas ran with (the engine's own limit,
  // which may be below the recipe's max_num_seqs; 0 when none ran).
  double batch_occupancy() const { return max_num_seqs > 0 ? mean_batch_size / max_num_seqs : 0.0; }
  // Failed requests over those that arrived (0 when none did).
  double failed_share() const {
    return requests_arrived > 0 ? static_cast<double>(requests_failed) / static_cast<double>(requests_arrived) : 0.0;
  }
};

ServingSummary simulate(const ServingConfig& config, const perf::CalibrationProfile& calibration);

// How far a running simulation has got, for a front end's progress line (the simulator prints
// nothing). Requests ended count the warm-up's and the unrunnable sessions too.
struct ServingProgress {
  std::int64_t requests_ended = 0;
  // The requests the run will send (num_requests + warmup_requests); 0 when it stops on
  // duration_s or when a trace runs out instead.
  std::int64_t requests_expected = 0;
  double simulated_s = 0;  // the clock: the instant of the last event handled
  double duration_s = 0;   // config.duration_s (0: none)
};
using ServingProgressObserver = std::function<void(const ServingProgress&)>;
// As above, calling `progress` (when set) after every kProgressEvents events handled; the result
// is the same bytes whatever the observer does. An installed SimulateInterceptor gets the call
// without the observer.
inline constexpr std::int64_t kProgressEvents = 1 << 14;
ServingSummary simulate(const ServingConfig& config, const perf::CalibrationProfile& calibration,
                        const ServingProgressObserver& progress);

// A front end that must not block a frame installs an interceptor around a game hour
// (sim/game/sim_tape.h): while one is installed on this thread, simulate() hands it every call
// instead of computing. Scoped, innermost wins; nothing is installed by default.
class SimulateInterceptor {
 public:
  virtual ~SimulateInterceptor() = default;
  virtual ServingSummary simulate(const ServingConfig& config, const perf::CalibrationProfile& calibration) = 0;
};
class ScopedSimulateInterceptor {
 public:
  explicit ScopedSimulateInterceptor(SimulateInterceptor* interceptor);
  ~ScopedSimulateInterceptor();
  ScopedSimulateInterceptor(const ScopedSimulateInterceptor&) = delete;
  ScopedSimulateInterceptor& operator=(const ScopedSimulateInterceptor&) = delete;
  // The interceptor this one hides (nullptr: none, the kernel itself).
  SimulateInterceptor* previous() const { return previous_; }

 private:
  SimulateInterceptor* previous_;
};

class Simulation;

// One simulate() call run in slices of events, so that a single-threaded front end can spread it
// over frames. Owns copies of everything the configuration points to (model, chip, engine,
// calibration; for a disaggregated deployment the decode pool's chip and engine too), so the
// caller's objects may go away. The result is the bytes simulate() returns,
// however the work is sliced: the same events run in the same order.
class SlicedSimulation {
 public:
  SlicedSimulation(const ServingConfig& config, const perf::CalibrationProfile& calibration);
  ~SlicedSimulation();
  SlicedSimulation(const SlicedSimulation&) = delete;
  SlicedSimulation& operator=(const SlicedSimulation&) = delete;

  // Handles at most `max_events` more events; true once the simulation is over (or failed).
  // An event applies at most kStepsPerEvent decode steps (Simulation::limit_steps_per_event), so
  // a call's cost is bounded by its events: ~1 ms per event natively at most.
  bool advance(std::int64_t max_events);
  static constexpr std::int64_t kStepsPerEvent = 256;
  bool done() const { return done_; }
  const ServingConfig& config() const { return config_; }
  // The summary, or the exception the simulation threw (rethrown). Only once done().
  ServingSummary result() const;
  std::exception_ptr error() const { return error_; }

 private:
  data::ModelCard model_;
  data::Accelerator hardware_;
  data::Engine engine_;
  // The decode pool's chip and engine (disaggregated deployments; the model is the same one).
  data::Accelerator decode_hardware_;
  data::Engine decode_engine_;
  perf::CalibrationProfile calibration_;
  ServingConfig config_;
  std::unique_ptr<Simulation> sim_;
  std::optional<ServingSummary> summary_;
  std::exception_ptr error_;
  bool done_ = false;
};

}  // namespace tycoon::serving
