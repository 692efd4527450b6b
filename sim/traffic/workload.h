// Workload shapes: what requests look like (lengths, multi-turn sessions, prefix reuse) and the
// client's pauses between turns. Arrival instants are in arrivals.h; serving maps its
// WorkloadSpec onto WorkloadParams here.
//
// Prefix identity. Each prompt is the first `input_tokens` tokens of a content stream; a
// session's turns share one stream, so turn n+1 (history + the answer to turn n + new text)
// starts with every token of turn n. Optionally the first `shared_prefix_tokens` come from a
// stream shared by many sessions (a system prompt). The KV cache hashes page-sized blocks of
// these streams, so identical prefixes hit and different ones never do.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/rng.h"
#include "sim/core/time.h"
#include "sim/traffic/trace.h"

namespace tycoon::traffic {

struct Content {
  std::uint64_t stream_id = 0;
  std::uint64_t shared_prefix_id = 0;
  std::int64_t shared_prefix_tokens = 0;
  // No other request shares any token block of this prompt (random prompts): only the request
  // itself, recomputing after a preemption, could ever hit its cached blocks.
  bool unique = false;
  // An imported trace's block hashes (TraceEntry::block_ids, owned by the Trace, which outlives
  // the run): a page whose last token lies in hashed block k is identified by that block's id.
  const std::vector<std::uint64_t>* block_ids = nullptr;
  std::int64_t block_tokens = 0;
};

// Identity of token block `index` (tokens [index·P, (index+1)·P)) of a prompt with `content`.
inline std::uint64_t block_content_key(const Content& c, std::int64_t index, std::int64_t page_tokens) {
  if (c.block_ids != nullptr && c.block_tokens > 0) {
    // Identical ids up to block k mean identical tokens up to its end, so a page that ends inside
    // block k is the same page in every prompt carrying that id there. Pages past the hashed
    // blocks belong to this prompt alone (its stream).
    const auto k = static_cast<std::size_t>(((index + 1) * page_tokens - 1) / c.block_tokens);
    if (k < c.block_ids->size()) return core::hash_combine((*c.block_ids)[k], static_cast<std::uint64_t>(index));
  }
  const bool shared = (index + 1) * page_tokens <= c.shared_prefix_tokens;
  return core::hash_combine(shared ? c.shared_prefix_id : c.stream_id, static_cast<std::uint64_t>(index));
}

// A traffic shape: the one enum of the concept, used by serving, the game and the CLI;
// kWorkloadNames is its names table.
enum class WorkloadKind { kRandom, kChat, kAgenticCoding, kInputHeavy, kOutputHeavy, kTrace };
inline constexpr std::array<std::string_view, 6> kWorkloadNames = {"random",      "chat",         "agentic-coding",
                                                                   "input-heavy", "output-heavy", "trace"};

// Multi-turn shapes resend the conversation: a request's input is the history plus the new turn
// (chat and agentic sessions; a trace's sessions too, each turn's recorded input).
inline constexpr bool resends_history(WorkloadKind k) {
  return k == WorkloadKind::kChat || k == WorkloadKind::kAgenticCoding || k == WorkloadKind::kTrace;
}

// kAgenticCoding: how a recorded pause is taken from the trace (scripts/agentx_distributions.py
// tabulates each). kThinkTime: the client's pause as the trace records it (`think_time`:
// kv-cache-tester; AIPerf's think-time-only AgentX timing of May 2026). kStartToStart: the gap
// between the two requests' starts (`t` - previous `t`), which holds the recorded answer's own time
// (`api_time`) too; AIPerf's inferencex-agentx-mvp scenario of June to late July 2026 waited one
// such gap after the previous request completed (SemiAnalysisAI/InferenceX
// benchmarks/benchmark_lib.sh at 1b234994f, "--trace-idle-gap-cap-seconds 60 ... supersedes the
// legacy --use-think-time-only / --inter-turn-delay-cap-seconds path"; the loader's
// `delay_ms = (t - prev_t)` on the gap-capped timeline and the replay's "dispatch the next turn
// honoring trace delay_ms" on each completion). kEndToStart: that gap less the previous answer's
// recorded time, max(0, gap - api_time), AIPerf's end-to-start delay from late July 2026, which
// calls the start-to-start one double-counting (ai-dynamo/aiperf weka_trace.py,
// `_end_to_start_delay_ms`).
enum class PauseBasis { kThinkTime, kStartToStart, kEndToStart };
inline constexpr std::array<std::string_view, 3> kPauseBasisNames = {"think-time", "start-to-start", "end-to-start"};

struct WorkloadParams {
  WorkloadKind kind = WorkloadKind::kRandom;
  std::int64_t input_tokens = 1024;          // random: nominal ISL; chat: mean new user tokens per turn;
                                             // input/output-heavy: mean prompt length
  std::int64_t output_tokens = 1024;         // random: nominal OSL; others: mean answer length
  std::int64_t max_context_tokens = 131072;  // the model's window: agentic sessions beyond it cannot run
  const Trace* trace = nullptr;              // kTrace
  // kAgenticCoding: sessions that join their conversation part-way (the users present when a
  // closed-loop run starts); later sessions start conversations from their first request.
  std::int64_t joined_sessions = 0;
  // kAgenticCoding: the longest pause the replay keeps of a recorded one (kv-cache-tester
  // --max-delay 60; the early versions of AIPerf's AgentX scenario, trace_idle_gap_cap_seconds 60).
  // 0: the pauses as recorded.
  double max_pause_s = 60;
  PauseBasis pause_basis = PauseBasis::kThinkTime;  // kAgenticCoding: how a recorded pause is taken
  // Random: lengths uniform on the integers [max(1, floor(X * ratio)), X] for X = ISL and OSL, as
  // the benchmark client InferenceX runs does (serving::WorkloadSpec cites it); 1 gives exact lengths.
  double input_range_ratio = 0.8;
  double output_range_ratio = 0.8;
};

// One request of a session, as the client sends it.
struct Turn {
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  Content content;
  core::Duration think_before{0};         // client pause after the previous turn ended (0 for the first)
  std::optional<double> trace_arrival_s;  // kTrace: the file's arrival time
};

// The client-side state of one session (a conversation, a coding-agent task, or one request).
struct Session {
  std::uint64_t stream_id = 0;
  std::int64_t context_tokens = 0;      // tokens in the stream so far (last prompt + its answer)
  std::int64_t prompt_tokens = 0;       // agentic: the last prompt's length
  std::int64_t last_prompt_tokens = 0;  // agentic: the conversation's recorded last prompt
  // agentic: the new tokens each turn still to come adds to the previous prompt, the next last
  std::vector<std::int64_t> growth;
  // agentic: after a history rewrite, the prefix kept from an earlier stream of the session
  std::uint64_t kept_prefix_id = 0;
  std::int64_t kept_prefix_tokens = 0;
  int turns_left = 0;  // chat, agentic
  int num_turns = 0;   // turns issued
  bool done = false;
  // The session's own draws after its start (its turns' lengths, pauses, rewrites): the same
  // conversation whatever the order in which sessions' turns come due. Two runs of the same seed
  // that differ only in speed (a paired benchmark, a what-if, the advisor's checks) then serve
  // the same conversations; a shared stream would hand session k another session's draws as
  // soon as one answer ends earlier, and the pair would measure different traffic.
  core::RngStream rng{0, core::RngPurpose::kSessions};
};

class WorkloadGenerator {
 public:
  WorkloadGenerator(const WorkloadParams& params, std::uint64_t seed);

  // Starts a session and returns its first turn; nullopt when the source is exhausted (trace).
  // An agentic conversation whose first prompt does not fit the context window cannot start: it
  // is skipped (counted, see take_skipped_sessions) and the next one is drawn; a later request
  // that outgrows the window is still generated, for the server to refuse. Throws
  // std::invalid_argument when kMaxConsecutiveSkips conversations in a row cannot start.
  std::optional<Turn> start_session(Session& s);
  // Sessions skipped as unrunnable since the last call.
  std::int64_t take_skipped_sessions() {
    std::int64_t n = skipped_;
    skipped_ = 0;
    return n;
  }
  static constexpr int kMaxConsecutiveSkips = 100000;
  // The next turn after the previous one completed; nullopt when the session is over.
  std::optional<Turn> next_turn(Session& s);

  // kTrace: arrival time of the next entry start_session would return (nullopt at the end).
  std::optional<double> peek_trace_arrival_s() const;
  // True when start_session can return nothing more: a trace whose every entry was started.
  bool exhausted() const;

  const WorkloadParams& params() const { return params_; }

 private:
  Turn single_turn(Session& s);
  // Lognormal token counts, rounded and clamped to [lo, hi].
  std::int64_t draw_length(double mean, double sigma, std::int64_t lo, std::int64_t hi) {
    return draw_length(lengths_, mean, sigma, lo, hi);
  }
  static std::int64_t draw_length(core::RngStream& rng, double mean, double sigma, std::int64_t lo, std::int64_t hi);
  std::int64_t draw_median_length(double median, double sigma, std::int64_t lo, std::int64_t hi);
  std::optional<Turn> start_agentic(Session& s);
  std::optional<Turn> next_agentic(Session& s);
  std::int64_t answer_tokens(std::int64_t prompt_tokens);

  WorkloadParams params_;
  core::RngStream lengths_;
  core::RngStream sessions_;
  std::uint64_t stream_seed_;
  std::uint64_t next_stream_ = 0;
  std::size_t next_trace_entry_ = 0;
  std::int64_t skipped_ = 0;
  std::int64_t sessions_started_ = 0;
};

// The mean tokens a request holds in the KV cache when it ends (its prompt, the resent history
// included where the shape resends it, plus its answer), over the turns of the first `sessions`
// sessions drawn from `seed`: the context a running request of this traffic needs. For a
// single-turn shape it is the mean prompt plus the mean answer; for chat and agentic sessions the
// history makes it several times the new tokens of a turn. A trace needs `params.trace`.
double mean_request_context_tokens(const WorkloadParams& params, std::uint64_t seed, int sessions = 256);

// The agentic-coding shape: AgentX's replay of real coding-agent sessions (InferenceX PR #1201),
// drawn from the distributions measured on its public traces (agentic_distributions.h, made by
// scripts/agentx_distributions.py from callanjfox/kv-cache-tester). A session is one
// conversation, one of the measured ones that fit a 131,072-token window (its requests, first
// and last prompt): its first request is all new tokens (AgentX busts each conversation's cache,
// InferenceX issue #1632), each later one resends the previous prompt and adds new tokens (the
// answer, tool results: the measured distribution, scaled to the conversation's growth per
// request), pausing as recorded (capped at 60 s) before it; about 1 turn in 80 the agent
// rewrites its history and keeps only part of the previous prompt. The first
// `WorkloadParams::joined_sessions` sessions join a conversation 25-75% of the way in, as
// the users present when a replay starts do (kv-cache-tester --advance-min/--advance-max).
// Chat: multi-turn conversations resending their history.
struct ChatModel {
  static constexpr std::int64_t kSystemPromptTokens = 256;  // shared by every conversation
  static constexpr double kMeanExtraTurns = 2.0;            // turns = 1 + geometric(mean 2), at most 16
  static constexpr int kMaxTurns = 16;
  static constexpr double kLengthSigma = 0.7;
  static constexpr double kThinkMedianS = 5.0;  // the user reads and types
  static constexpr double kThinkSigma = 0.8;
};

// Input- and output-heavy shapes: lognormal lengths around the means, no reuse.
inline constexpr double kHeavyLengthSigma = 0.5;

}  // namespace tycoon::traffic
