#include "sim/serving/simulation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "sim/core/input_error.h"
#include "sim/perf/memory_plan.h"
#include "sim/serving/disaggregated.h"

namespace tycoon::serving {

namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw core::InputError(what);
}

LatencyStats to_latency(const metrics::SampleSummary& s, double scale = 1.0) {
  return LatencyStats{s.mean * scale, s.p50 * scale, s.p90 * scale, s.p99 * scale};
}

}  // namespace

Simulation::Simulation(const ServingConfig& config, const perf::CalibrationProfile& calibration)
    : config_(config),
      clients_(config),
      router_(config.router),
      acceptance_rng_(config.seed, core::RngPurpose::kAcceptance) {
  pools_.reserve(2);  // replicas point at their pool's calibration: no reallocation
  add_pool(config_.deployment, config_.scheduler, config_.replicas, calibration);
  if (config_.disaggregated) add_decode_pool(calibration);
  queue_timeout_ = core::from_seconds(config_.scheduler.queue_timeout_s);
  if (config_.num_requests > 0)
    requests_.reserve(static_cast<std::size_t>(std::min<std::int64_t>(config_.num_requests, 1 << 22)));
}

Simulation::~Simulation() = default;

void Simulation::add_pool(const perf::Deployment& d, const SchedulerConfig& sc, int replicas,
                          const perf::CalibrationProfile& calibration) {
  require(d.model && d.hardware && d.engine, "the serving simulation needs a model, a chip and an engine");
  perf::check_deployment(d);
  const int k = d.spec_decode ? d.spec_decode->num_draft_tokens : 0;
  require(replicas >= 1, "replicas must be at least 1");
  require(sc.max_num_seqs >= 1, "max_num_seqs must be at least 1");
  require(sc.max_num_batched_tokens >= 1 + k,
          "max_num_batched_tokens must hold one decode step (1 + draft tokens = " + std::to_string(1 + k) + ")");
  require(sc.queue_timeout_s >= 0 && std::isfinite(sc.queue_timeout_s), "queue timeout must be >= 0 seconds");
  require(sc.max_queue >= 0, "max_queue must be >= 0");
  require(sc.kv_capacity_tokens >= 0, "kv_capacity_tokens must be >= 0");
  require(d.kv_page_tokens >= 1, "KV page size must be at least 1 token");
  if (d.spec_decode && k > 0) {
    AcceptanceSampler check(k, d.spec_decode->acceptance_length);  // throws on a bad acceptance length
  }

  // KV cache from the memory plan: pages of kv_page_tokens; per-sequence fixed state as whole pages.
  auto plan = perf::plan_memory(d, sc.max_num_batched_tokens, sc.max_num_seqs);
  require(plan.fits || sc.kv_capacity_tokens > 0, plan.reason);
  require(plan.kv_bytes_per_token > 0, "the serving simulation needs a model with a growing KV cache");
  Pool& pool = pools_.emplace_back();
  pool.calibration = calibration;
  pool.kv_capacity_tokens = sc.kv_capacity_tokens > 0 ? sc.kv_capacity_tokens : plan.kv_capacity_tokens;
  pool.kv_bytes_per_token_per_gpu = plan.kv_bytes_per_token;
  pool.fixed_bytes_per_gpu = plan.fixed_bytes_per_sequence;
  pool.gpus_per_replica = d.gpus_per_replica();
  ReplicaParams& p = pool.params;
  p.page_tokens = d.kv_page_tokens;
  const std::int64_t num_blocks = pool.kv_capacity_tokens / d.kv_page_tokens;
  require(num_blocks >= 1, "KV cache of " + std::to_string(pool.kv_capacity_tokens) +
                               " tokens holds no whole page of " + std::to_string(d.kv_page_tokens) + " tokens");
  require(num_blocks < (std::int64_t{1} << 31), "KV cache of " + std::to_string(pool.kv_capacity_tokens) +
                                                    " tokens is more pages of " + std::to_string(d.kv_page_tokens) +
                                                    " tokens than a replica can index (2^31 - 1)");
  p.num_blocks = static_cast<std::int32_t>(num_blocks);
  const double page_bytes = plan.kv_bytes_per_token * d.kv_page_tokens;
  p.fixed_blocks_per_seq = static_cast<std::int32_t>(std::ceil(plan.fixed_bytes_per_sequence / page_bytes));
  p.max_num_batched_tokens = sc.max_num_batched_tokens;
  p.max_num_seqs = running_limit(sc, d, pool.kv_capacity_tokens);
  p.chunked_prefill = sc.chunked_prefill && d.engine->supports_chunked_prefill;
  p.prefix_caching = sc.prefix_caching && d.engine->supports_prefix_caching;
  p.num_draft_tokens = k;
  p.guaranteed_no_evict = sc.kv_admission == KvAdmission::kGuaranteedNoEvict;
  // The decode fast path assumes a run of decode steps takes no request in; under a receive
  // interval every step counts toward the next receiving pass, so steps run one by one.
  p.fast_forward_decode = sc.fast_forward_decode && sc.recv_interval <= 1;
  p.batch_wait_iters = sc.batch_wait_iters;
  p.batch_wait_tokens_ratio = sc.batch_wait_tokens_ratio;
  p.recv_interval = sc.recv_interval;
  // Both at once is SGLang's overlap scheduler reading requests at its receive interval: what a
  // receiving pass reads runs a step later (Replica::receive).
  p.async_scheduling = sc.async_scheduling;

  pool.replicas.reserve(static_cast<std::size_t>(replicas));
  for (int i = 0; i < replicas; ++i) pool.replicas.emplace_back(p, d, pool.calibration);
  pool.schedule_pending.assign(pool.replicas.size(), false);
  pool.routed.assign(pool.replicas.size(), 0);
  pool.busy_ns.assign(pool.replicas.size(), 0);
  pool.run_from.assign(pool.replicas.size(), core::kSimStart);
  pool.metrics.warmup_end = clients_.warmup_end();  // kNever while a request-count warm-up lasts
}

int running_limit(const SchedulerConfig& sc, const perf::Deployment& d, std::int64_t kv_pool_tokens) {
  if (sc.running_limit_from_engine && d.engine && d.engine->running_limit_from_kv_pool) {
    int limit = data::kv_pool_running_limit(kv_pool_tokens, d.model->max_context_tokens);
    // With speculative decoding the engine may set a lower limit of its own (SGLang: 48).
    if (d.spec_decode && d.engine->spec_decode_running_limit > 0) {
      limit = std::min(limit, d.engine->spec_decode_running_limit);
    }
    return limit;
  }
  return sc.max_num_seqs;
}

std::uint8_t Simulation::pool_of(RequestId id) const { return split_ ? split_->pool_of(id) : kPrefillPool; }

bool Simulation::fits_kv(Request& r) const {
  // The last pool holds the whole life (prompt + output); a pool before it the prompt and the one
  // token its last chunk samples.
  const std::int64_t output_tokens = r.output_tokens;
  bool fits = true;
  for (std::size_t i = 0; i < pools_.size() && fits; ++i) {
    r.output_tokens = i + 1 < pools_.size() ? 1 : output_tokens;
    fits = pools_[i].replicas[0].blocks_for_lifetime(r) <= pools_[i].params.num_blocks;
  }
  r.output_tokens = output_tokens;
  return fits;
}

void Simulation::schedule_session_start(core::Time at) { events_.push(at, Phase::kArrival, SessionStart{}); }

void Simulation::schedule_user_start(core::Time at) { events_.push(at, Phase::kArrival, UserStart{}); }

void Simulation::schedule_turn(core::Time at, std::uint32_t session) {
  events_.push(at, Phase::kArrival, TurnArrival{session});
}

void Simulation::on_warmup_end(core::Time now) {
  for (Pool& pool : pools_) pool.metrics.warmup_end = now;
}

void Simulation::kick(core::Time now, std::uint8_t pool, std::uint32_t replica) {
  Pool& ps = pools_[pool];
  if (ps.replicas[replica].busy() || ps.schedule_pending[replica]) return;
  ps.schedule_pending[replica] = true;
  events_.push(now, Phase::kSchedule, Schedule{pool, replica});
}

void Simulation::count_unrunnable(std::int64_t n) {
  // Each is a request that fails at once: counted as arrived and failed, never routed.
  arrived_ += n;
  failed_other_ += n;
  exceeding_context_ += n;
  num_terminal_transitions_ += n;
}

void Simulation::admit(core::Time now, std::uint32_t session, const traffic::Turn& turn, bool counted) {
  const auto id = static_cast<RequestId>(requests_.size());
  requests_.emplace_back();
  Request& r = requests_.back();
  if (!block_tables_.empty()) {
    r.blocks = std::move(block_tables_.back());
    block_tables_.pop_back();
  }
  r.input_tokens = turn.input_tokens;
  r.output_tokens = turn.output_tokens;
  r.content = turn.content;
  r.session = session;
  r.arrived_at = now;
  r.counted = counted;
  ++arrived_;
  if (split_) split_->add(r);

  const bool beyond_window = config_.deployment.model->beyond_context_window(r.input_tokens + r.output_tokens);
  if (beyond_window || !fits_kv(r)) {
    ++exceeding_context_;
    if (!beyond_window) ++exceeding_kv_cache_;
    terminate(now, id, RequestState::kFailed);
    return;
  }
  // A prefill pool runs the prompt and samples one token, which is discarded (hand_off).
  if (split_) r.output_tokens = 1;
  // The front end (engine card): a fixed per-request latency, and the prompt's tokenization on
  // one first-come-first-served CPU lane; the engine sees the request when both are done.
  const data::Engine& engine = *config_.deployment.engine;
  if (config_.api_server && (engine.frontend_request_s > 0 || engine.tokenize_s_per_input_token > 0)) {
    const core::Time tokenize_start = std::max(now, tokenizer_free_at_);
    tokenizer_free_at_ =
        tokenize_start + core::from_seconds(engine.tokenize_s_per_input_token * static_cast<double>(r.input_tokens));
    const core::Time ready = std::max(tokenizer_free_at_, now + core::from_seconds(engine.frontend_request_s));
    events_.push(ready, Phase::kArrival, FrontendDone{id});
    return;
  }
  dispatch(now, id);
}

void Simulation::dispatch(core::Time now, RequestId id) {
  Request& r = requests_[id];
  Pool& pool = pools_.front();
  const auto target = static_cast<std::uint32_t>(router_.route(r, pool.replicas));
  r.replica = static_cast<std::int32_t>(target);
  ++pool.routed[target];
  Replica& replica = pool.replicas[target];
  if (replica.num_waiting() >= config_.scheduler.max_queue) {
    terminate(now, id, RequestState::kRejected);
    return;
  }
  replica.enqueue(id, r);
  if (queue_timeout_.count() > 0) events_.push(now + queue_timeout_, Phase::kTimeout, QueueTimeout{id});
  kick(now, kPrefillPool, target);
}

void Simulation::terminate(core::Time now, RequestId id, RequestState state) {
  Request& r = requests_[id];
  if (r.ended) throw std::logic_error("request " + std::to_string(id) + " ended twice");
  if (!is_terminal(state)) throw std::logic_error("terminate() needs a terminal state");
  r.ended = true;
  ++num_terminal_transitions_;
  r.state = state;
  r.finished_at = now;
  if (split_) split_->restore_output(r, id);
  last_terminal_at_ = std::max(last_terminal_at_, now);
  ServingMetrics& m = pools_.back().metrics;  // the pool that streams the tokens
  switch (state) {
    case RequestState::kCompleted:
      ++completed_;
      if (r.counted) {
        const double ttft = core::to_seconds(r.first_token_at - r.arrived_at);
        const double e2e = core::to_seconds(r.finished_at - r.arrived_at);
        m.ttft_s.push_back(ttft);
        m.e2e_s.push_back(e2e);
        if (r.num_output > 1) {
          const double tpot = (e2e - ttft) / static_cast<double>(r.num_output - 1);
          m.tpot_s.push_back(tpot);
          if (tpot > 0) m.interactivity.push_back(1.0 / tpot);
        }
        input_tokens_ += r.input_tokens;
        cached_input_tokens_ += std::max<std::int64_t>(0, r.num_cached_tokens);
        output_tokens_ += r.num_output;
        if (split_) split_->add_ttft_parts(r, id);
      }
      break;
    case RequestState::kRejected:
      ++rejected_;
      break;
    case RequestState::kTimedOut:
      ++timed_out_;
      break;
    case RequestState::kFailed:
      ++failed_other_;
      break;
    case RequestState::kWaiting:
    case RequestState::kRunning:
      break;
  }
  if (r.blocks.capacity() > 0) {
    r.blocks.clear();
    block_tables_.push_back(std::move(r.blocks));
    r.blocks = {};
  }

  // The client: the next turn of the session after a completed one, else the session ends.
  clients_.on_request_end(now, static_cast<std::int64_t>(id), r.session, state == RequestState::kCompleted, *this);
}

void Simulation::on_timeout(core::Time now, RequestId id) {
  Request& r = requests_[id];
  if (r.state != RequestState::kWaiting || r.num_output > 0) return;  // started in time (or ended)
  pools_[pool_of(id)].replicas[static_cast<std::size_t>(r.replica)].forget_waiting();
  terminate(now, id, RequestState::kTimedOut);
}

void Simulation::on_schedule(core::Time now, std::uint8_t pool, std::uint32_t replica) {
  Pool& ps = pools_[pool];
  ps.schedule_pending[replica] = false;
  Replica& rep = ps.replicas[replica];
  if (rep.busy()) return;
  if (split_ && pool == kDecodePool) admit_landed(replica);
  auto d = rep.start_iteration(requests_, ps.metrics);
  if (!d) return;
  core::Time end = now + *d;
  if (ps.params.fast_forward_decode) {
    if (ps.replicas.size() > 1 && !rep.speculative()) {
      run_replicas(now, pool, replica, end);
      return;
    }
    end = rep.fast_forward(end, next_event_at(), requests_, acceptance_rng_, ps.metrics, max_steps_per_event_);
  }
  ps.busy_ns[replica] += (end - now).count();
  events_.push(end, Phase::kIterationEnd, IterationEnd{pool, replica});
}

void Simulation::run_replicas(core::Time now, std::uint8_t pool, std::uint32_t first, core::Time first_end) {
  Pool& ps = pools_[pool];
  std::vector<Replica>& replicas = ps.replicas;
  std::vector<std::uint32_t>& runs = running_replicas_;
  runs.clear();
  if (replicas[first].run_begin(first_end, now, requests_)) {
    runs.push_back(first);
    ps.run_from[first] = now;
    for (std::int64_t steps = 0; steps < max_steps_per_event_; ++steps) {
      // The earliest step end among the runs; a tie between two runs stops (their order would
      // be their events' push order).
      std::size_t next = 0;
      bool tie = false;
      for (std::size_t i = 1; i < runs.size(); ++i) {
        const core::Time a = replicas[runs[i]].run_end_at(), b = replicas[runs[next]].run_end_at();
        if (a < b) {
          next = i;
          tie = false;
        } else if (a == b) {
          tie = true;
        }
      }
      Replica& rep = replicas[runs[next]];
      const core::Time t = rep.run_end_at();
      const core::Time horizon = next_event_at();
      if (horizon <= t) {
        // The next event comes first. Another replica's step end, alone at its instant, joins
        // the interleaved runs when that replica could have run on its own from there: its end
        // and its next step are then applied here in time order, as the events would.
        const auto& top = events_.top();
        const auto* e = std::get_if<IterationEnd>(&top.payload);
        const auto* after = events_.after_top();
        if (!e || e->pool != pool || horizon == t || (after && after->at <= top.at)) break;
        if (split_ && pool == kDecodePool && has_landed(e->replica)) break;  // its next step admits them
        Replica& other = replicas[e->replica];
        if (other.speculative() || !other.run_begin(top.at, core::Time{}, requests_) || !other.run_ready()) break;
        const std::uint32_t joined = e->replica;
        ps.run_from[joined] = top.at;
        events_.pop();
        other.run_step(requests_, ps.metrics);
        runs.push_back(joined);
        continue;
      }
      if (tie || !rep.run_ready()) break;
      rep.run_step(requests_, ps.metrics);
    }
  } else {
    ps.busy_ns[first] += (first_end - now).count();
    events_.push(first_end, Phase::kIterationEnd, IterationEnd{pool, first});
    return;
  }
  // Each run's step in flight gets its event, in the order of the steps' starts (the order their
  // Schedule events would have run and pushed them).
  std::sort(runs.begin(), runs.end(), [&](std::uint32_t a, std::uint32_t b) {
    return replicas[a].run_started_at() < replicas[b].run_started_at();
  });
  for (std::uint32_t r : runs) {
    replicas[r].run_finish(requests_);
    ps.busy_ns[r] += (replicas[r].run_end_at() - ps.run_from[r]).count();
    events_.push(replicas[r].run_end_at(), Phase::kIterationEnd, IterationEnd{pool, r});
  }
}

core::Time Simulation::next_event_at() {
  while (!events_.empty()) {
    const auto& top = events_.top();
    const auto* t = std::get_if<QueueTimeout>(&top.payload);
    if (!t) return top.at;
    const Request& r = requests_[t->id];
    // A request may still time out until it streams a token or ends (one between the pools may
    // still be preempted back into a queue).
    if (!r.ended && r.num_output == 0) return top.at;
    events_.pop();  // on_timeout() would return at once, whenever it ran
  }
  return core::kNever;
}

void Simulation::on_iteration_end(core::Time now, std::uint8_t pool, std::uint32_t replica) {
  Pool& ps = pools_[pool];
  finished_.clear();
  ps.replicas[replica].finish_iteration(now, requests_, acceptance_rng_, ps.metrics, finished_);
  if (pool + 1u < pools_.size()) {
    for (RequestId id : finished_) hand_off(now, id);  // its prompt is done: on to the decode pool
  } else {
    for (RequestId id : finished_) terminate(now, id, RequestState::kCompleted);
    if (split_) start_transfers(now, replica);  // blocks freed
  }
  kick(now, pool, replica);
}

void Simulation::handle(core::Time now, const Payload& p) {
  struct Visitor {
    Simulation& sim;
    core::Time now;
    void operator()(const SessionStart&) const { sim.clients_.on_session_start(now, sim); }
    void operator()(const UserStart&) const { sim.clients_.on_user_start(now, sim); }
    void operator()(const TurnArrival& e) const { sim.clients_.on_turn_arrival(now, e.session, sim); }
    void operator()(const QueueTimeout& e) const { sim.on_timeout(now, e.id); }
    void operator()(const FrontendDone& e) const { sim.dispatch(now, e.id); }
    void operator()(const IterationEnd& e) const { sim.on_iteration_end(now, e.pool, e.replica); }
    void operator()(const Schedule& e) const { sim.on_schedule(now, e.pool, e.replica); }
    void operator()(const TransferDone& e) const { sim.on_transfer_done(now, e.id); }
  };
  std::visit(Visitor{*this, now}, p);
}

ServingSummary Simulation::run() {
  start();
  while (!advance(std::numeric_limits<std::int64_t>::max())) {
  }
  return finish();
}

void Simulation::start() {
  if (ran_) throw std::logic_error("Simulation::run() called twice");
  ran_ = true;
  clients_.start(*this);
}

bool Simulation::advance(std::int64_t max_events) {
  if (!ran_) throw std::logic_error("Simulation::advance() before start()");
  for (std::int64_t n = 0; n < max_events && !events_.empty(); ++n) {
    auto ev = events_.pop();
    if (ev.at == last_at_) {
      if (++same_instant_ > max_events_at_one_instant_) {
        throw core::InputError("the workload makes no progress: every request fails at once");
      }
    } else {
      last_at_ = ev.at;
      same_instant_ = 0;
    }
    handle(ev.at, ev.payload);
  }
  return events_.empty();
}

ServingSummary Simulation::finish() {
  if (!events_.empty()) throw std::logic_error("Simulation::finish() before the last event");
  if (summarised_) throw std::logic_error("Simulation::finish() called twice");
  summarised_ = true;
  for (const auto& r : requests_) {
    if (!r.ended) throw std::logic_error("a request never reached a terminal state");
  }

  // Latencies, throughput, batch size and KV use are the last pool's: the one that streams the
  // tokens and holds the running requests longest (per-pool figures are in `disaggregated`).
  const Pool& last = pools_.back();
  ServingMetrics& m = pools_.back().metrics;
  m.flush_itl();
  ServingSummary s;
  s.ttft_s = to_latency(metrics::summarize(m.ttft_s));
  s.tpot_s = to_latency(metrics::summarize(m.tpot_s));
  s.e2e_s = to_latency(metrics::summarize(m.e2e_s));
  s.itl_s = to_latency(m.itl_ns.summary(), 1e-9);
  s.num_gpus = 0;
  for (const Pool& pool : pools_) s.num_gpus += static_cast<int>(pool.replicas.size()) * pool.gpus_per_replica;
  const double window_s = core::to_seconds(last_terminal_at_ - m.warmup_end);
  if (window_s > 0) {
    s.output_tok_per_s_per_gpu = static_cast<double>(m.window_output_tokens) / window_s / s.num_gpus;
  }
  if (!m.interactivity.empty()) {
    metrics::sort_samples(m.interactivity);
    s.p90_interactivity_tok_per_s_per_user = metrics::percentile_of_sorted(m.interactivity, 10);
  }
  s.requests_arrived = arrived_;
  s.requests_completed = completed_;
  s.requests_rejected = rejected_;
  s.requests_timed_out = timed_out_;
  s.requests_failed = rejected_ + timed_out_ + failed_other_;
  s.requests_exceeding_context = exceeding_context_;
  s.requests_exceeding_kv_cache = exceeding_kv_cache_;
  s.input_tokens = input_tokens_;
  s.cached_input_tokens = cached_input_tokens_;
  s.output_tokens = output_tokens_;
  s.prefix_cache_hit_rate =
      input_tokens_ > 0 ? static_cast<double>(cached_input_tokens_) / static_cast<double>(input_tokens_) : 0.0;
  s.simulated_time_s = core::to_seconds(last_terminal_at_);
  if (m.num_iterations > 0) {
    s.mean_batch_size = m.sum_batch_seqs / static_cast<double>(m.num_iterations);
    s.kv_utilization_mean = m.sum_kv_utilization / static_cast<double>(m.num_iterations);
  }
  // The weakest provenance of the pools' steps; with no step, of their calibrations.
  bool stepped = false;
  s.provenance = perf::Provenance::kMeasured;
  for (const Pool& pool : pools_) {
    if (pool.metrics.num_iterations == 0) continue;
    s.provenance = perf::weaker(s.provenance, pool.metrics.provenance);
    stepped = true;
  }
  if (!stepped) {
    for (const Pool& pool : pools_) s.provenance = perf::weaker(s.provenance, pool.calibration.provenance);
  }
  s.time_by_op_s = pools_.front().metrics.time_by_op_s;
  s.num_iterations = 0;
  s.num_preemptions = 0;
  s.peak_running_seqs = 0;
  for (std::size_t i = 0; i < pools_.size(); ++i) {
    const ServingMetrics& pm = pools_[i].metrics;
    s.num_iterations += pm.num_iterations;
    s.num_preemptions += pm.num_preemptions;
    s.peak_running_seqs = std::max(s.peak_running_seqs, pm.peak_running_seqs);
    for (std::size_t op = 0; i > 0 && op < s.time_by_op_s.size(); ++op) s.time_by_op_s[op] += pm.time_by_op_s[op];
    s.requests_per_replica.insert(s.requests_per_replica.end(), pools_[i].routed.begin(), pools_[i].routed.end());
  }
  s.max_num_seqs = last.params.max_num_seqs;
  s.kv_capacity_tokens_per_replica = last.kv_capacity_tokens;
  if (split_) s.disaggregated = disaggregated_stats(s.simulated_time_s);
  return s;
}

std::int64_t Simulation::kv_blocks_in_use() const {
  std::int64_t n = 0;
  for (const Pool& pool : pools_) {
    for (const auto& r : pool.replicas) n += r.kv().num_used();
  }
  return n;
}

bool Simulation::kv_invariants_hold() const {
  // Blocks a live request holds are on the replica it is bound to now (when split: the decode
  // replica once handed off, else the prefill one).
  std::vector<std::vector<std::int64_t>> refs;
  for (const Pool& pool : pools_) refs.emplace_back(pool.replicas.size(), 0);
  for (std::size_t i = 0; i < requests_.size(); ++i) {
    const Request& r = requests_[i];
    if (r.replica < 0 || r.blocks.empty()) continue;
    refs[pool_of(static_cast<RequestId>(i))][static_cast<std::size_t>(r.replica)] +=
        static_cast<std::int64_t>(r.blocks.size());
  }
  for (std::size_t p = 0; p < pools_.size(); ++p) {
    for (std::size_t i = 0; i < pools_[p].replicas.size(); ++i) {
      const auto& kv = pools_[p].replicas[i].kv();
      if (!kv.check_invariants() || kv.total_references() != refs[p][i]) return false;
    }
  }
  return true;
}

ServingProgress Simulation::progress() const {
  ServingProgress p;
  p.requests_ended = num_terminal_transitions_;
  p.requests_expected = config_.num_requests > 0 ? config_.num_requests + config_.warmup_requests : 0;
  p.simulated_s = core::to_seconds(last_at_);
  p.duration_s = config_.duration_s;
  return p;
}

}  // namespace tycoon::serving
