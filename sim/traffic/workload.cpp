#include "sim/traffic/workload.h"
#include "sim/core/input_error.h"
#include "sim/traffic/agentic_distributions.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace tycoon::traffic {

namespace {

constexpr std::uint64_t kRewriteSalt = 0xA6E27C0DE5157E3Dull;
constexpr std::uint64_t kChatSystemPromptId = 0xC4A75157E3DB0A7Dull;

core::Duration seconds(double s) { return core::from_seconds(s); }

// A draw from a measured distribution: its 65 quantiles, linearly interpolated.
double draw_quantile(const agentx::Quantiles& q, core::RngStream& rng) {
  const double x = rng.uniform01() * agentx::kQuantileSteps;
  const auto i = std::min(static_cast<std::size_t>(x), static_cast<std::size_t>(agentx::kQuantileSteps - 1));
  const double f = x - static_cast<double>(i);
  return q[i] + (q[i + 1] - q[i]) * f;
}

std::int64_t draw_count(const agentx::Quantiles& q, core::RngStream& rng, std::int64_t lo) {
  return std::max(lo, static_cast<std::int64_t>(std::llround(draw_quantile(q, rng))));
}

}  // namespace

WorkloadGenerator::WorkloadGenerator(const WorkloadParams& params, std::uint64_t seed)
    : params_(params),
      lengths_(seed, core::RngPurpose::kLengths),
      sessions_(seed, core::RngPurpose::kSessions),
      stream_seed_(core::hash_combine(seed, 0x57BEA11D5ull)) {
  if (params_.input_tokens < 1 || params_.output_tokens < 1) {
    throw core::InputError("workload input and output tokens must be at least 1");
  }
  for (double r : {params_.input_range_ratio, params_.output_range_ratio}) {
    if (!(r >= 0 && r <= 1)) throw std::invalid_argument("random range ratio must be in [0, 1]");
  }
  if (params_.kind == WorkloadKind::kTrace && params_.trace == nullptr) {
    throw core::InputError("trace workload without a trace");
  }
}

std::int64_t WorkloadGenerator::draw_length(core::RngStream& rng, double mean, double sigma, std::int64_t lo,
                                            std::int64_t hi) {
  double x = rng.lognormal_with_mean(mean, sigma);
  return std::clamp(static_cast<std::int64_t>(std::llround(x)), lo, hi);
}

std::int64_t WorkloadGenerator::draw_median_length(double median, double sigma, std::int64_t lo, std::int64_t hi) {
  double x = lengths_.lognormal_with_median(median, sigma);
  return std::clamp(static_cast<std::int64_t>(std::llround(x)), lo, hi);
}

bool WorkloadGenerator::exhausted() const {
  return params_.kind == WorkloadKind::kTrace && next_trace_entry_ >= params_.trace->entries.size();
}

std::optional<double> WorkloadGenerator::peek_trace_arrival_s() const {
  if (params_.kind != WorkloadKind::kTrace || next_trace_entry_ >= params_.trace->entries.size()) return std::nullopt;
  return params_.trace->entries[next_trace_entry_].arrival_s;
}

Turn WorkloadGenerator::single_turn(Session& s) {
  Turn t;
  t.content.stream_id = s.stream_id;
  t.content.unique = true;  // a fresh stream, one request, no shared prefix
  const std::int64_t isl = params_.input_tokens, osl = params_.output_tokens;
  switch (params_.kind) {
    case WorkloadKind::kRandom: {
      // The random dataset of vLLM's benchmark_serving.py as InferenceX runs it: input and output
      // lengths each uniform on [floor(X * ratio), X] (input at least 1), EOS ignored so the
      // answer is exactly the drawn length. Exact lengths (ratio 1) make closed-loop users finish
      // in lock-step waves; the jitter is what spreads them out.
      auto draw = [&](std::int64_t x, double ratio) {
        if (ratio >= 1) return x;
        const auto lo =
            std::max<std::int64_t>(1, static_cast<std::int64_t>(std::floor(static_cast<double>(x) * ratio)));
        return lengths_.uniform_int(lo, x);
      };
      t.input_tokens = draw(isl, params_.input_range_ratio);
      t.output_tokens = draw(osl, params_.output_range_ratio);
      break;
    }
    case WorkloadKind::kInputHeavy:
    case WorkloadKind::kOutputHeavy:
      t.input_tokens = draw_length(static_cast<double>(isl), kHeavyLengthSigma, 1, 64 * isl);
      t.output_tokens = draw_length(static_cast<double>(osl), kHeavyLengthSigma, 1, 64 * osl);
      break;
    case WorkloadKind::kChat:
    case WorkloadKind::kAgenticCoding:
    case WorkloadKind::kTrace:
      throw std::logic_error("single_turn called for a session shape");
  }
  s.done = true;
  return t;
}

std::optional<Turn> WorkloadGenerator::start_session(Session& s) {
  s = Session{};
  s.stream_id = core::hash_combine(stream_seed_, next_stream_++);
  s.rng = core::RngStream(s.stream_id, core::RngPurpose::kSessions);
  switch (params_.kind) {
    case WorkloadKind::kRandom:
    case WorkloadKind::kInputHeavy:
    case WorkloadKind::kOutputHeavy: {
      s.num_turns = 1;
      return single_turn(s);
    }
    case WorkloadKind::kTrace: {
      const auto& entries = params_.trace->entries;
      if (next_trace_entry_ >= entries.size()) return std::nullopt;
      const TraceEntry& e = entries[next_trace_entry_++];
      Turn t;
      t.input_tokens = e.input_tokens;
      t.output_tokens = e.output_tokens;
      t.trace_arrival_s = e.arrival_s;
      t.content.stream_id =
          e.session_id.empty() ? s.stream_id : core::hash_combine(string_id(e.session_id), 0x5E5510Eull);
      t.content.unique = e.session_id.empty() && e.prefix_id.empty();
      if (!e.prefix_id.empty()) {
        t.content.shared_prefix_id = string_id(e.prefix_id);
        t.content.shared_prefix_tokens = e.prefix_tokens;
      }
      if (!e.block_ids.empty()) {
        t.content.block_ids = &e.block_ids;
        t.content.block_tokens = e.block_tokens;
        t.content.unique = false;
      }
      s.num_turns = 1;
      s.done = true;
      return t;
    }
    case WorkloadKind::kChat: {
      // Turns: 1 + geometric with mean kMeanExtraTurns (success probability p = 1 / (1 + mean)).
      const double p_stop = 1.0 / (1.0 + ChatModel::kMeanExtraTurns);
      int turns = 1;
      while (turns < ChatModel::kMaxTurns && !sessions_.bernoulli(p_stop)) ++turns;
      s.turns_left = turns;
      s.context_tokens = ChatModel::kSystemPromptTokens;
      return next_turn(s);
    }
    case WorkloadKind::kAgenticCoding:
      return start_agentic(s);
  }
  return std::nullopt;
}

std::optional<Turn> WorkloadGenerator::next_turn(Session& s) {
  if (s.done) return std::nullopt;
  const std::int64_t max_ctx = params_.max_context_tokens;
  switch (params_.kind) {
    case WorkloadKind::kRandom:
    case WorkloadKind::kInputHeavy:
    case WorkloadKind::kOutputHeavy:
    case WorkloadKind::kTrace:
      s.done = true;
      return std::nullopt;
    case WorkloadKind::kChat: {
      if (s.turns_left <= 0) {
        s.done = true;
        return std::nullopt;
      }
      const double sigma = ChatModel::kLengthSigma;
      std::int64_t user =
          draw_length(s.rng, static_cast<double>(params_.input_tokens), sigma, 1, 64 * params_.input_tokens);
      std::int64_t answer =
          draw_length(s.rng, static_cast<double>(params_.output_tokens), sigma, 1, 64 * params_.output_tokens);
      Turn t;
      t.content.stream_id = s.stream_id;
      t.content.shared_prefix_id = kChatSystemPromptId;
      t.content.shared_prefix_tokens = ChatModel::kSystemPromptTokens;
      t.input_tokens = s.context_tokens + user;
      t.output_tokens = answer;
      if (s.num_turns > 0) {
        t.think_before = seconds(
            std::clamp(s.rng.lognormal_with_median(ChatModel::kThinkMedianS, ChatModel::kThinkSigma), 0.1, 600.0));
        // A conversation that outgrows the window ends (the client would start a new one).
        if (t.input_tokens + t.output_tokens > max_ctx) {
          s.done = true;
          return std::nullopt;
        }
      }
      --s.turns_left;
      ++s.num_turns;
      s.context_tokens = t.input_tokens + t.output_tokens;
      return t;
    }
    case WorkloadKind::kAgenticCoding:
      return next_agentic(s);
  }
  return std::nullopt;
}

std::optional<Turn> WorkloadGenerator::start_agentic(Session& s) {
  const std::int64_t max_ctx = params_.max_context_tokens;
  const bool joined = sessions_started_ < params_.joined_sessions;
  for (int attempt = 0;; ++attempt) {
    if (attempt == kMaxConsecutiveSkips) {
      throw core::InputError("no agentic-coding session fits a context window of " + std::to_string(max_ctx) +
                             " tokens");
    }
    // A conversation picked at random, as the replay picks its next trace.
    const auto& c = agentx::kConversations[static_cast<std::size_t>(
        sessions_.uniform_int(0, static_cast<std::int64_t>(agentx::kConversations.size()) - 1))];
    const int n = c.requests;
    const double growth_per_turn =
        n > 1 ? static_cast<double>(std::max<std::int64_t>(0, c.last_prompt_tokens - c.first_prompt_tokens)) / (n - 1)
              : 0.0;
    int start = 0;
    if (joined && n > 1) {  // kv-cache-tester calculate_start_index: [int(0.25 n), min(int(0.75 n), n - 1)]
      const int lo = n / 4, hi = std::min(3 * n / 4, n - 1);
      start = static_cast<int>(sessions_.uniform_int(lo, std::max(lo, hi)));
    }
    Turn t;
    t.input_tokens = c.first_prompt_tokens + std::llround(growth_per_turn * start);
    // The conversations fit a 131,072-token window; with a smaller one a conversation whose first
    // prompt does not fit is skipped (the client moves on to the next), and a request that
    // outgrows the window later is refused by the server.
    if (t.input_tokens >= max_ctx) {
      ++skipped_;
      continue;
    }
    t.output_tokens = draw_count(agentx::kOutputTokens, lengths_, 1);
    s.last_prompt_tokens = c.last_prompt_tokens;
    // The new tokens each turn to come adds (the previous answer, tool results, the user's
    // words): the measured distribution's shape, scaled so that together they take the
    // conversation to its recorded last prompt. A long draw (one in 64 adds more than 7x the
    // mean) leaves less for the others, as the recorded conversation ended where it ended;
    // scaling each draw by the row's mean growth instead was a random walk that carried about
    // one session in eight past the window before its last request.
    const int left = n - start - 1;
    std::vector<double> draws(static_cast<std::size_t>(std::max(0, left)));
    double drawn = 0;
    for (auto& x : draws) drawn += x = draw_quantile(agentx::kNewTokensPerTurn, lengths_);
    const double room = static_cast<double>(std::max<std::int64_t>(0, c.last_prompt_tokens - t.input_tokens));
    s.growth.clear();
    for (auto it = draws.rbegin(); it != draws.rend(); ++it) {  // the next turn's at the back
      s.growth.push_back(std::max<std::int64_t>(1, std::llround(*it * room / drawn)));
    }
    ++sessions_started_;
    // A fresh stream and no prefix shared with any other session: AgentX busts the cache of each
    // conversation's first prompt (InferenceX issue #1632).
    t.content.stream_id = s.stream_id;
    s.turns_left = left;
    s.num_turns = 1;
    s.prompt_tokens = t.input_tokens;
    s.context_tokens = t.input_tokens + t.output_tokens;
    return t;
  }
}

static_assert(agentx::kMaxPauseS == WorkloadParams{}.max_pause_s,
              "the generated default cap and the parameter's agree");

std::optional<Turn> WorkloadGenerator::next_agentic(Session& s) {
  if (s.turns_left <= 0 || s.growth.empty()) {
    s.done = true;
    return std::nullopt;
  }
  Turn t;
  const std::int64_t growth = s.growth.back();
  s.growth.pop_back();
  if (s.rng.bernoulli(agentx::kRewriteProbability)) {
    // The agent rewrote its history: the prompt keeps only the start of the previous one and the
    // rest is new, at a measured size (mostly about the same; sometimes compacted). Pages of the
    // kept part keep their old identity; the session continues on a new stream. A second rewrite
    // keeps at most the first one's prefix (a prompt carries one kept prefix).
    const auto& r = agentx::kRewrites[static_cast<std::size_t>(
        s.rng.uniform_int(0, static_cast<std::int64_t>(agentx::kRewrites.size()) - 1))];
    const auto prev = static_cast<double>(s.prompt_tokens);
    const std::int64_t prefix = std::llround(r.kept_fraction * prev);
    // At most the conversation's recorded last prompt: the measured ratio comes from a
    // conversation of another size, and every recorded one stayed within its window.
    t.input_tokens =
        std::max(prefix + 1, std::min<std::int64_t>(s.last_prompt_tokens, std::llround(r.size_ratio * prev)));
    if (s.kept_prefix_tokens == 0) {
      s.kept_prefix_id = s.stream_id;
      s.kept_prefix_tokens = prefix;
    } else {
      s.kept_prefix_tokens = std::min(s.kept_prefix_tokens, prefix);
    }
    s.stream_id = core::hash_combine(s.stream_id, kRewriteSalt);
    // The turns after it add their growth to the rewritten prompt, scaled down where a rewrite
    // that grew the prompt would otherwise carry the conversation past its recorded last prompt
    // (never up: a compacted history is not regrown).
    double rest = 0;
    for (auto g : s.growth) rest += static_cast<double>(g);
    const double room = static_cast<double>(std::max<std::int64_t>(0, s.last_prompt_tokens - t.input_tokens));
    if (rest > room) {
      for (auto& g : s.growth) g = std::max<std::int64_t>(1, std::llround(static_cast<double>(g) * room / rest));
    }
  } else {
    t.input_tokens = s.prompt_tokens + growth;  // the previous prompt and this turn's new tokens
  }
  const auto& pauses = params_.pause_basis == PauseBasis::kStartToStart ? agentx::kStartGapSeconds
                       : params_.pause_basis == PauseBasis::kEndToStart ? agentx::kEndToStartSeconds
                                                                        : agentx::kPauseSeconds;
  const double pause = draw_quantile(pauses, s.rng);
  t.think_before = seconds(params_.max_pause_s > 0 ? std::min(pause, params_.max_pause_s) : pause);
  // A request past the window is sent all the same: the server refuses it (a failed request, as
  // the few in seed 000's stock runs) and the conversation ends there.
  t.output_tokens = draw_count(agentx::kOutputTokens, s.rng, 1);
  t.content.stream_id = s.stream_id;
  t.content.shared_prefix_id = s.kept_prefix_id;
  t.content.shared_prefix_tokens = s.kept_prefix_tokens;
  --s.turns_left;
  ++s.num_turns;
  s.prompt_tokens = t.input_tokens;
  s.context_tokens = t.input_tokens + t.output_tokens;
  return t;
}

double mean_request_context_tokens(const WorkloadParams& params, std::uint64_t seed, int sessions) {
  WorkloadGenerator gen(params, seed);
  double tokens = 0;
  std::int64_t requests = 0;
  for (int k = 0; k < sessions; ++k) {
    Session s;
    auto turn = gen.start_session(s);
    if (!turn) break;  // a trace at its end
    while (turn) {
      tokens += static_cast<double>(turn->input_tokens + turn->output_tokens);
      ++requests;
      turn = gen.next_turn(s);
    }
  }
  return requests > 0 ? tokens / static_cast<double>(requests) : 0.0;
}

}  // namespace tycoon::traffic
