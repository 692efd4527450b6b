// One engine replica: a vLLM-like continuous-batching scheduler over a paged KV cache with
// prefix caching, timed by the performance model.
//
// Each step: (1) running decodes in admission order, (2) running prompts that are part way
// through a chunked prefill, (3) waiting requests in FIFO order (preempted ones first), while
// the token budget (max_num_batched_tokens) and max_num_seqs allow. When a running request
// needs a KV block and none is free, the newest running request not yet in this step is
// preempted (its blocks freed, its progress recomputed later — vLLM's recompute mode). Waiting
// requests never preempt running ones: admission stops at the first that does not fit. Under
// guaranteed-no-evict admission (TensorRT-LLM) a request starts only when its whole lifetime
// fits; the blocks it will grow into are reserved, and preemption never happens.
#pragma once

#include <cstdint>
#include <deque>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "sim/core/rng.h"
#include "sim/core/time.h"
#include "sim/perf/calibration_profile.h"
#include "sim/perf/deployment.h"
#include "sim/perf/iteration_cost.h"
#include "sim/serving/kv_cache.h"
#include "sim/serving/request.h"
#include "sim/serving/serving_metrics.h"
#include "sim/serving/spec_decode.h"

namespace tycoon::serving {

struct ReplicaParams {
  std::int32_t num_blocks = 1;
  std::int32_t page_tokens = 16;
  std::int32_t fixed_blocks_per_seq = 0;  // sliding-window caps and recurrent states, in blocks
  std::int64_t max_num_batched_tokens = 8192;
  std::int32_t max_num_seqs = 256;
  bool chunked_prefill = true;
  bool prefix_caching = true;
  int num_draft_tokens = 0;          // speculative decoding: drafts verified per decode step
  bool guaranteed_no_evict = false;  // reserve each request's whole lifetime at admission
  bool fast_forward_decode = true;   // allow fast_forward() (SchedulerConfig::fast_forward_decode)
  // Batch waiting (SchedulerConfig::batch_wait_iters / batch_wait_tokens_ratio): 0 and 0 = off.
  int batch_wait_iters = 0;
  double batch_wait_tokens_ratio = 0;
  // Receive interval (SchedulerConfig::recv_interval): 0 or 1 = every step takes new requests.
  int recv_interval = 0;
  // Asynchronous scheduling (SchedulerConfig::async_scheduling): arrivals during a step start a
  // step later (promote_held()).
  bool async_scheduling = false;
};

class Replica {
 public:
  Replica(const ReplicaParams& params, const perf::Deployment& deployment, const perf::CalibrationProfile& cal);

  bool busy() const { return busy_; }
  std::int64_t num_waiting() const { return num_waiting_; }
  std::int64_t num_running() const { return static_cast<std::int64_t>(running_.size()); }
  std::int64_t num_outstanding() const { return num_waiting_ + num_running(); }
  const KvCache& kv() const { return kv_; }
  const ReplicaParams& params() const { return p_; }

  // Blocks a request needs for its whole life (prompt + output + draft lookahead) and its
  // fixed state: more than the cache holds means it can never run here.
  std::int64_t blocks_for_lifetime(const Request& r) const;

  // A new request joins the waiting queue.
  void enqueue(RequestId id, Request& r);
  // A waiting request left the queue (timed out); the queue drops it lazily.
  void forget_waiting() { --num_waiting_; }

  // Leading prompt blocks of `r` cached here (for prefix-affinity routing).
  std::int64_t cached_prefix_blocks(const Request& r) const;

  // Forms the next batch and returns its duration, or nullopt when there is nothing to run.
  std::optional<core::Duration> start_iteration(std::vector<Request>& requests, ServingMetrics& metrics);
  // Applies the step that just ended at `now`: tokens stream out, KV blocks fill and are
  // hashed, finished requests free their blocks and are appended to `finished`.
  void finish_iteration(core::Time now, std::vector<Request>& requests, core::RngStream& acceptance,
                        ServingMetrics& metrics, std::vector<RequestId>& finished);

  // Releases everything a request holds (blocks, reservation); for completion.
  void release(Request& r);

  // Disaggregated serving (sim/serving/disaggregated.h), decode side. A request whose prompt ran
  // on a prefill replica: reserve_transferred() allocates the blocks its prompt's KV lands in
  // (and its fixed state; under guaranteed-no-evict its whole lifetime) before the transfer
  // starts, as NIXL-based decode workers do; false, with nothing changed, when they are not free
  // now. admit_transferred() runs once the KV landed and the replica is between steps: the
  // request joins the running set with all prompt tokens but the last in its cache, so its first
  // step computes that token's logits and samples the first output token (vLLM recomputes the
  // last prompt token of a full external hit the same way).
  bool reserve_transferred(Request& r);
  void admit_transferred(RequestId id, Request& r);

  // The decode fast path. Call right after start_iteration() formed a step that ends at
  // `step_end_at`, with `horizon_at` the time of the simulation's next event (any other replica's,
  // any arrival or timeout that may act). Applies, in one go, the steps that the step-by-step
  // path would run back to back with nothing else happening in between, and returns the end of
  // the step then in flight (`step_end_at` when it applied none). Afterwards requests, KV cache,
  // metrics and this replica are exactly as if each step had gone through finish_iteration() and
  // start_iteration() at its end — tokens, ITL gaps, blocks allocated and hashed in the same
  // order, on_iteration() per step with the same cost bits (perf::DecodeStepModel).
  //
  // A run holds while every step is decode-only with the same sequences: it stops before the
  // end of a step that is at or after `horizon_at`, that completes a request, whose next step
  // needs more new KV blocks than are available (preemption), or when a waiting request could be
  // admitted. It does not start with prefills or unscheduled running requests, with a chunked /
  // sparse / compressed attention pattern, or while a sequence's context is inside a sliding
  // window (keys not yet constant). Cost: O(batch) per run plus O(1) per step, plus the block
  // allocations and hashes themselves.
  //
  // With speculative decoding each sequence draws its accepted tokens from `acceptance` every
  // step, in step order as finish_iteration() does, so the run costs O(batch) per step (no
  // perf model, no events); a step is applied only when no sequence completes in it
  // and the blocks its largest possible growth needs are free. A step in which a sequence may
  // complete is drawn on a copy of the stream first; if one does complete, the stream is put
  // back and the step is left to the step-by-step path, which then draws the same values.
  // At most `max_steps` steps are applied (the rest are the next events': the same bytes).
  core::Time fast_forward(core::Time step_end_at, core::Time horizon_at, std::vector<Request>& requests,
                          core::RngStream& acceptance, ServingMetrics& metrics,
                          std::int64_t max_steps = std::numeric_limits<std::int64_t>::max());

  // The same run one step at a time, for the simulation to interleave several replicas' runs in
  // time order (without speculative decoding). run_begin() checks the entry conditions for the
  // step in flight ending at `step_end_at` (false: no run; nothing changed); run_ready() says
  // whether that step's end may be applied (no completion, no preemption in the next step);
  // run_step() applies it and starts the next step; run_end_at() is the end of the step in
  // flight and run_started_at() its start; run_finish() writes the sequences' state back.
  bool run_begin(core::Time step_end_at, core::Time step_start_at, const std::vector<Request>& requests);
  bool run_ready() const;
  void run_step(std::vector<Request>& requests, ServingMetrics& metrics);
  core::Time run_end_at() const { return ff_end_; }
  core::Time run_started_at() const { return ff_start_; }
  void run_finish(std::vector<Request>& requests);
  bool speculative() const { return sampler_.has_value(); }

 private:
  struct Scheduled {
    RequestId id;
    std::int64_t num_new_tokens;
    bool decode;
  };

  std::int64_t blocks_for_tokens(std::int64_t tokens) const { return (tokens + p_.page_tokens - 1) / p_.page_tokens; }
  // Makes room for `tokens` more KV slots for running request `r`, preempting the newest
  // unscheduled running requests if needed. False when `r` cannot get them this step (it may
  // itself have been preempted).
  bool grow(RequestId id, std::vector<Request>& requests, std::int64_t tokens, ServingMetrics& metrics);
  void preempt(RequestId id, Request& r, ServingMetrics& metrics);
  // Computes chain hashes of `r`'s newly completed blocks and queues them for registration
  // (registered together at the end of the step, their table slots prefetched meanwhile).
  // Blocks of unique content are registered only when the request is preempted: no one else
  // can hit them, and after completion not even the request itself (same cache contents,
  // without a hash-table write per block).
  void hash_full_blocks(Request& r);
  void register_unique_blocks(Request& r);
  // Tries to admit the waiting queue's front; false stops admission for this step.
  bool admit_front(std::vector<Request>& requests, std::int64_t& budget);
  // Batch waiting (ReplicaParams::batch_wait_iters): whether this step, whose decodes are already
  // scheduled and leave `budget` tokens, holds every prompt back (and counts the hold).
  bool hold_prompts(const std::vector<Request>& requests, std::int64_t budget);

  ReplicaParams p_;
  const perf::Deployment* deployment_;
  const perf::CalibrationProfile* cal_;
  std::optional<AcceptanceSampler> sampler_;
  KvCache kv_;
  std::vector<RequestId> running_;  // admission order: the back is the newest
  std::deque<RequestId> waiting_;   // may hold requests that already left (lazy removal)
  std::int64_t num_waiting_ = 0;
  bool busy_ = false;
  std::uint64_t step_ = 0;
  int batch_wait_count_ = 0;  // steps in a row that held the prompts back (batch waiting)
  // Receive interval (ReplicaParams::recv_interval): arrivals the scheduler has not taken in yet,
  // oldest first (counted in num_waiting_; lazy removal as waiting_), the skip counter, what the
  // step a pass weighs ran (the last one; with async scheduling the one starting), and whether the
  // scheduler was idle since.
  std::vector<RequestId> inbox_;
  // Asynchronous scheduling: requests that arrived while the step in flight ran (held_now_) and
  // while the one before it ran, or that its receiving pass read (held_prev_), not yet
  // schedulable; they count in num_waiting_.
  std::vector<RequestId> held_now_, held_prev_;
  int recv_counter_ = 0;
  bool last_step_prefill_ = false;
  bool idle_ = true;
  // Moves the inbox into the waiting queue (scheduling one step ahead: into held_prev_, for the
  // next step) when this scheduling pass takes new requests in.
  void receive(const std::vector<Request>& requests);
  // Asynchronous scheduling: makes the requests the step about to start was formed with schedulable.
  void promote_held(const std::vector<Request>& requests);
  // Drops the requests that timed out while waiting from the front of the waiting queue, and says
  // whether the replica then has nothing running or waiting (nothing to form a step from).
  bool drop_timed_out_front(const std::vector<Request>& requests);

  // Reused every step (no allocation once warm).
  std::vector<perf::PrefillChunk> prefills_;
  std::vector<std::int64_t> decode_contexts_;
  std::vector<Scheduled> scheduled_;
  std::vector<BlockId> hit_blocks_;
  std::vector<std::pair<BlockId, std::uint64_t>> pending_hashes_;
  mutable std::vector<std::uint64_t> scratch_hashes_;

  core::Time fast_forward_spec(core::Time step_end_at, core::Time horizon_at, std::vector<Request>& requests,
                               core::RngStream& acceptance, ServingMetrics& metrics, std::int64_t max_steps);
  // Fast path: step models by batch size (built on first use), and per-run scratch.
  const perf::DecodeStepModel& decode_model(std::size_t num_decode);
  std::vector<std::optional<perf::DecodeStepModel>> decode_models_;
  perf::DecodeStepTimes ff_times_;
  std::vector<std::int64_t> ff_base_computed_;  // num_computed at the run's first step
  std::vector<std::int32_t> ff_bucket_start_;   // sequences whose last block fills at step s, s mod page
  std::vector<std::int32_t> ff_bucket_items_;
  std::vector<double> ff_keys_, ff_index_;
  // The run in progress (run_begin .. run_finish).
  const perf::DecodeStepModel* ff_model_ = nullptr;
  std::int64_t ff_step_ = 0;   // the step in flight, 1 for the first
  bool ff_hashing_ = false;    // some sequence's filled blocks get hashed
  std::size_t ff_bucket_ = 0;  // ff_step_ mod page
  core::Time ff_end_{}, ff_start_{};
  std::int64_t ff_sum_context_ = 0, ff_max_context_ = 0, ff_min_remaining_ = 0, ff_num_counted_ = 0;
  std::vector<std::int32_t> scratch_fill_;
  std::vector<std::int64_t> ff_draws_;            // one step's accepted tokens per sequence
  std::optional<core::RngStream> ff_rng_backup_;  // the acceptance stream before a step that may complete
};

}  // namespace tycoon::serving
