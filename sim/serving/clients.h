// The benchmark client both serving simulations share (aggregated: simulation.h; disaggregated
// prefill/decode: disaggregated.h): the workload generator (lengths, sessions, traces), the arrival
// process or closed-loop users (ramp-up, ArrivalSpec), the request-count or time warm-up, and the
// stop condition (num_requests measured requests, or the duration). Given one ServingConfig and
// seed, both simulations therefore see the same request stream: the same lengths in the same order,
// and, for open-loop arrivals and traces, at the same instants.
//
// The clients own no events: the host simulation keeps one event queue, and the clients ask it to
// schedule their arrivals through ClientHost (at its arrival phase) and to admit each request.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "sim/core/time.h"
#include "sim/serving/serving_sim.h"
#include "sim/traffic/arrivals.h"
#include "sim/traffic/trace.h"
#include "sim/traffic/workload.h"

namespace tycoon::serving {

// What the clients need from the simulation that hosts them.
class ClientHost {
 public:
  virtual ~ClientHost() = default;
  // Schedule Clients::on_session_start (open loop, trace) at `at`.
  virtual void schedule_session_start(core::Time at) = 0;
  // Schedule Clients::on_user_start (closed loop) at `at`.
  virtual void schedule_user_start(core::Time at) = 0;
  // Schedule Clients::on_turn_arrival(session) at `at`.
  virtual void schedule_turn(core::Time at, std::uint32_t session) = 0;
  // A request arrives now: the next request id (0, 1, ... in issue order), `turn`'s lengths and
  // content, from client session `session`; `counted` is false for warm-up requests. The host must
  // eventually call Clients::on_request_end for it, exactly once.
  virtual void admit(core::Time now, std::uint32_t session, const traffic::Turn& turn, bool counted) = 0;
  // `n` sessions could not run at all (they would outgrow the context window): each counts as a
  // request that arrived and failed, never admitted.
  virtual void count_unrunnable(std::int64_t n) = 0;
  // The warm-up ended at `now` (request-count warm-up): only requests arriving from now count, and
  // the throughput window starts now.
  virtual void on_warmup_end(core::Time now) = 0;
};

class Clients {
 public:
  // Validates the workload, arrival and warm-up settings (core::InputError, a std::invalid_argument,
  // with the reason; data::LoadError for a bad trace file). `config.deployment.model` must be set.
  explicit Clients(const ServingConfig& config);
  Clients(const Clients&) = delete;  // the generator points into trace_
  Clients& operator=(const Clients&) = delete;

  // The instant from which arriving requests count (kNever while a request-count warm-up lasts).
  core::Time warmup_end() const { return warmup_end_; }

  // Schedules the first arrivals (or releases the closed-loop users over the ramp-up).
  void start(ClientHost& host);
  void on_session_start(core::Time now, ClientHost& host);
  void on_user_start(core::Time now, ClientHost& host);
  void on_turn_arrival(core::Time now, std::uint32_t session, ClientHost& host);
  // Request `id` of `session` ended at `now`; a completed one lets its session send the next turn.
  void on_request_end(core::Time now, std::int64_t id, std::uint32_t session, bool completed, ClientHost& host);

 private:
  struct SessionSlot {
    traffic::Session state;
    traffic::Turn pending;
    bool closed_loop = false;
    bool waiting = false;  // its next turn is scheduled, at turn_at
    core::Time turn_at = core::kNever;
  };
  // ClientHost::schedule_turn's session for the idle-cap check (ArrivalSpec::idle_cap_s).
  static constexpr std::uint32_t kIdleCheck = 0xFFFFFFFFu;
  bool can_issue(core::Time now) const;
  bool start_session(core::Time now, bool closed_loop, ClientHost& host);
  void issue_turn(core::Time now, std::uint32_t session, ClientHost& host);
  void end_session(core::Time now, std::uint32_t session, ClientHost& host);
  // Closed-loop users start at `t0`, spread over the ramp-up (ArrivalSpec::ramp_up_s).
  void start_users(core::Time t0, int users, ClientHost& host);
  // Nothing in flight: with an idle cap, check at now + cap whether the system stayed idle.
  void arm_idle_check(core::Time now, ClientHost& host);
  // The last warm-up request ended: the measured run starts now with the parked users.
  void end_warmup(core::Time now, ClientHost& host);

  ServingConfig config_;
  bool trace_times_ = false;
  std::optional<traffic::Trace> trace_;
  std::shared_ptr<const traffic::Trace> shared_trace_;  // WorkloadSpec::trace, when given
  std::unique_ptr<traffic::WorkloadGenerator> workload_;
  std::optional<traffic::ArrivalProcess> arrivals_;
  std::vector<SessionSlot> sessions_;
  std::vector<std::uint32_t> free_sessions_;
  core::Time warmup_end_{};
  core::Time duration_end_ = core::kNever;
  std::int64_t issued_ = 0;
  std::int64_t in_flight_ = 0;               // admitted and not yet ended
  core::Time idle_check_at_ = core::kNever;  // the pending idle-cap check (kNever: none)
  // Request-count warm-up (ServingConfig::warmup_requests): requests 0 .. warmup_requests - 1
  // are the warm-up; while it lasts, users whose session ends wait (parked) for its end.
  bool in_warmup_ = false;
  std::int64_t warmup_live_ = 0;
  int parked_users_ = 0;
};

}  // namespace tycoon::serving
