// The serving simulation: the event loop that drives replicas, the router, clients and
// sessions, and collects metrics. `simulate()` (serving_sim.h) runs one; tests use this class
// directly to inspect the end state (every request terminal, no KV block held).
#pragma once

#include <cstdint>
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

class Simulation : private ClientHost {
 public:
  // Validates the configuration (std::invalid_argument with the reason; data::LoadError for a
  // bad trace file).
  Simulation(const ServingConfig& config, const perf::CalibrationProfile& calibration);

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
  // Blocks referenced or reserved, over all replicas (0 when nothing leaked).
  std::int64_t kv_blocks_in_use() const;
  // Reference counts equal the blocks in live block tables, and each cache is consistent.
  bool kv_invariants_hold() const;
  std::int64_t num_terminal_transitions() const { return num_terminal_transitions_; }
  // How far it has got (between advance() calls).
  ServingProgress progress() const;
  const ReplicaParams& replica_params() const { return replica_params_; }

 private:
  // Event kinds, in the order they run at one instant: work that ended first, then timeouts,
  // then arrivals, then the replicas pick their next batch (seeing everything that arrived).
  enum class Phase : std::uint8_t { kIterationEnd, kTimeout, kArrival, kSchedule };
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
    std::uint32_t replica;
  };
  struct Schedule {
    std::uint32_t replica;
  };
  using Payload =
      std::variant<SessionStart, UserStart, TurnArrival, QueueTimeout, FrontendDone, IterationEnd, Schedule>;

  void handle(core::Time now, const Payload& p);
  void on_timeout(core::Time now, RequestId id);
  void on_iteration_end(core::Time now, std::uint32_t replica);
  void on_schedule(core::Time now, std::uint32_t replica);

  // ClientHost: the shared clients (clients.h) schedule arrivals here and admit requests.
  void schedule_session_start(core::Time at) override;
  void schedule_user_start(core::Time at) override;
  void schedule_turn(core::Time at, std::uint32_t session) override;
  void admit(core::Time now, std::uint32_t session, const traffic::Turn& turn, bool counted) override;
  void count_unrunnable(std::int64_t n) override;
  void on_warmup_end(core::Time now) override;
  // Routes a request that left the front end to a replica's queue.
  void dispatch(core::Time now, RequestId id);
  void terminate(core::Time now, RequestId id, RequestState state);
  void kick(core::Time now, std::uint32_t replica);
  // When the next event that may act happens (kNever when none): first drops queue timeouts at
  // the front that can no longer act (their request streamed a token or ended — both for good).
  core::Time next_event_at();
  // Several replicas' decode fast paths interleaved in time order (Replica::run_begin ...):
  // `first` just started a step ending at `first_end`; other replicas whose next event is a step
  // end join while each could run on its own. Pushes each one's IterationEnd at the end.
  void run_replicas(core::Time now, std::uint32_t first, core::Time first_end);

  ServingConfig config_;
  perf::CalibrationProfile calibration_;
  Clients clients_;
  ReplicaParams replica_params_;
  std::int64_t kv_capacity_tokens_ = 0;
  std::vector<Replica> replicas_;
  std::vector<bool> schedule_pending_;
  Router router_;
  core::RngStream acceptance_rng_;
  core::EventQueue<Payload, Phase> events_;
  std::vector<Request> requests_;
  std::vector<RequestId> finished_;                 // reused by on_iteration_end
  std::vector<std::uint32_t> running_replicas_;     // reused by run_replicas
  std::vector<std::vector<BlockId>> block_tables_;  // emptied block tables of ended requests, for reuse
  ServingMetrics metrics_;
  core::Duration queue_timeout_{0};
  core::Time tokenizer_free_at_{};  // the front end's tokenization lane is busy until then
  bool ran_ = false;
  bool summarised_ = false;               // finish() ran
  core::Time last_at_ = core::kSimStart;  // the instant of the last event, and how many ran at it
  std::int64_t same_instant_ = 0;

  // Terminal accounting.
  std::int64_t num_terminal_transitions_ = 0;
  std::int64_t arrived_ = 0, completed_ = 0, rejected_ = 0, timed_out_ = 0, failed_other_ = 0;
  std::int64_t exceeding_context_ = 0;
  std::int64_t exceeding_kv_cache_ = 0;  // of exceeding_context_: within the window, not the cache
  std::int64_t input_tokens_ = 0, cached_input_tokens_ = 0, output_tokens_ = 0;
  std::vector<std::int64_t> routed_;
  core::Time last_terminal_at_{};
};

}  // namespace tycoon::serving
