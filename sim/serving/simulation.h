// The serving simulation: one event kernel for every deployment. It drives the clients (request
// arrivals, sessions), the API server's front end, admission, queue timeouts, the replicas'
// steps and termination, and collects metrics. An aggregated deployment is one pool of replicas;
// a disaggregated one is two pools, prefill and decode, with a KV transfer between them (what
// the split adds is in disaggregated.h/.cpp: the hand-off, the link and its statistics).
// `simulate()` (serving_sim.h) runs one; tests use this class directly to inspect the end state
// (every request terminal, no KV block held).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <variant>
#include <vector>

#include "sim/core/event_queue.h"
#include "sim/core/rng.h"
#include "sim/serving/clients.h"
#include "sim/serving/replica.h"
#include "sim/serving/router.h"
#include "sim/serving/serving_metrics.h"
#include "sim/serving/serving_sim.h"
#include "sim/traffic/arrivals.h"
#include "sim/traffic/trace.h"
#include "sim/traffic/workload.h"

namespace tycoon::serving {

struct KvHandoffs;  // disaggregated.h: the requests between the pools and the link

class Simulation : private ClientHost {
 public:
  // Validates the configuration, both pools' when `config.disaggregated` is set (core::InputError
  // with the reason; data::LoadError for a bad trace file).
  Simulation(const ServingConfig& config, const perf::CalibrationProfile& calibration);
  ~Simulation() override;
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  // Runs until every request has ended; call once. Equivalent to start(), advance() until it
  // returns true, finish().
  ServingSummary run();
  // The resumable form, for front ends that must not block a frame: start() schedules the first
  // arrivals; advance(n) handles at most `n` events and returns true once none is left; finish()
  // checks that every request ended and summarises. The same events run in the same order however
  // the work is sliced, so the summary is the same bytes as run()'s.
  void start();
  bool advance(std::int64_t max_events);
  ServingSummary finish();

  // Inspection after run().
  const std::vector<Request>& requests() const { return requests_; }
  // Blocks referenced or reserved, over all replicas of every pool (0 when nothing leaked).
  std::int64_t kv_blocks_in_use() const;
  // Reference counts equal the blocks in live block tables, and each cache is consistent.
  bool kv_invariants_hold() const;
  std::int64_t num_terminal_transitions() const { return num_terminal_transitions_; }
  // How far it has got (between advance() calls).
  ServingProgress progress() const;
  // The first pool's replica settings (the only pool's when aggregated, the prefill pool's when split).
  const ReplicaParams& replica_params() const { return pools_.front().params; }
  // A run whose clock stands still for more than `n` events throws core::InputError ("the
  // workload makes no progress"); the default is far beyond any real instant (tests lower it to
  // reach the fault quickly). Call before start().
  static constexpr std::int64_t kMaxEventsAtOneInstant = 50'000'000;
  void limit_events_at_one_instant(std::int64_t n) { max_events_at_one_instant_ = n; }
  // One event applies at most `n` decode steps of the fast path (the rest are the next events':
  // the same bytes in smaller pieces), so a sliced run's event has a bounded cost; default: no
  // bound. Call before start().
  void limit_steps_per_event(std::int64_t n) { max_steps_per_event_ = std::max<std::int64_t>(n, 1); }
  // Disaggregated only: seconds one transfer of a `prompt_tokens`-token prompt takes on the link.
  double transfer_s(std::int64_t prompt_tokens) const;

 private:
  // Pools: requests enter the first; the last streams their tokens. One pool when aggregated;
  // kPrefillPool and kDecodePool when disaggregated.
  static constexpr std::uint8_t kPrefillPool = 0;
  static constexpr std::uint8_t kDecodePool = 1;
  // Event kinds, in the order they run at one instant: work that ended first (steps, then KV
  // transfers), then timeouts, then arrivals, then the replicas pick their next batch (seeing
  // everything that arrived).
  enum class Phase : std::uint8_t { kIterationEnd, kTransferDone, kTimeout, kArrival, kSchedule };
  struct SessionStart {};  // open loop or trace: a new session arrives
  struct UserStart {};     // closed loop: a user starts a new session
  struct TurnArrival {
    std::uint32_t session;
  };
  struct QueueTimeout {
    RequestId id;
  };
  struct FrontendDone {  // the request leaves the API server (tokenized) for the engine
    RequestId id;
  };
  struct IterationEnd {
    std::uint8_t pool;
    std::uint32_t replica;
  };
  struct Schedule {
    std::uint8_t pool;
    std::uint32_t replica;
  };
  struct TransferDone {  // a request's KV landed on its decode replica
    RequestId id;
  };
  using Payload = std::variant<SessionStart, UserStart, TurnArrival, QueueTimeout, FrontendDone, IterationEnd, Schedule,
                               TransferDone>;

  // Replicas of one deployment (chip, parallelism, recipe) and what the kernel tracks per pool.
  struct Pool {
    perf::CalibrationProfile calibration;
    ReplicaParams params;
    std::int64_t kv_capacity_tokens = 0;
    double kv_bytes_per_token_per_gpu = 0;  // the memory plan's, for KV transfers
    double fixed_bytes_per_gpu = 0;         // per-sequence state, likewise
    int gpus_per_replica = 1;
    std::vector<Replica> replicas;
    std::vector<bool> schedule_pending;
    std::vector<std::int64_t> routed;
    std::vector<std::int64_t> busy_ns;  // time each replica spent in steps
    std::vector<core::Time> run_from;   // run_replicas: when each replica's run began
    ServingMetrics metrics;
  };

  // Validates `d` with `sc` and adds a pool of `replicas` of it.
  void add_pool(const perf::Deployment& d, const SchedulerConfig& sc, int replicas,
                const perf::CalibrationProfile& calibration);
  // Which pool request `id` is bound to now.
  std::uint8_t pool_of(RequestId id) const;
  // Whether the request's life fits every pool's KV cache: the part each pool runs.
  bool fits_kv(Request& r) const;

  void handle(core::Time now, const Payload& p);
  void on_timeout(core::Time now, RequestId id);
  void on_iteration_end(core::Time now, std::uint8_t pool, std::uint32_t replica);
  void on_schedule(core::Time now, std::uint8_t pool, std::uint32_t replica);

  // ClientHost: the shared clients (clients.h) schedule arrivals here and admit requests.
  void schedule_session_start(core::Time at) override;
  void schedule_user_start(core::Time at) override;
  void schedule_turn(core::Time at, std::uint32_t session) override;
  void admit(core::Time now, std::uint32_t session, const traffic::Turn& turn, bool counted) override;
  void count_unrunnable(std::int64_t n) override;
  void on_warmup_end(core::Time now) override;
  // Routes a request that left the front end to a replica's queue in the first pool.
  void dispatch(core::Time now, RequestId id);
  void terminate(core::Time now, RequestId id, RequestState state);
  void kick(core::Time now, std::uint8_t pool, std::uint32_t replica);
  // When the next event that may act happens (kNever when none): first drops queue timeouts at
  // the front that can no longer act (their request streamed a token or ended — both for good).
  core::Time next_event_at();
  // Several replicas' decode fast paths of one pool interleaved in time order (Replica::run_begin
  // ...): `first` just started a step ending at `first_end`; other replicas of the pool whose
  // next event is a step end join while each could run on its own. Pushes each one's
  // IterationEnd at the end.
  void run_replicas(core::Time now, std::uint8_t pool, std::uint32_t first, core::Time first_end);

  // The split's own (disaggregated.cpp): the decode pool, the link and the hand-off state.
  void add_decode_pool(const perf::CalibrationProfile& prefill_calibration);
  // The prefill of `id` ended at `now`: pick its decode replica and queue it for KV there.
  void hand_off(core::Time now, RequestId id);
  // Starts the transfers whose KV blocks fit on decode replica `d` now, in FIFO order.
  void start_transfers(core::Time now, std::uint32_t d);
  void on_transfer_done(core::Time now, RequestId id);
  // Decode replica `d`, between steps: admits the requests whose KV landed (max_num_seqs permitting).
  void admit_landed(std::uint32_t d);
  // Whether landed requests wait for decode replica `d` (its next step may differ from a run's).
  bool has_landed(std::uint32_t d) const;
  DisaggregatedStats disaggregated_stats(double simulated_s) const;

  ServingConfig config_;
  Clients clients_;
  std::vector<Pool> pools_;
  std::unique_ptr<KvHandoffs> split_;  // disaggregated deployments only
  Router router_;
  core::RngStream acceptance_rng_;
  core::EventQueue<Payload, Phase> events_;
  std::vector<Request> requests_;
  std::vector<RequestId> finished_;                 // reused by on_iteration_end
  std::vector<std::uint32_t> running_replicas_;     // reused by run_replicas
  std::vector<std::vector<BlockId>> block_tables_;  // emptied block tables of ended requests, for reuse
  core::Duration queue_timeout_{0};
  core::Time tokenizer_free_at_{};  // the front end's tokenization lane is busy until then
  bool ran_ = false;
  bool summarised_ = false;               // finish() ran
  core::Time last_at_ = core::kSimStart;  // the instant of the last event, and how many ran at it
  std::int64_t same_instant_ = 0;
  std::int64_t max_events_at_one_instant_ = kMaxEventsAtOneInstant;
  std::int64_t max_steps_per_event_ = std::numeric_limits<std::int64_t>::max();

  // Terminal accounting.
  std::int64_t num_terminal_transitions_ = 0;
  std::int64_t arrived_ = 0, completed_ = 0, rejected_ = 0, timed_out_ = 0, failed_other_ = 0;
  std::int64_t exceeding_context_ = 0;
  std::int64_t exceeding_kv_cache_ = 0;  // of exceeding_context_: within the window, not the cache
  std::int64_t input_tokens_ = 0, cached_input_tokens_ = 0, output_tokens_ = 0;
  core::Time last_terminal_at_{};
};

}  // namespace tycoon::serving
