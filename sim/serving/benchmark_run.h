// A serving benchmark's run the way vLLM's `bench serve` and InferenceX run one: a traffic shape
// with its token lengths, closed-loop users or an open-loop rate, how many requests, and the
// warm-up left out of the metrics. The defaults are written here once, for `tycoon benchmark`,
// sweeps and the game's previews alike (but AgentX's replay timing, which only benchmark_config
// applies: the game's and sweeps' agentic users keep WorkloadSpec's pauses); the deployment
// comes from the plan (deployment_plan.h).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sim/serving/serving_sim.h"

namespace tycoon::serving {

// A workload shape's lengths when none are given.
struct TokenLengths {
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
};

// InferenceX's shapes: 8k/1k summarisation for input-heavy, 1k/8k reasoning for output-heavy,
// 1k/1k chat for the rest (agentic coding and a trace model their own lengths; theirs is unused).
TokenLengths default_lengths(WorkloadKind kind);

// InferenceX sends 10 × concurrency prompts per point, after 2 × concurrency warm-up requests
// (SemiAnalysisAI/InferenceX benchmarks/benchmark_lib.sh: --num-prompts, --num-warmups).
inline constexpr int kRequestsPerUser = 10;
inline constexpr int kWarmupRequestsPerUser = 2;

// The longest span a run may be asked for, simulated seconds: the clock counts integer
// nanoseconds, and a run's requests and pauses must fit well inside it.
inline constexpr double kMaxRunSpanS = 1e8;

// The largest parallelism and draft count a benchmark may ask for: an analyst's what-if goes
// beyond the game's choices (game::tensor_parallel_choices, game::kSpecDraftTokensRange) up to a
// 1024-GPU replica and 64 drafts; perf::Deployment and resolve_serving refuse what cannot run.
inline constexpr int kMaxBenchmarkParallel = 1024;
// The most engine replicas a pool of a benchmark may have (4096 replicas of one GPU: a fleet).
inline constexpr int kMaxBenchmarkReplicas = 4096;
inline constexpr int kMaxBenchmarkDraftTokens = 64;
// The largest scheduler settings and closed-loop users a benchmark or a sweep may ask for: far
// beyond any engine's (vLLM's max_num_seqs is in the hundreds, its token budget in the tens of
// thousands), small enough that counts and their products stay exact in the simulator's integers.
inline constexpr int kMaxBenchmarkSeqs = 1 << 20;
inline constexpr int kMaxBenchmarkUsers = 1 << 20;
inline constexpr int kMaxBenchmarkBatchedTokens = 1 << 24;
inline constexpr int kMaxBenchmarkQueue = 1 << 30;
// A benchmark (tycoon benchmark, predict) measures the engine as it ships: speculative decoding
// off unless asked for, whatever drafter the catalog's recipe names (published serving results
// are stock runs). Sweeps and the game take the recipe's drafter: a sweep point with the same
// recipe differs from a default benchmark where the recipe has one (docs/analysts.md).
inline constexpr int kBenchmarkDefaultDraftTokens = 0;

// Whether each session of `kind` is one request (random, input- and output-heavy): only there
// does a request-count warm-up leave the measured run whole (one that ends cuts sessions short).
bool one_request_per_session(WorkloadKind kind);

// Requests a closed-loop point sends when neither a count nor a span is given:
// kRequestsPerUser × concurrency. `tycoon benchmark` and sweeps start there and grow the run until
// its P90s are steady (steady_state.h); the game's windows run what they ask for.
std::int64_t default_num_requests(int concurrency);

// The warm-up requests a closed-loop run of `kind` at `concurrency` users sends by default:
// kWarmupRequestsPerUser × concurrency where each session is one request, else 0.
std::int64_t default_warmup_requests(WorkloadKind kind, int concurrency);

// GPUs of a configuration: replicas × tensor-parallel GPUs, both pools when split.
std::int64_t num_gpus(const ServingConfig& c);

// A benchmark's choices. Unset optionals take the defaults above and ServingConfig's; error
// messages name each choice by its `tycoon benchmark` option (given in the comments).
struct BenchmarkRun {
  WorkloadKind workload = WorkloadKind::kRandom;     // --workload
  std::string trace_path;                            // --trace: replay this file (workload random or trace)
  std::optional<std::int64_t> input_tokens;          // --isl (default: default_lengths)
  std::optional<std::int64_t> output_tokens;         // --osl
  std::optional<double> input_range_ratio;           // --random-range-ratio (random only)
  std::optional<double> output_range_ratio;          // --output-range-ratio (default: the input's)
  std::optional<ArrivalKind> arrival;                // --arrival (default: closed loop; a trace: its own times)
  std::optional<int> concurrency;                    // --concurrency (closed loop)
  std::optional<double> rate_per_s;                  // --rate (open loop, needed there)
  double burst_factor = ArrivalSpec{}.burst_factor;  // --burst-factor
  double diurnal_amplitude = ArrivalSpec{}.diurnal_amplitude;  // --diurnal-amplitude
  std::optional<double> ramp_up_s;                             // --ramp-up-s (closed loop)
  std::optional<double> idle_cap_s;                            // --idle-cap-s (closed loop)
  std::optional<double> max_pause_s;                           // --pause-cap-s (agentic coding)
  std::optional<traffic::PauseBasis> pause_basis;              // --pause-basis (agentic coding)
  // --agentx-timing (agentic coding; default kDefaultAgentxTiming): an index into kAgentxTimings,
  // whose pause basis and caps the three options above refine one by one.
  std::optional<std::size_t> agentx_timing;
  std::int64_t num_requests = 0;                // --num-requests (0: default_num_requests, or the whole trace)
  double duration_s = 0;                        // --duration-s (0: stop on the count)
  std::optional<double> warmup_s;               // --warmup-s
  std::optional<std::int64_t> warmup_requests;  // --warmup-requests (default: default_warmup_requests)
  bool api_server = true;                       // false: --offline
  std::int64_t kv_capacity_tokens = 0;          // --kv-capacity-tokens (0: the memory plan)
  std::uint64_t seed = 1;                       // --seed
};

// How AgentX's replay paced a user's next request, as InferenceX pinned AIPerf's
// inferencex-agentx-mvp scenario over 2026 (benchmarks/benchmark_lib.sh and the utils/aiperf
// submodule of SemiAnalysisAI/InferenceX, read at each commit that moved the pin; docs/fidelity.md,
// "Which AgentX"): the recorded pause it waits, the cap on one pause, and the cap on the whole
// system sitting idle (0: none).
struct AgentxTiming {
  std::string_view name;
  std::string_view since;  // the InferenceX change that brought it
  traffic::PauseBasis pause_basis;
  double pause_cap_s;
  double idle_cap_s;
};
inline constexpr std::array<AgentxTiming, 4> kAgentxTimings = {{
    // AIPerf v0.2: the trace's think_time, capped at 60 s (InferenceX #1393).
    {"may-2026", "2026-05-17, InferenceX #1393", traffic::PauseBasis::kThinkTime, 60, 0},
    // AIPerf v0.3: the gap between request starts, waited after each answer, over 60 s compressed
    // to 60 s (#1571).
    {"june-2026", "2026-06-02, InferenceX #1571", traffic::PauseBasis::kStartToStart, 60, 0},
    // AgentX v1.0 and its 393-session corpus: the same gaps compressed to 10 s (#1970).
    {"july-2026", "2026-07-02, InferenceX #1970", traffic::PauseBasis::kStartToStart, 10, 0},
    // AIPerf's end-to-start delay, max(0, gap - the answer's recorded time): a trajectory idle
    // at most 300 s, the whole replay idle at most 10 s (#2365, #2457); AgentX's current harness.
    {"august-2026", "late July 2026, InferenceX #2365 and #2457", traffic::PauseBasis::kEndToStart, 300, 10},
}};
// `tycoon benchmark --workload agentic-coding` replays AgentX under its current timing (issue 34:
// the harness the seed's 393 sessions run under today).
inline constexpr std::size_t kDefaultAgentxTiming = 3;
static_assert(kAgentxTimings[kDefaultAgentxTiming].name == "august-2026");
// The names, in the order of kAgentxTimings (for option checks and messages).
inline constexpr std::array<std::string_view, kAgentxTimings.size()> kAgentxTimingNames = {
    kAgentxTimings[0].name, kAgentxTimings[1].name, kAgentxTimings[2].name, kAgentxTimings[3].name};
// The named timing a run's pause basis, pause cap and idle cap are, or nullptr when they are
// another combination (a flag moved one of them).
const AgentxTiming* agentx_timing_of(const ServingConfig& c);

// `deployment` (a plan's configuration without the run: DeploymentPlan::config) running `run`.
// Throws core::InputError or std::invalid_argument for a choice that does not apply to the
// others (--rate without an open-loop arrival, --isl on a trace, ...) and for a run that measures
// nothing or spans more than kMaxRunSpanS.
ServingConfig benchmark_config(ServingConfig deployment, const BenchmarkRun& run);

}  // namespace tycoon::serving
