// A request inside the serving simulation: its shape, where it is, and how far it got. Requests
// live in one table indexed by RequestId (never reused within a simulation).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "sim/core/time.h"
#include "sim/serving/kv_cache.h"
#include "sim/traffic/workload.h"

namespace tycoon::serving {

using RequestId = std::uint32_t;

// Every request ends in exactly one terminal state.
enum class RequestState : std::uint8_t { kWaiting, kRunning, kCompleted, kRejected, kTimedOut, kFailed };
inline constexpr std::array<std::string_view, 6> kRequestStateNames = {"waiting",  "running",   "completed",
                                                                       "rejected", "timed_out", "failed"};

inline bool is_terminal(RequestState s) {
  switch (s) {
    case RequestState::kWaiting:
    case RequestState::kRunning:
      return false;
    case RequestState::kCompleted:
    case RequestState::kRejected:
    case RequestState::kTimedOut:
    case RequestState::kFailed:
      return true;
  }
  return true;
}

struct Request {
  // Shape (from the workload).
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  traffic::Content content;
  std::uint32_t session = 0;
  std::int32_t replica = -1;
  RequestState state = RequestState::kWaiting;
  bool counted = false;  // arrived after the warmup: its latencies enter the metrics
  bool ended = false;    // its terminal state was recorded (exactly once)

  // Progress. Tokens known = prompt + generated; tokens whose KV is computed lag by one while
  // decoding (the last sampled token is fed in the next step).
  std::int64_t num_computed = 0;
  std::int64_t num_output = 0;
  std::int64_t num_cached_tokens = -1;  // prefix-cache hit at the first admission (-1: not yet)
  std::int32_t num_hashed_blocks = 0;   // leading blocks whose chain hash is registered
  std::uint64_t last_hash = kRootHash;  // chain hash of block num_hashed_blocks - 1
  std::int32_t num_preemptions = 0;
  std::int32_t reserved_growth_blocks = 0;  // guaranteed-no-evict: blocks held back for its future
  std::uint64_t scheduled_step = 0;         // the replica step that last scheduled it
  std::vector<BlockId> blocks;              // block table (growing KV), in token order

  core::Time arrived_at{};
  core::Time first_token_at{};
  core::Time last_token_at{};
  core::Time finished_at{};

  std::int64_t num_tokens() const { return input_tokens + num_output; }
  // Decoding: all known tokens but the last are in the KV cache.
  bool decoding() const { return num_output > 0 && num_computed + 1 == num_tokens(); }
};

}  // namespace tycoon::serving
