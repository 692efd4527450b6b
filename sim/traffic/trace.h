// Trace replay input: one JSON object per line (JSONL), read strictly.
//
//   {"arrival_s": 0.0,  "input_tokens": 1200, "output_tokens": 300}
//   {"arrival_s": 1.25, "input_tokens": 5200, "output_tokens": 200, "session_id": "task-7"}
//   {"arrival_s": 2.0,  "input_tokens": 900,  "output_tokens": 80,
//    "prefix_id": "system-a", "prefix_tokens": 512}
//
// Keys (all others are errors):
//   arrival_s      required, seconds from the trace start, >= 0, non-decreasing down the file
//   input_tokens   required, integer >= 1: prompt length
//   output_tokens  required, integer >= 1: tokens generated (the client ignores EOS)
//   session_id     optional string: the prompt is a prefix of this session's token stream, so a
//                  later turn that resends the history hits the prefix cache
//   prefix_id      optional string, with prefix_tokens: the first prefix_tokens tokens are shared
//   prefix_tokens  with every request naming the same prefix_id (a system prompt); <= input_tokens
// Blank lines are skipped. Errors name the file and line: `t.jsonl:3: /input_tokens: must be positive`.
//
// load_trace also reads three public trace formats, recognised from the file's content
// (sim/traffic/trace_import.h says how each maps onto the entries below):
//   Mooncake (JSONL: timestamp, input_length, output_length, hash_ids),
//   Azure LLM inference traces (CSV: TIMESTAMP,ContextTokens,GeneratedTokens),
//   AgentX / kv-cache-tester agentic-coding conversations (JSON or JSONL: {"requests": [...]}).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace tycoon::traffic {

// The latest arrival a trace may hold, in seconds from its start (about 31.7 years): far beyond
// any real trace, and small enough that its nanoseconds fit the simulation clock and an error
// message prints it in a few digits.
inline constexpr double kMaxTraceArrivalS = 1e9;

// Why `arrival_s` cannot be an arrival (empty when it can): above kMaxTraceArrivalS.
std::string trace_arrival_problem(double arrival_s);

struct TraceEntry {
  double arrival_s = 0;
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::string session_id;  // empty: a request of its own
  std::string prefix_id;   // empty: no shared prefix
  std::int64_t prefix_tokens = 0;
  // Imported traces with block hashes (Mooncake hash_ids, kv-cache-tester hash_ids): block k
  // covers prompt tokens [k·block_tokens, (k+1)·block_tokens); two prompts whose block k carries
  // the same id hold identical tokens up to the end of that block. Ids are already scoped (an
  // AgentX conversation's ids are salted with the conversation so no other one can hit them).
  std::vector<std::uint64_t> block_ids;
  std::int64_t block_tokens = 0;
  int line = 0;
};

struct Trace {
  std::string file;
  std::string format = "tycoon";    // tycoon, mooncake, azure, agentx
  std::vector<TraceEntry> entries;  // in file order (= arrival order)
};

// Throws data::LoadError naming `file:line` on the first bad line, or the file when it is
// unreadable or holds no request. The file is read by core::read_input_file (a regular file of
// at most core::kTraceInput's size); a UTF-8 byte order mark at its start is skipped.
Trace load_trace(const std::filesystem::path& path);
Trace parse_trace(std::string_view text, const std::string& file);

// A stable 64-bit id of a string (FNV-1a, then mixed): the same on every platform.
std::uint64_t string_id(std::string_view s);

}  // namespace tycoon::traffic
