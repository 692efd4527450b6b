// Disaggregated prefill/decode serving: a prefill pool runs each prompt (chunked, as in the
// aggregated scheduler), the request's KV cache crosses a link to a decode pool, and the decode
// pool streams every output token. Modelled after NVIDIA Dynamo and vLLM's disaggregated prefill
// (docs.nvidia.com/dynamo, "Disaggregated Serving": "Dynamo routes each request through prefill
// first, transfers the KV cache to the decode worker, then streams the response from decode";
// docs.vllm.ai features/disagg_prefill: two instances, the prefill one runs the prompt and the
// decode one loads its KV), and DistServe (OSDI'24) / Splitwise for pools of their own chips
// and parallelism.
//
// One request's path, every step an event at integer nanoseconds:
//   arrival -> prefill replica (router: the config's policy over the prefill pool; FIFO queue,
//   chunked prefill; the token its last chunk samples is discarded, as vLLM's proxy does with
//   max_tokens=1) -> decode replica chosen (least outstanding: running + waiting + handed-off
//   requests bound to it, lowest index on ties) -> KV blocks for the prompt reserved there (a
//   FIFO per decode replica waits until they are free) -> transfer over the link (per-GPU
//   shards in parallel: latency + max(prefill GPU's shard, decode GPU's shard) / bandwidth; a
//   link carries one transfer at a time per prefill replica's sender and per decode replica's
//   receiver) -> the decode replica admits it between steps (max_num_seqs permitting), its first
//   step computes the last prompt token and streams the first output token.
// So TTFT = queue + prefill + KV wait + transfer + first decode step, and TPOT counts decode
// steps only: the published systems' definition (the client's first token comes from the
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
#include <memory>
#include <optional>
#include <variant>
#include <vector>

#include "sim/core/event_queue.h"
#include "sim/core/rng.h"
#include "sim/data/accelerator.h"
#include "sim/data/kv_link.h"
#include "sim/serving/clients.h"
#include "sim/serving/replica.h"
#include "sim/serving/router.h"
#include "sim/serving/serving_metrics.h"
#include "sim/serving/serving_sim.h"
#include "sim/traffic/arrivals.h"
#include "sim/traffic/trace.h"
#include "sim/traffic/workload.h"

namespace tycoon::serving {

// The link of `kind` between chips `prefill` and `decode`: its latency from `links`, its per-GPU
// bandwidth from there or from the chip cards (the slower chip bounds it). Throws
// std::invalid_argument naming the reason (no such link in the file, a chip card without the
// figure, NVLink between different chips).
KvLink resolve_kv_link(KvLinkKind kind, const data::Accelerator& prefill, const data::Accelerator& decode,
                       const data::KvLinkCatalog& links);

// Throws std::invalid_argument when `link` cannot join the two pools: NVLink reaches only GPUs of
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

class DisaggregatedSimulation : private ClientHost {
 public:
  // `config.disaggregated` must be set. Validates both pools (std::invalid_argument).
  DisaggregatedSimulation(const ServingConfig& config, const perf::CalibrationProfile& prefill_calibration);

  ServingSummary run();
  void start();
  bool advance(std::int64_t max_events);
  ServingSummary finish();

  const std::vector<Request>& requests() const { return requests_; }
  // Blocks referenced or reserved over both pools (0 when nothing leaked).
  std::int64_t kv_blocks_in_use() const;
  bool kv_invariants_hold() const;
  std::int64_t num_terminal_transitions() const { return num_terminal_transitions_; }
  // How far it has got (between advance() calls).
  ServingProgress progress() const;
  // Seconds one transfer of a `prompt_tokens`-token prompt takes on this deployment's link.
  double transfer_s(std::int64_t prompt_tokens) const;

 private:
  enum class Pool : std::uint8_t { kPrefill, kDecode };
  // At one instant: steps that ended, transfers that landed, timeouts, arrivals, then scheduling.
  enum class Phase : std::uint8_t { kIterationEnd, kTransferDone, kTimeout, kArrival, kSchedule };
  struct SessionStart {};
  struct UserStart {};
  struct TurnArrival {
    std::uint32_t session;
  };
  struct QueueTimeout {
    RequestId id;
  };
  struct IterationEnd {
    Pool pool;
    std::uint32_t replica;
  };
  struct Schedule {
    Pool pool;
    std::uint32_t replica;
  };
  struct TransferDone {
    RequestId id;
  };
  using Payload =
      std::variant<SessionStart, UserStart, TurnArrival, QueueTimeout, IterationEnd, Schedule, TransferDone>;

  // Where a request is between the pools.
  struct Handoff {
    std::int64_t output_tokens = 0;  // the request's own (the prefill phase runs with 1)
    std::int32_t prefill_replica = -1;
    std::int32_t decode_replica = -1;  // -1: still in the prefill pool
    core::Time prefill_done_at{}, reserved_at{}, transfer_start_at{}, transfer_done_at{};
  };
  struct PoolState {
    ReplicaParams params;
    std::int64_t kv_capacity_tokens = 0;
    double kv_bytes_per_token_per_gpu = 0;
    double fixed_bytes_per_gpu = 0;
    int gpus_per_replica = 1;
    std::vector<Replica> replicas;
    std::vector<bool> schedule_pending;
    std::vector<std::int64_t> routed;
    std::vector<std::int64_t> busy_ns;
    ServingMetrics metrics;
  };

  void setup_pool(PoolState& pool, const perf::Deployment& d, const SchedulerConfig& sc, int replicas,
                  const perf::CalibrationProfile& cal);
  PoolState& pool(Pool p) { return p == Pool::kPrefill ? prefill_ : decode_; }
  void handle(core::Time now, const Payload& p);
  void on_timeout(core::Time now, RequestId id);
  void on_iteration_end(core::Time now, Pool p, std::uint32_t replica);
  void on_schedule(core::Time now, Pool p, std::uint32_t replica);
  void on_transfer_done(core::Time now, RequestId id);

  // ClientHost: the clients the aggregated simulation uses too (clients.h) schedule arrivals here
  // and admit requests, so both simulations see the same request stream, warm-up and ramp-up.
  void schedule_session_start(core::Time at) override;
  void schedule_user_start(core::Time at) override;
  void schedule_turn(core::Time at, std::uint32_t session) override;
  void admit(core::Time now, std::uint32_t session, const traffic::Turn& turn, bool counted) override;
  void count_unrunnable(std::int64_t n) override;
  void on_warmup_end(core::Time now) override;
  void terminate(core::Time now, RequestId id, RequestState state);
  void kick(core::Time now, Pool p, std::uint32_t replica);
  core::Time next_event_at();
  // The prefill of `id` ended at `now`: pick its decode replica and queue it for KV there.
  void hand_off(core::Time now, RequestId id);
  // Starts the transfers whose KV blocks fit on decode replica `d` now, in FIFO order.
  void start_transfers(core::Time now, std::uint32_t d);
  std::int64_t decode_load(std::uint32_t d) const;

  ServingConfig config_;
  perf::CalibrationProfile prefill_cal_;
  perf::CalibrationProfile decode_cal_;
  Clients clients_;
  PoolState prefill_, decode_;
  Router router_;
  core::RngStream acceptance_rng_;
  core::EventQueue<Payload, Phase> events_;
  std::vector<Request> requests_;
  std::vector<Handoff> handoffs_;
  std::vector<RequestId> finished_;
  std::vector<std::deque<RequestId>> kv_queue_;  // per decode replica: waiting for KV blocks
  std::vector<std::deque<RequestId>> landed_;    // per decode replica: KV landed, not yet admitted
  std::vector<std::int64_t> bound_;              // per decode replica: handed-off requests not yet admitted
  std::vector<core::Time> sender_free_at_;       // per prefill replica
  std::vector<core::Time> receiver_free_at_;     // per decode replica
  core::Duration queue_timeout_{0};
  bool ran_ = false;
  bool summarised_ = false;
  core::Time last_at_ = core::kSimStart;
  std::int64_t same_instant_ = 0;

  std::int64_t num_terminal_transitions_ = 0;
  std::int64_t arrived_ = 0, completed_ = 0, rejected_ = 0, timed_out_ = 0, failed_other_ = 0;
  std::int64_t exceeding_context_ = 0;
  std::int64_t exceeding_kv_cache_ = 0;  // of exceeding_context_: within the window, not the cache
  std::int64_t input_tokens_ = 0, cached_input_tokens_ = 0, output_tokens_ = 0;
  std::int64_t num_transfers_ = 0;
  double kv_bytes_ = 0, transfer_s_sum_ = 0, link_wait_s_sum_ = 0, kv_wait_s_sum_ = 0;
  std::int64_t num_ttft_parts_ = 0;  // counted completed requests whose TTFT parts are summed below
  double ttft_prefill_s_sum_ = 0, ttft_kv_wait_s_sum_ = 0, ttft_link_wait_s_sum_ = 0, ttft_transfer_s_sum_ = 0,
         ttft_first_step_s_sum_ = 0;
  core::Time last_terminal_at_{};
};

}  // namespace tycoon::serving
