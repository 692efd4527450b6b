#include "sim/traffic/workload.h"
#include "sim/core/input_error.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tycoon::traffic {

namespace {

constexpr std::uint64_t kAgenticSystemPromptId = 0xA6E27C0DE5157E3Dull;
constexpr std::uint64_t kChatSystemPromptId = 0xC4A75157E3DB0A7Dull;

core::Duration seconds(double s) { return core::from_seconds(s); }

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

std::int64_t WorkloadGenerator::draw_length(double mean, double sigma, std::int64_t lo, std::int64_t hi) {
  double x = lengths_.lognormal_with_mean(mean, sigma);
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
  const std::int64_t max_ctx = params_.max_context_tokens;
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
    case WorkloadKind::kAgenticCoding: {
      using M = AgenticModel;
      std::int64_t initial = 0, target = 0;
      for (int attempt = 0;; ++attempt) {
        if (attempt == kMaxConsecutiveSkips) {
          throw core::InputError("no agentic-coding session fits a context window of " + std::to_string(max_ctx) +
                                 " tokens");
        }
        initial = std::clamp<std::int64_t>(
            std::llround(lengths_.lognormal_with_median(M::kInitialPromptMedian, M::kInitialPromptSigma)),
            M::kSharedSystemPromptTokens + 1024, 60000);
        target = std::max<std::int64_t>(
            std::llround(lengths_.lognormal_with_median(M::kTargetContextMedian, M::kTargetContextSigma)),
            initial + 2048);
        // A task that grows beyond the window cannot run (seed 000: GPT-OSS's 131,072-token
        // window fits 82 of AgentX's 393 sessions); the client moves on to the next task.
        if (target <= max_ctx) break;
        ++skipped_;
      }
      s.target_tokens = target;
      Turn t;
      t.content.stream_id = s.stream_id;
      t.content.shared_prefix_id = kAgenticSystemPromptId;
      t.content.shared_prefix_tokens = M::kSharedSystemPromptTokens;
      t.input_tokens = initial;
      t.output_tokens = std::min(draw_median_length(M::kOutputMedian, M::kOutputSigma, 8, 8192), target - initial);
      s.num_turns = 1;
      s.context_tokens = initial + t.output_tokens;
      return t;
    }
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
      std::int64_t user = draw_length(static_cast<double>(params_.input_tokens), sigma, 1, 64 * params_.input_tokens);
      std::int64_t answer =
          draw_length(static_cast<double>(params_.output_tokens), sigma, 1, 64 * params_.output_tokens);
      Turn t;
      t.content.stream_id = s.stream_id;
      t.content.shared_prefix_id = kChatSystemPromptId;
      t.content.shared_prefix_tokens = ChatModel::kSystemPromptTokens;
      t.input_tokens = s.context_tokens + user;
      t.output_tokens = answer;
      if (s.num_turns > 0) {
        t.think_before = seconds(
            std::clamp(sessions_.lognormal_with_median(ChatModel::kThinkMedianS, ChatModel::kThinkSigma), 0.1, 600.0));
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
    case WorkloadKind::kAgenticCoding: {
      using M = AgenticModel;
      std::int64_t tool = draw_median_length(M::kToolResultMedian, M::kToolResultSigma, 16, 60000);
      std::int64_t out = draw_median_length(M::kOutputMedian, M::kOutputSigma, 8, 8192);
      std::int64_t input = s.context_tokens + tool;
      if (input + out > s.target_tokens) {  // the task is done once its context reached the target
        s.done = true;
        return std::nullopt;
      }
      Turn t;
      t.content.stream_id = s.stream_id;
      t.content.shared_prefix_id = kAgenticSystemPromptId;
      t.content.shared_prefix_tokens = M::kSharedSystemPromptTokens;
      t.input_tokens = input;
      t.output_tokens = out;
      t.think_before =
          seconds(std::clamp(sessions_.lognormal_with_median(M::kThinkMedianS, M::kThinkSigma), 0.05, 120.0));
      ++s.num_turns;
      s.context_tokens = input + out;
      return t;
    }
  }
  return std::nullopt;
}

}  // namespace tycoon::traffic
