#include "sim/serving/clients.h"

#include <cmath>
#include <string>

#include "sim/core/input_error.h"

namespace tycoon::serving {

namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw core::InputError(what);
}

}  // namespace

traffic::WorkloadParams workload_params(const WorkloadSpec& w, std::int64_t max_context_tokens) {
  traffic::WorkloadParams wp;
  wp.kind = w.kind;
  wp.input_tokens = w.input_tokens;
  wp.output_tokens = w.output_tokens;
  wp.input_range_ratio = w.input_range_ratio;
  wp.output_range_ratio = w.output_range_ratio;
  wp.max_context_tokens = max_context_tokens;
  wp.max_pause_s = w.max_pause_s;
  wp.pause_basis = w.pause_basis;
  if (w.kind == WorkloadKind::kTrace) wp.trace = w.trace.get();
  return wp;
}

double mean_request_context_tokens(const WorkloadSpec& w, std::int64_t max_context_tokens, std::uint64_t seed) {
  const auto wp = workload_params(w, max_context_tokens);
  // A trace not read yet: its lengths are in the file; the nominal lengths stand in.
  if (w.kind == WorkloadKind::kTrace && !wp.trace) return static_cast<double>(w.input_tokens + w.output_tokens);
  return traffic::mean_request_context_tokens(wp, seed);
}

Clients::Clients(const ServingConfig& config) : config_(config) {
  require(config_.deployment.model != nullptr, "the serving simulation needs a model, a chip and an engine");
  const auto& model = *config_.deployment.model;
  require(config_.num_requests >= 0, "num_requests must be >= 0");
  require(config_.duration_s >= 0 && std::isfinite(config_.duration_s), "duration must be >= 0 seconds");
  require(config_.warmup_s >= 0 && std::isfinite(config_.warmup_s), "warmup must be >= 0 seconds");
  require(config_.warmup_requests >= 0, "warm-up requests must be >= 0");
  require(config_.warmup_requests == 0 || config_.arrival.kind == ArrivalKind::kClosedLoop,
          "a warm-up in requests needs closed-loop users");
  require(config_.arrival.ramp_up_s >= 0 && std::isfinite(config_.arrival.ramp_up_s), "ramp-up must be >= 0 seconds");

  const auto& w = config_.workload;
  require(
      w.input_range_ratio >= 0 && w.input_range_ratio <= 1 && w.output_range_ratio >= 0 && w.output_range_ratio <= 1,
      "random range ratios must be in [0, 1]");
  traffic::WorkloadParams wp = workload_params(w, model.max_context_tokens);
  // The users present when a closed-loop run starts join their conversations part-way, as a
  // replay's initial users do; the ones that follow start theirs from the beginning.
  if (config_.arrival.kind == ArrivalKind::kClosedLoop) wp.joined_sessions = config_.arrival.concurrency;
  require(w.max_pause_s >= 0 && std::isfinite(w.max_pause_s), "the pause cap must be >= 0 seconds (0: none)");
  require(config_.arrival.idle_cap_s >= 0 && std::isfinite(config_.arrival.idle_cap_s),
          "the idle cap must be >= 0 seconds (0: none)");
  require(config_.arrival.idle_cap_s == 0 || config_.arrival.kind == ArrivalKind::kClosedLoop,
          "an idle cap needs closed-loop users");
  require(w.input_tokens >= 1 && w.output_tokens >= 1, "input and output tokens must be at least 1");
  if (w.kind == WorkloadKind::kRandom) {
    std::string what = "input + output tokens (";
    what += std::to_string(w.input_tokens + w.output_tokens);
    what += ") exceed ";
    what += model.id;
    what += "'s context window of ";
    what += std::to_string(model.max_context_tokens);
    what += " tokens";
    require(!model.beyond_context_window(w.input_tokens + w.output_tokens), what);
  }
  trace_times_ = w.kind == WorkloadKind::kTrace && w.trace_timestamps;
  if (w.kind == WorkloadKind::kTrace) {
    if (w.trace) {
      shared_trace_ = w.trace;
      wp.trace = shared_trace_.get();
    } else {
      require(!w.trace_path.empty(), "the trace workload needs a trace file");
      trace_ = traffic::load_trace(w.trace_path);
      wp.trace = &*trace_;
    }
  } else {
    require(config_.num_requests > 0 || config_.duration_s > 0, "give a number of requests or a duration");
  }
  workload_ = std::make_unique<traffic::WorkloadGenerator>(wp, config_.seed);
  const auto& a = config_.arrival;
  if (!trace_times_) {
    switch (a.kind) {
      case ArrivalKind::kClosedLoop:
        require(a.concurrency >= 1, "closed-loop concurrency must be at least 1 user");
        break;
      case ArrivalKind::kPoisson:
      case ArrivalKind::kBursty:
      case ArrivalKind::kDiurnal: {
        traffic::ArrivalParams ap;
        ap.kind = a.kind;
        ap.rate_per_s = a.rate_per_s;
        ap.burst_factor = a.burst_factor;
        ap.diurnal_amplitude = a.diurnal_amplitude;
        arrivals_.emplace(ap, config_.seed);
        break;
      }
    }
  }

  warmup_end_ = core::Time{core::from_seconds(config_.warmup_s)};
  if (config_.duration_s > 0) duration_end_ = core::Time{core::from_seconds(config_.duration_s)};
  if (config_.warmup_requests > 0 && !trace_times_) {
    // Nothing counts until the warm-up ended (end_warmup sets both).
    in_warmup_ = true;
    warmup_end_ = core::kNever;
    duration_end_ = core::kNever;
  }
}

bool Clients::can_issue(core::Time now) const {
  if (in_warmup_) return issued_ < config_.warmup_requests;
  const std::int64_t measured = issued_ - (config_.warmup_requests > 0 ? config_.warmup_requests : 0);
  return (config_.num_requests == 0 || measured < config_.num_requests) && now < duration_end_;
}

void Clients::start(ClientHost& host) {
  if (trace_times_) {
    if (auto t = workload_->peek_trace_arrival_s()) {
      core::Time first{core::from_seconds(*t)};
      if (can_issue(first)) host.schedule_session_start(first);
    }
  } else if (arrivals_) {
    core::Time first = arrivals_->next();
    if (can_issue(first)) host.schedule_session_start(first);
  } else {
    start_users(core::kSimStart, config_.arrival.concurrency, host);
  }
}

void Clients::start_users(core::Time t0, int users, ClientHost& host) {
  const double ramp = config_.arrival.ramp_up_s;
  const int n = config_.arrival.concurrency;
  for (int u = 0; u < users; ++u) {
    const core::Time at = ramp > 0 ? t0 + core::from_seconds(ramp * u / n) : t0;
    host.schedule_user_start(at);
  }
}

void Clients::end_warmup(core::Time now, ClientHost& host) {
  in_warmup_ = false;
  // Counting starts at the later of the warm-up's end and warmup_s (a steady-state run's cut,
  // serving/steady_state.h); the measured run itself starts now either way.
  warmup_end_ = std::max(now, core::Time{core::from_seconds(config_.warmup_s)});
  if (config_.duration_s > 0) duration_end_ = now + core::from_seconds(config_.duration_s);
  host.on_warmup_end(warmup_end_);
  const int users = parked_users_;
  parked_users_ = 0;
  start_users(now, users, host);
}

bool Clients::start_session(core::Time now, bool closed_loop, ClientHost& host) {
  if (!can_issue(now)) return false;
  std::uint32_t slot;
  if (!free_sessions_.empty()) {
    slot = free_sessions_.back();
    free_sessions_.pop_back();
  } else {
    slot = static_cast<std::uint32_t>(sessions_.size());
    sessions_.emplace_back();
  }
  auto turn = workload_->start_session(sessions_[slot].state);
  if (const std::int64_t n = workload_->take_skipped_sessions(); n > 0) host.count_unrunnable(n);
  if (!turn) {
    free_sessions_.push_back(slot);
    return false;
  }
  sessions_[slot].pending = *turn;
  sessions_[slot].closed_loop = closed_loop;
  issue_turn(now, slot, host);
  return true;
}

void Clients::end_session(core::Time now, std::uint32_t session, ClientHost& host) {
  const bool closed_loop = sessions_[session].closed_loop;
  free_sessions_.push_back(session);
  if (!closed_loop) return;
  if (in_warmup_ && !can_issue(now)) {
    ++parked_users_;  // the warm-up is sent: wait for it to end
    if (warmup_live_ == 0) end_warmup(now, host);
    return;
  }
  host.schedule_user_start(now);  // the user starts the next task
}

void Clients::issue_turn(core::Time now, std::uint32_t session, ClientHost& host) {
  if (!can_issue(now)) {
    end_session(now, session, host);
    return;
  }
  const bool counted = now >= warmup_end_;
  if (in_warmup_) ++warmup_live_;
  ++issued_;
  ++in_flight_;
  idle_check_at_ = core::kNever;  // the system is busy: a pending idle check lapses
  host.admit(now, session, sessions_[session].pending, counted);
}

void Clients::on_session_start(core::Time now, ClientHost& host) {
  start_session(now, false, host);
  // A trace replayed on a generated arrival process ends with its last entry: drawing more
  // arrivals would never end when neither a request count nor a duration stops them.
  if (workload_->exhausted()) return;
  if (arrivals_) {
    core::Time next = arrivals_->next();
    if (can_issue(next)) host.schedule_session_start(next);
  } else if (auto t = workload_->peek_trace_arrival_s()) {
    core::Time next{core::from_seconds(*t)};
    if (can_issue(next)) host.schedule_session_start(next);
  }
}

void Clients::on_user_start(core::Time now, ClientHost& host) {
  if (in_warmup_ && !can_issue(now)) {  // the warm-up was sent while this user waited to start
    ++parked_users_;
    if (warmup_live_ == 0) end_warmup(now, host);
    return;
  }
  start_session(now, true, host);
}

void Clients::on_turn_arrival(core::Time now, std::uint32_t session, ClientHost& host) {
  if (session == kIdleCheck) {
    if (now != idle_check_at_) return;  // a request was sent since: the system was not idle
    idle_check_at_ = core::kNever;
    if (in_flight_ > 0) return;
    // Idle for the whole cap: the replay's clock skips the rest of the idle stretch. The user whose
    // next request is due first sends it now, and every other waiting user's turn moves earlier by
    // the same amount (AIPerf's system idle cap pulls all pending timers forward together:
    // replay_dependencies.py in ai-dynamo/aiperf), so the gaps between their turns are kept.
    std::uint32_t first = kIdleCheck;
    for (std::uint32_t i = 0; i < sessions_.size(); ++i) {
      if (sessions_[i].waiting && (first == kIdleCheck || sessions_[i].turn_at < sessions_[first].turn_at)) first = i;
    }
    if (first == kIdleCheck) return;
    const auto skip = sessions_[first].turn_at - now;
    for (std::uint32_t i = 0; i < sessions_.size(); ++i) {
      if (i == first || !sessions_[i].waiting) continue;
      sessions_[i].turn_at -= skip;  // its scheduled arrival is now stale; the new one replaces it
      host.schedule_turn(sessions_[i].turn_at, i);
    }
    sessions_[first].waiting = false;  // its scheduled arrival is now stale
    issue_turn(now, first, host);
    return;
  }
  SessionSlot& s = sessions_[session];
  if (!s.waiting || now != s.turn_at) return;  // sent early by the idle cap
  s.waiting = false;
  issue_turn(now, session, host);
}

void Clients::on_request_end(core::Time now, std::int64_t id, std::uint32_t session, bool completed, ClientHost& host) {
  if (id < config_.warmup_requests) --warmup_live_;
  --in_flight_;
  if (completed) {
    SessionSlot& s = sessions_[session];
    if (auto next = workload_->next_turn(s.state)) {
      s.pending = *next;
      s.waiting = true;
      s.turn_at = config_.arrival.skip_pauses && s.closed_loop ? now : now + next->think_before;
      host.schedule_turn(s.turn_at, session);
      arm_idle_check(now, host);
      return;
    }
  }
  end_session(now, session, host);
  arm_idle_check(now, host);
}

void Clients::arm_idle_check(core::Time now, ClientHost& host) {
  if (config_.arrival.idle_cap_s <= 0 || in_flight_ > 0) return;
  idle_check_at_ = now + core::from_seconds(config_.arrival.idle_cap_s);
  host.schedule_turn(idle_check_at_, kIdleCheck);
}

}  // namespace tycoon::serving
