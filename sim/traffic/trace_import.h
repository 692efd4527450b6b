// Public trace formats, read into the replay's Trace (sim/traffic/trace.h). load_trace picks the
// format from the content: a CSV header `TIMESTAMP,ContextTokens,GeneratedTokens` is Azure; a JSON
// object with `arrival_s` is ours; one with `timestamp`/`input_length` is Mooncake; one with
// `requests` is an AgentX / kv-cache-tester conversation. Every error names the file, the line
// (or JSON pointer) and the field.
//
// Mooncake (kvcache-ai/Mooncake, FAST'25 traces; the same JSONL that AIPerf and Dynamo replay):
//   {"timestamp": 27482, "input_length": 6755, "output_length": 500, "hash_ids": [0, 1, 2, ...]}
//   timestamp: milliseconds since the first request (non-decreasing); hash_ids: one id per
//   512-token block of the prompt (kMooncakeBlockTokens), equal ids = equal prefix up to that
//   block, shared across requests (that sharing is what the trace records).
//
// Azure LLM inference traces (Azure/AzurePublicDataset, AzureLLMInferenceTrace_{code,conv}.csv,
// 2023 and 2024, CC-BY):
//   TIMESTAMP,ContextTokens,GeneratedTokens
//   2023-11-16 18:15:46.6805900,4808,10
//   TIMESTAMP: wall-clock date and time (fraction of a second optional, any number of digits);
//   arrivals are taken relative to the first row. No prefix information: every prompt is unique.
//
// AgentX / kv-cache-tester (callanjfox/kv-cache-tester docs/trace_replay_tester.md, the format
// InferenceX's AgentX replays, PR #1201): one conversation per JSON object (a .json file, a JSONL
// file of them, or a directory of .json files read in name order):
//   {"id": "f64a8d4c", "block_size": 64, "tool_tokens": 11899, "system_tokens": 2926,
//    "requests": [{"t": 0.0, "type": "s", "in": 25259, "out": 86, "hash_ids": [1, 2, ...]}, ...]}
//   t: seconds from the conversation's start. Each conversation's hash ids are salted with its id
//   (AgentX busts the cache of each conversation's first prefix, InferenceX issue #1632, so no
//   hit crosses conversations). Conversations all start at t = 0; their requests are merged in
//   time order (ties: file order). Sub-agent markers (`type: "subagent"`) are refused: their
//   nesting is not replayed.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "sim/traffic/trace.h"

namespace tycoon::traffic {

// Mooncake's block size: each hash id stands for 512 prompt tokens (Mooncake FAST25-release
// traces; ai-dynamo/dynamo benchmarks/data_generator/README.md, "Block Size and Hash IDs").
inline constexpr std::int64_t kMooncakeBlockTokens = 512;

// Any supported format, recognised from the text (see above). `file` names errors.
Trace parse_any_trace(std::string_view text, const std::string& file);

Trace parse_mooncake_trace(std::string_view text, const std::string& file);
Trace parse_azure_trace(std::string_view text, const std::string& file);
Trace parse_agentx_trace(std::string_view text, const std::string& file);
// Every *.json file of a directory (kv-cache-tester's traces/ layout), in name order.
Trace import_agentx_directory(const std::filesystem::path& dir);

}  // namespace tycoon::traffic
