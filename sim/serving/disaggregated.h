// Disaggregated prefill/decode serving: a prefill pool runs each prompt (chunked, as in the
// aggregated scheduler), the request's KV cache crosses a link to a decode pool, and the decode
// pool streams every output token. Modelled after NVIDIA Dynamo and vLLM's disaggregated prefill
// (docs.nvidia.com/dynamo, "Disaggregated Serving": "Dynamo routes each request through prefill
// first, transfers the KV cache to the decode worker, then streams the response from decode";
// docs.vllm.ai features/disagg_prefill: two instances, the prefill one runs the prompt and the
// decode one loads its KV), and DistServe (OSDI'24) / Splitwise for pools of their own chips
// and parallelism.
//
// It is no simulation of its own: the serving kernel (simulation.h) runs it as two pools with a
// KV transfer between them, with the same clients, front end, admission, timeouts, fast path and
// errors as an aggregated deployment. This file holds what the split adds: the link, the
// hand-off from the prefill pool to the decode pool and its statistics.
//
// One request's path, every step an event at integer nanoseconds:
//   arrival -> the API server's front end (as aggregated: the engine card's per-request latency
//   and tokenization lane; none offline) -> prefill replica (router: the config's policy over the
//   prefill pool; FIFO queue, chunked prefill; the token its last chunk samples is discarded, as
//   vLLM's proxy does with max_tokens=1) -> decode replica chosen (least outstanding: running +
//   waiting + handed-off requests bound to it, lowest index on ties) -> KV blocks for the prompt
//   reserved there (a FIFO per decode replica waits until they are free) -> transfer over the
//   link (per-GPU shards in parallel: latency + max(prefill GPU's shard, decode GPU's shard) /
//   bandwidth; a link carries one transfer at a time per prefill replica's sender and per decode
//   replica's receiver) -> the decode replica admits it between steps (max_num_seqs permitting),
//   its first step computes the last prompt token and streams the first output token.
// So TTFT = front end + queue + prefill + KV wait + transfer + first decode step, and TPOT counts
// decode steps only: the published systems' definition (the client's first token comes from the
// decode worker).
//
// Simplifications (stated, not hidden): the prefill replica frees the prompt's blocks when its
// last chunk ends rather than when the transfer completes (transfers take milliseconds; the
// prefill pool's KV is rarely its bound); a queue timeout applies while a request waits for a
// replica to start it (in the prefill queue, or re-queued on the decode side after a
// preemption), not while it waits for decode KV or crosses the link.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "sim/core/time.h"
#include "sim/data/accelerator.h"
#include "sim/data/kv_link.h"
#include "sim/serving/request.h"
#include "sim/serving/serving_sim.h"
#include "sim/serving/simulation.h"

namespace tycoon::serving {

// The link of `kind` between chips `prefill` and `decode`: its latency from `links`, its per-GPU
// bandwidth from there or from the chip cards (the slower chip bounds it). Throws
// core::InputError naming the reason (no such link in the file, a chip card without the
// figure, NVLink between different chips).
KvLink resolve_kv_link(KvLinkKind kind, const data::Accelerator& prefill, const data::Accelerator& decode,
                       const data::KvLinkCatalog& links);

// Throws core::InputError when `link` cannot join the two pools: NVLink reaches only GPUs of
// one scale-up domain, so both pools must be the same chip and fit in one domain together
// (`prefill_replicas` x GPUs per prefill replica + `decode_replicas` x GPUs per decode replica).
// The one reach rule the simulation, sweeps and the game's deploy command apply.
void check_kv_link_reach(const perf::Deployment& prefill, int prefill_replicas, const perf::Deployment& decode,
                         int decode_replicas, const KvLink& link);

// Seconds to move the KV of a request with `prompt_tokens` tokens: latency + the larger of the
// sender's and the receiver's per-GPU shard over the per-GPU bandwidth (each GPU moves its shard
// in parallel). Shards from each pool's memory plan: growing KV per token + fixed per-sequence
// state.
double kv_transfer_s(std::int64_t prompt_tokens, double prefill_bytes_per_token_per_gpu,
                     double prefill_fixed_bytes_per_gpu, double decode_bytes_per_token_per_gpu,
                     double decode_fixed_bytes_per_gpu, const KvLink& link);

// A disaggregated deployment runs in the one serving kernel (`config.disaggregated` set).
using DisaggregatedSimulation = Simulation;

// The kernel's state for the requests between the pools (Simulation::hand_off ...): per
// request, per decode replica, per link end, and the sums its statistics come from.
struct KvHandoffs {
  struct Handoff {
    std::int64_t output_tokens = 0;  // the request's own (the prefill pool runs it with 1)
    std::int32_t prefill_replica = -1;
    std::int32_t decode_replica = -1;  // -1: still before or in the prefill pool
    core::Time prefill_done_at{}, reserved_at{}, transfer_start_at{}, transfer_done_at{};
  };
  std::vector<Handoff> handoffs;                // per request
  std::vector<std::deque<RequestId>> kv_queue;  // per decode replica: waiting for KV blocks
  std::vector<std::deque<RequestId>> landed;    // per decode replica: KV landed, not yet admitted
  std::vector<std::int64_t> bound;              // per decode replica: handed-off requests not yet admitted
  std::vector<core::Time> sender_free_at;       // per prefill replica
  std::vector<core::Time> receiver_free_at;     // per decode replica

  std::int64_t num_transfers = 0;
  double kv_bytes = 0, transfer_s_sum = 0, link_wait_s_sum = 0, kv_wait_s_sum = 0;
  std::int64_t num_ttft_parts = 0;  // counted completed requests whose TTFT parts are summed below
  double ttft_prefill_s_sum = 0, ttft_kv_wait_s_sum = 0, ttft_link_wait_s_sum = 0, ttft_transfer_s_sum = 0,
         ttft_first_step_s_sum = 0;

  // A request was admitted (ids in order).
  void add(const Request& r) { handoffs.emplace_back().output_tokens = r.output_tokens; }
  // 0 (prefill) until the request is handed off, then 1 (decode).
  std::uint8_t pool_of(RequestId id) const { return handoffs[id].decode_replica >= 0 ? 1 : 0; }
  // An ended request keeps its own output length, wherever it ended.
  void restore_output(Request& r, RequestId id) const { r.output_tokens = handoffs[id].output_tokens; }
  // Adds a counted completed request's TTFT, split into its parts.
  void add_ttft_parts(const Request& r, RequestId id);
};

}  // namespace tycoon::serving
