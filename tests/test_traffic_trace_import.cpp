// Public trace formats (Mooncake, Azure LLM inference, AgentX / kv-cache-tester) read into the
// replay: lengths and times as recorded, prefix sharing from the block hashes, and strict errors
// naming the file, the line and the field. Fixtures: tests/data/traces/ (README there).
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "sim/data/json_reader.h"
#include "sim/traffic/trace_import.h"
#include "sim/traffic/workload.h"
#include "test_serving_support.h"

using namespace tycoon;
using traffic::block_content_key;

namespace {

// (A path, not `std::string(TYCOON_SOURCE_DIR) + ...`: GCC 12 at -O1 warns of a false array-bounds
// overflow in that concatenation.)
std::string fixture(const std::string& name) {
  return (std::filesystem::path(TYCOON_SOURCE_DIR) / "tests" / "data" / "traces" / name).string();
}

std::string import_error(const std::string& text, const std::string& file = "t.jsonl") {
  try {
    traffic::parse_any_trace(text, file);
  } catch (const data::LoadError& e) {
    return e.what();
  }
  return "no error";
}

traffic::Content content_of(const traffic::TraceEntry& e) {
  traffic::Content c;
  c.stream_id = traffic::string_id("own stream") ^ static_cast<std::uint64_t>(e.line + 1000 * e.input_tokens);
  c.block_ids = &e.block_ids;
  c.block_tokens = e.block_tokens;
  return c;
}

constexpr std::int64_t kPage = 16;  // vLLM's page size on the H200 recipe
constexpr double kTimeTol = 1e-6;   // seconds: the formats' timestamps are exact to the microsecond

}  // namespace

TEST_CASE("a Mooncake trace: milliseconds to seconds, 512-token blocks shared across requests") {
  auto t = traffic::load_trace(fixture("mooncake_sample.jsonl"));
  CHECK(t.format == "mooncake");
  REQUIRE(t.entries.size() == 4);
  CHECK(t.entries[1].arrival_s == doctest::Approx(0.250).epsilon(kTimeTol));
  CHECK(t.entries[3].arrival_s == doctest::Approx(1.800).epsilon(kTimeTol));
  CHECK(t.entries[0].input_tokens == 1500);
  CHECK(t.entries[2].output_tokens == 300);
  CHECK(t.entries[0].block_tokens == traffic::kMooncakeBlockTokens);
  // Requests 1 and 2 share ids 0 and 1: their first 1,024 tokens (64 pages of 16) are the same
  // pages, and page 64 (block 2 vs block 3) differs. Request 3 shares nothing.
  auto a = content_of(t.entries[0]), b = content_of(t.entries[1]), c = content_of(t.entries[2]);
  for (std::int64_t p : {0, 31, 63}) CHECK(block_content_key(a, p, kPage) == block_content_key(b, p, kPage));
  CHECK(block_content_key(a, 64, kPage) != block_content_key(b, 64, kPage));
  CHECK(block_content_key(a, 0, kPage) != block_content_key(c, 0, kPage));
  // Past the hashed blocks a page is the request's own.
  CHECK(block_content_key(c, 64, kPage) == core::hash_combine(c.stream_id, 64));
}

TEST_CASE("replaying the Mooncake sample hits the prefix cache where the hash ids repeat") {
  // Request 2 (0.25 s, after request 1's 1,500-token prefill) reuses blocks 0-1: 1,024 tokens.
  // Request 4 (1.8 s) repeats request 1's prompt: every full page but the last token's,
  // floor((1500 - 1) / 16) * 16 = 1,488 tokens. Request 3 shares nothing: 0.
  // Without the hash ids (every prompt unique) nothing would hit.
  using namespace serving_test;
  auto cfg = with_trace(gpt_oss_h200(), fixture("mooncake_sample.jsonl"));
  auto s = serving::simulate(cfg, h200_calibration());
  CHECK(s.requests_completed == 4);
  CHECK(s.cached_input_tokens == 1024 + 1488);
  CHECK(s.prefix_cache_hit_rate == doctest::Approx((1024.0 + 1488.0) / (1500 + 1100 + 700 + 1500)));
}

TEST_CASE("an Azure LLM inference trace: wall-clock times relative to the first row, no reuse") {
  auto t = traffic::load_trace(fixture("azure_sample.csv"));
  CHECK(t.format == "azure");
  REQUIRE(t.entries.size() == 3);
  CHECK(t.entries[0].arrival_s == 0);
  // 18:15:50.0 - 18:15:46.68059 = 3.31941 s; 18:16:01.25 - 18:15:46.68059 = 14.56941 s.
  CHECK(t.entries[1].arrival_s == doctest::Approx(3.31941).epsilon(kTimeTol));
  CHECK(t.entries[2].arrival_s == doctest::Approx(14.56941).epsilon(kTimeTol));
  CHECK(t.entries[0].input_tokens == 4808);
  CHECK(t.entries[1].output_tokens == 350);
  CHECK(t.entries[2].block_ids.empty());
  // A date across a month end counts whole days: 2024-02-29 23:59:59 -> 2024-03-01 00:00:01 is 2 s.
  auto leap = traffic::parse_azure_trace(
      "TIMESTAMP,ContextTokens,GeneratedTokens\n2024-02-29 23:59:59,10,1\n2024-03-01 00:00:01,10,1\n", "a.csv");
  CHECK(leap.entries[1].arrival_s == doctest::Approx(2.0).epsilon(kTimeTol));
}

TEST_CASE("an AgentX conversation trace: turns reuse their own history, never another conversation's") {
  auto t = traffic::load_trace(fixture("agentx_sample.jsonl"));
  CHECK(t.format == "agentx");
  REQUIRE(t.entries.size() == 6);
  // Merged in time order, ties in file order: a0 (0), b0 (0), b1 (1), a1 (2.5), b2 (3), a2 (6).
  const double times[] = {0, 0, 1, 2.5, 3, 6};
  const char* convs[] = {"conv-a", "conv-b", "conv-b", "conv-a", "conv-b", "conv-a"};
  for (int i = 0; i < 6; ++i) {
    CHECK(t.entries[i].arrival_s == times[i]);
    CHECK(t.entries[i].session_id == convs[i]);
  }
  CHECK(t.entries[0].block_tokens == 64);
  auto a0 = content_of(t.entries[0]), b0 = content_of(t.entries[1]), a1 = content_of(t.entries[3]);
  // Turn 2 of conv-a resends turn 1's blocks: same pages (page 3 = tokens 48-63, block 0).
  CHECK(block_content_key(a0, 3, kPage) == block_content_key(a1, 3, kPage));
  // conv-b's first turn carries the very same ids, but AgentX busts each conversation's cache.
  CHECK(block_content_key(a0, 3, kPage) != block_content_key(b0, 3, kPage));

  SUBCASE("one pretty-printed conversation per file, as kv-cache-tester stores them") {
    auto one = traffic::parse_any_trace(
        "{\n  \"id\": \"x\",\n  \"block_size\": 64,\n  \"requests\": [\n    {\"t\": 0, \"in\": 100, \"out\": 5}\n  "
        "]\n}\n",
        "x.json");
    CHECK(one.format == "agentx");
    REQUIRE(one.entries.size() == 1);
    CHECK(one.entries[0].input_tokens == 100);
  }
}

TEST_CASE("imported traces are read strictly: file, line, field and reason") {
  SUBCASE("Mooncake") {
    CHECK(import_error(R"({"timestamp": 0, "input_length": 600, "output_length": 5, "hash_ids": [1, 2, 3]})") ==
          "t.jsonl:1: /hash_ids: holds 3 block ids, more than the 2 blocks of 512 tokens that the prompt fills");
    CHECK(import_error("{\"timestamp\": 5, \"input_length\": 6, \"output_length\": 5}\n"
                       "{\"timestamp\": 4, \"input_length\": 6, \"output_length\": 5}") ==
          "t.jsonl:2: /timestamp: goes back in time (line 1 is at 5.000000 ms)");
    CHECK(import_error(R"({"timestamp": 0, "input_length": 6, "output_length": 0})") ==
          "t.jsonl:1: /output_length: must be positive");
    CHECK(import_error(R"({"timestamp": 0, "input_length": 6, "output_length": 1, "hash_ids": [-1]})") ==
          "t.jsonl:1: /hash_ids: element 0 must be a non-negative integer block id");
    CHECK(import_error(R"({"timestamp": 0, "input_length": 6, "output_length": 1, "prompt": "x"})")
              .starts_with("t.jsonl:1: /prompt:"));
  }
  SUBCASE("Azure") {
    CHECK(import_error("TIMESTAMP,ContextTokens\n2023-11-16 18:15:46,1\n", "a.csv") ==
          "a.csv:1: /: an Azure LLM inference trace starts with the header TIMESTAMP,ContextTokens,GeneratedTokens");
    CHECK(import_error("TIMESTAMP,ContextTokens,GeneratedTokens\n16/11/2023 18:15,10,1\n", "a.csv") ==
          "a.csv:2: /TIMESTAMP: must be a date and time like 2023-11-16 18:15:46.6805900, got \"16/11/2023 18:15\"");
    CHECK(import_error("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,10,0\n", "a.csv") ==
          "a.csv:2: /GeneratedTokens: must be at least 1 (the simulator serves no empty request)");
    CHECK(import_error("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,1x,3\n", "a.csv") ==
          "a.csv:2: /ContextTokens: must be a whole number of tokens, got \"1x\"");
    CHECK(import_error("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,10,3\n2023-11-16 18:15:40,10,3\n",
                       "a.csv") == "a.csv:3: /TIMESTAMP: goes back in time (line 2 is later)");
    CHECK(import_error("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,10\n", "a.csv") ==
          "a.csv:2: /: expected 3 comma-separated columns, got 2");
    CHECK(import_error("TIMESTAMP,ContextTokens,GeneratedTokens\n", "a.csv") == "a.csv: /: the trace holds no request");
  }
  SUBCASE("AgentX") {
    CHECK(import_error(
              R"({"id": "c", "block_size": 64, "requests": [{"t": 0, "type": "subagent", "in": 1, "out": 1}]})") ==
          "t.jsonl:1: /requests/0/type: sub-agent markers are not replayed (use a trace without sub-agents, e.g. "
          "AgentX v0.2's)");
    CHECK(
        import_error(
            R"({"id": "c", "block_size": 64, "requests": [{"t": 3, "in": 1, "out": 1}, {"t": 2, "in": 1, "out": 1}]})") ==
        "t.jsonl:1: /requests/1/t: goes back in time within the conversation");
    CHECK(import_error(
              R"({"id": "c", "block_size": 64, "requests": [{"t": 0, "in": 100, "out": 1, "hash_ids": [1, 2, 3]}]})") ==
          "t.jsonl:1: /requests/0/hash_ids: holds 3 block ids, more than the 2 blocks of 64 tokens that the prompt "
          "fills");
    CHECK(import_error(R"({"id": "c", "requests": [{"t": 0, "in": 1, "out": 1}]})") ==
          "t.jsonl:1: /block_size: missing required field");
  }
  SUBCASE("neither") {
    CHECK(import_error("hello\n") ==
          "t.jsonl:1: /: not a trace: expected a JSON object per line (ours, Mooncake, AgentX) or an Azure CSV header");
  }
}
