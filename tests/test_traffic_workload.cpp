// Workload shapes: what the generated requests look like, and strict trace files.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "sim/data/json_reader.h"
#include "sim/traffic/trace.h"
#include "sim/traffic/workload.h"

using namespace tycoon;
using traffic::WorkloadGenerator;
using traffic::WorkloadKind;
using traffic::WorkloadParams;

namespace {

std::string trace_error(const std::string& text) {
  try {
    traffic::parse_trace(text, "t.jsonl");
  } catch (const data::LoadError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("random traffic: InferenceX lengths, no two prompts share content") {
  // benchmark_serving.py's random dataset as InferenceX runs it (range ratio 0.8): input and
  // output each uniform on [int(0.8 x 1024), 1024] = [819, 1024].
  WorkloadGenerator g(WorkloadParams{WorkloadKind::kRandom, 1024, 1024}, 5);
  std::set<std::uint64_t> streams;
  std::int64_t lo = 1 << 30, hi = 0, out_lo = 1 << 30, out_hi = 0;
  double sum = 0, out_sum = 0;
  constexpr int kN = 20000;
  for (int i = 0; i < kN; ++i) {
    traffic::Session s;
    auto t = g.start_session(s);
    REQUIRE(t);
    lo = std::min(lo, t->input_tokens);
    hi = std::max(hi, t->input_tokens);
    out_lo = std::min(out_lo, t->output_tokens);
    out_hi = std::max(out_hi, t->output_tokens);
    sum += static_cast<double>(t->input_tokens);
    out_sum += static_cast<double>(t->output_tokens);
    streams.insert(t->content.stream_id);
    CHECK(t->content.shared_prefix_tokens == 0);
    CHECK_FALSE(g.next_turn(s));  // one request per session
  }
  CHECK(lo == 819);
  CHECK(hi == 1024);
  // The output lengths jitter too: with exact outputs closed-loop users finish in lock-step waves.
  CHECK(out_lo == 819);
  CHECK(out_hi == 1024);
  // Mean of a discrete uniform on [819, 1024] = 921.5; standard error 59.5 / sqrt(20000) = 0.42,
  // so 0.2% (1.8 tokens) is over 4 standard errors.
  constexpr double kMeanTol = 0.002;
  CHECK(sum / kN == doctest::Approx(921.5).epsilon(kMeanTol));
  CHECK(out_sum / kN == doctest::Approx(921.5).epsilon(kMeanTol));
  CHECK(streams.size() == static_cast<std::size_t>(kN));

  SUBCASE("range ratio 1: exact lengths; 0.5: [512, 1024]") {
    WorkloadParams p{WorkloadKind::kRandom, 1024, 1000};
    p.input_range_ratio = 0.5;
    p.output_range_ratio = 1.0;
    WorkloadGenerator g2(p, 7);
    std::int64_t in_lo = 1 << 30;
    for (int i = 0; i < 5000; ++i) {
      traffic::Session s;
      auto t = g2.start_session(s);
      REQUIRE(t);
      CHECK(t->output_tokens == 1000);
      CHECK(t->input_tokens >= 512);
      in_lo = std::min(in_lo, t->input_tokens);
    }
    CHECK(in_lo < 520);  // 5,000 draws over 513 values: the bottom 8 values are all missed with p ~ 1e-34
  }
  SUBCASE("a range ratio outside [0, 1] is refused") {
    WorkloadParams p{WorkloadKind::kRandom, 1024, 1024};
    p.output_range_ratio = 1.5;
    CHECK_THROWS_WITH_AS(WorkloadGenerator(p, 1), "random range ratio must be in [0, 1]", std::invalid_argument);
  }
}

TEST_CASE("agentic coding: growing prefixes resent turn after turn, long tasks cannot run") {
  WorkloadParams p{WorkloadKind::kAgenticCoding, 1024, 1024, 131072};
  WorkloadGenerator g(p, 9);
  std::int64_t sessions = 0, skipped = 0, requests = 0;
  std::vector<double> inputs;
  for (int i = 0; i < 300; ++i) {
    traffic::Session s;
    auto t = g.start_session(s);
    REQUIRE(t);
    skipped += g.take_skipped_sessions();
    ++sessions;
    std::int64_t prev_context = 0;
    CHECK(t->think_before.count() == 0);
    while (t) {
      ++requests;
      inputs.push_back(static_cast<double>(t->input_tokens));
      // Each prompt holds the whole previous turn (prompt + answer) plus new tool output.
      CHECK(t->input_tokens > prev_context);
      CHECK(t->input_tokens + t->output_tokens <= p.max_context_tokens);
      CHECK(t->content.stream_id == s.stream_id);
      CHECK(t->content.shared_prefix_tokens == traffic::AgenticModel::kSharedSystemPromptTokens);
      prev_context = t->input_tokens + t->output_tokens;
      t = g.next_turn(s);
      if (t) CHECK(t->think_before.count() > 0);
    }
  }
  // Seed 000: GPT-OSS's 131,072-token window fits 82 of AgentX's 393 sessions (21%); the
  // session model puts ~25% of tasks inside it. Loose bounds: the shape, not the decimal.
  const double fit = static_cast<double>(sessions) / static_cast<double>(sessions + skipped);
  CHECK(fit > 0.15);
  CHECK(fit < 0.35);
  // Seed 000: the fitting sessions' median request is ~67,000 input tokens.
  std::sort(inputs.begin(), inputs.end());
  const double median = inputs[inputs.size() / 2];
  INFO("median request input tokens: " << median << ", sessions fitting: " << fit);
  CHECK(median > 50000);
  CHECK(median < 85000);
  CHECK(requests > 20 * sessions);  // tens of turns per task
}

TEST_CASE("agentic coding with no window large enough is an error, not a hang") {
  WorkloadGenerator g(WorkloadParams{WorkloadKind::kAgenticCoding, 1024, 1024, 4096}, 1);
  traffic::Session s;
  CHECK_THROWS_AS(g.start_session(s), std::invalid_argument);
}

TEST_CASE("chat: conversations resend their history and share a system prompt") {
  WorkloadGenerator g(WorkloadParams{WorkloadKind::kChat, 200, 300, 131072}, 3);
  int multi_turn = 0;
  for (int i = 0; i < 200; ++i) {
    traffic::Session s;
    auto t = g.start_session(s);
    REQUIRE(t);
    CHECK(t->input_tokens > traffic::ChatModel::kSystemPromptTokens);
    std::int64_t context = t->input_tokens + t->output_tokens;
    int turns = 1;
    while (auto next = g.next_turn(s)) {
      CHECK(next->input_tokens > context);
      CHECK(next->content.stream_id == t->content.stream_id);
      context = next->input_tokens + next->output_tokens;
      ++turns;
    }
    CHECK(turns <= traffic::ChatModel::kMaxTurns);
    multi_turn += turns > 1;
  }
  // Turns = 1 + geometric(mean 2): P(one turn) = 1/3, so ~2/3 of conversations continue.
  CHECK(multi_turn > 110);
  CHECK(multi_turn < 160);
}

TEST_CASE("trace files are read strictly, errors name the file and line") {
  SUBCASE("a valid trace") {
    auto t = traffic::parse_trace(
        "{\"arrival_s\": 0, \"input_tokens\": 100, \"output_tokens\": 10}\n"
        "\n"
        "{\"arrival_s\": 1.5, \"input_tokens\": 200, \"output_tokens\": 20, \"session_id\": \"a\"}\n"
        "{\"arrival_s\": 1.5, \"input_tokens\": 300, \"output_tokens\": 5, \"prefix_id\": \"sys\", \"prefix_tokens\": "
        "64}",
        "t.jsonl");
    REQUIRE(t.entries.size() == 3);
    CHECK(t.entries[1].line == 3);
    CHECK(t.entries[1].session_id == "a");
    CHECK(t.entries[2].prefix_tokens == 64);
  }
  SUBCASE("errors") {
    CHECK(trace_error("{\"arrival_s\": 0, \"input_tokens\": 1, \"output_tokens\": 1, \"isl\": 5}") ==
          "t.jsonl:1: /isl: unknown key");
    CHECK(trace_error("{\"arrival_s\": 0, \"input_tokens\": 1, \"output_tokens\": 1}\n{\"arrival_s\": 1, "
                      "\"output_tokens\": 1}") == "t.jsonl:2: /input_tokens: missing required field");
    CHECK(trace_error("{\"arrival_s\": 0, \"input_tokens\": 0, \"output_tokens\": 1}") ==
          "t.jsonl:1: /input_tokens: must be positive");
    CHECK(trace_error("{\"arrival_s\": 0, \"input_tokens\": 2.5, \"output_tokens\": 1}") ==
          "t.jsonl:1: /input_tokens: expected an integer");
    CHECK(trace_error("{\"arrival_s\": 5, \"input_tokens\": 1, \"output_tokens\": 1}\n{\"arrival_s\": 4, "
                      "\"input_tokens\": 1, \"output_tokens\": 1}")
              .starts_with("t.jsonl:2: /arrival_s: goes back in time (line 1"));
    CHECK(trace_error("{\"arrival_s\": 0, \"input_tokens\": 10, \"output_tokens\": 1, \"prefix_id\": \"x\"}") ==
          "t.jsonl:1: /prefix_tokens: prefix_id and prefix_tokens come together");
    CHECK(trace_error("{\"arrival_s\": 0, \"input_tokens\": 10, \"output_tokens\": 1, \"prefix_id\": \"x\", "
                      "\"prefix_tokens\": 11}") == "t.jsonl:1: /prefix_tokens: must not exceed input_tokens");
    CHECK(trace_error("{\"arrival_s\": 0, \"input_tokens\": 10,").starts_with("t.jsonl:1"));
    CHECK(trace_error("[1, 2]").starts_with("t.jsonl:1: /: expected an object"));
    CHECK(trace_error("\n\n") == "t.jsonl: /: the trace holds no request");
  }
  SUBCASE("a missing file") { CHECK_THROWS_AS(traffic::load_trace("/nonexistent/trace.jsonl"), data::LoadError); }
}

TEST_CASE("trace sessions map to one content stream, so resent prefixes can hit") {
  auto t = traffic::parse_trace(
      "{\"arrival_s\": 0, \"input_tokens\": 100, \"output_tokens\": 10, \"session_id\": \"a\"}\n"
      "{\"arrival_s\": 1, \"input_tokens\": 150, \"output_tokens\": 10, \"session_id\": \"a\"}\n"
      "{\"arrival_s\": 2, \"input_tokens\": 150, \"output_tokens\": 10}",
      "t.jsonl");
  WorkloadGenerator g(WorkloadParams{WorkloadKind::kTrace, 1, 1, 131072, &t}, 1);
  traffic::Session s1, s2, s3, s4;
  auto a = g.start_session(s1), b = g.start_session(s2), c = g.start_session(s3);
  REQUIRE((a && b && c));
  CHECK(a->content.stream_id == b->content.stream_id);
  CHECK(a->content.stream_id != c->content.stream_id);
  CHECK(*b->trace_arrival_s == 1.0);
  CHECK_FALSE(g.start_session(s4));
}
