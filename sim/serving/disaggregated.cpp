#include "sim/serving/disaggregated.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "sim/perf/memory_plan.h"

namespace tycoon::serving {

namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument(what);
}

LatencyStats to_latency(const metrics::SampleSummary& s, double scale = 1.0) {
  return LatencyStats{s.mean * scale, s.p50 * scale, s.p90 * scale, s.p99 * scale};
}

constexpr std::int64_t kMaxEventsAtOneInstant = 50'000'000;

}  // namespace

KvLink resolve_kv_link(KvLinkKind kind, const data::Accelerator& prefill, const data::Accelerator& decode,
                       const data::KvLinkCatalog& links) {
  const std::string_view id = kKvLinkNames[static_cast<std::size_t>(kind)];
  const data::KvLinkCard* card = links.find(id);
  require(card != nullptr, std::string("KV link '") + std::string(id) + "' is not in hardware_db/kv_links.json");
  KvLink l;
  l.kind = kind;
  l.latency_s = card->latency_s;
  switch (card->bandwidth_from) {
    case data::KvLinkBandwidthFrom::kScaleUp:
      require(prefill.id == decode.id, std::string("KV link '") + std::string(id) +
                                           "' joins GPUs of one scale-up domain: " + prefill.id + " and " + decode.id +
                                           " are different chips");
      l.bandwidth_bytes_per_s = std::min(prefill.scale_up.bandwidth_bytes_per_s, decode.scale_up.bandwidth_bytes_per_s);
      break;
    case data::KvLinkBandwidthFrom::kScaleOut:
      require(prefill.scale_out_bandwidth_bytes_per_s > 0,
              prefill.file + ": no scale_out_bandwidth_bytes_per_s for KV link '" + std::string(id) + "'");
      require(decode.scale_out_bandwidth_bytes_per_s > 0,
              decode.file + ": no scale_out_bandwidth_bytes_per_s for KV link '" + std::string(id) + "'");
      l.bandwidth_bytes_per_s =
          std::min(prefill.scale_out_bandwidth_bytes_per_s, decode.scale_out_bandwidth_bytes_per_s);
      break;
    case data::KvLinkBandwidthFrom::kOwn:
      l.bandwidth_bytes_per_s = card->bandwidth_bytes_per_s;
      break;
  }
  return l;
}

void check_kv_link_reach(const perf::Deployment& prefill, int prefill_replicas, const perf::Deployment& decode,
                         int decode_replicas, const KvLink& link) {
  if (link.kind != KvLinkKind::kNvlink) return;
  require(prefill.hardware && decode.hardware, "the KV link check needs both pools' chips");
  require(prefill.hardware->id == decode.hardware->id,
          "an NVLink KV link joins GPUs of one NVLink domain: " + prefill.hardware->id + " and " + decode.hardware->id +
              " are different chips (use infiniband or ethernet)");
  const int gpus = prefill_replicas * prefill.gpus_per_replica() + decode_replicas * decode.gpus_per_replica();
  require(gpus <= prefill.hardware->scale_up.domain_size,
          "an NVLink KV link needs both pools in one NVLink domain: " + std::to_string(gpus) + " GPUs, the " +
              prefill.hardware->id + " domain holds " + std::to_string(prefill.hardware->scale_up.domain_size) +
              " (use infiniband or ethernet)");
}

double kv_transfer_s(std::int64_t prompt_tokens, double prefill_bytes_per_token_per_gpu,
                     double prefill_fixed_bytes_per_gpu, double decode_bytes_per_token_per_gpu,
                     double decode_fixed_bytes_per_gpu, const KvLink& link) {
  const double tokens = static_cast<double>(prompt_tokens);
  const double send = tokens * prefill_bytes_per_token_per_gpu + prefill_fixed_bytes_per_gpu;
  const double receive = tokens * decode_bytes_per_token_per_gpu + decode_fixed_bytes_per_gpu;
  return link.latency_s + std::max(send, receive) / link.bandwidth_bytes_per_s;
}

void DisaggregatedSimulation::setup_pool(PoolState& pool, const perf::Deployment& d, const SchedulerConfig& sc,
                                         int replicas, const perf::CalibrationProfile& cal) {
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
  if (d.spec_decode && k > 0) AcceptanceSampler check(k, d.spec_decode->acceptance_length);

  auto plan = perf::plan_memory(d, sc.max_num_batched_tokens, sc.max_num_seqs);
  require(plan.fits || sc.kv_capacity_tokens > 0, plan.reason);
  require(plan.kv_bytes_per_token > 0, "the serving simulation needs a model with a growing KV cache");
  pool.kv_capacity_tokens = sc.kv_capacity_tokens > 0 ? sc.kv_capacity_tokens : plan.kv_capacity_tokens;
  pool.kv_bytes_per_token_per_gpu = plan.kv_bytes_per_token;
  pool.fixed_bytes_per_gpu = plan.fixed_bytes_per_sequence;
  pool.gpus_per_replica = d.gpus_per_replica();
  ReplicaParams& p = pool.params;
  p.page_tokens = d.kv_page_tokens;
  const std::int64_t num_blocks = pool.kv_capacity_tokens / d.kv_page_tokens;
  require(num_blocks >= 1 && num_blocks < (std::int64_t{1} << 31),
          "KV cache of " + std::to_string(pool.kv_capacity_tokens) + " tokens holds no whole page");
  p.num_blocks = static_cast<std::int32_t>(num_blocks);
  const double page_bytes = plan.kv_bytes_per_token * d.kv_page_tokens;
  p.fixed_blocks_per_seq = static_cast<std::int32_t>(std::ceil(plan.fixed_bytes_per_sequence / page_bytes));
  p.max_num_batched_tokens = sc.max_num_batched_tokens;
  p.max_num_seqs = running_limit(sc, d, pool.kv_capacity_tokens);
  p.chunked_prefill = sc.chunked_prefill && d.engine->supports_chunked_prefill;
  p.prefix_caching = sc.prefix_caching && d.engine->supports_prefix_caching;
  p.num_draft_tokens = k;
  p.guaranteed_no_evict = sc.kv_admission == KvAdmission::kGuaranteedNoEvict;
  p.fast_forward_decode = sc.fast_forward_decode;
  pool.replicas.reserve(static_cast<std::size_t>(replicas));
  for (int i = 0; i < replicas; ++i) pool.replicas.emplace_back(p, d, cal);
  pool.schedule_pending.assign(pool.replicas.size(), false);
  pool.routed.assign(pool.replicas.size(), 0);
  pool.busy_ns.assign(pool.replicas.size(), 0);
  pool.metrics.warmup_end = clients_.warmup_end();  // kNever while a request-count warm-up lasts
}

DisaggregatedSimulation::DisaggregatedSimulation(const ServingConfig& config,
                                                 const perf::CalibrationProfile& prefill_calibration)
    : config_(config),
      prefill_cal_(prefill_calibration),
      decode_cal_(config.disaggregated && config.disaggregated->decode.calibration
                      ? *config.disaggregated->decode.calibration
                      : prefill_calibration),
      clients_(config),
      router_(config.router),
      acceptance_rng_(config.seed, core::RngPurpose::kAcceptance) {
  require(config_.disaggregated.has_value(), "DisaggregatedSimulation needs a disaggregated configuration");
  const Disaggregation& dis = *config_.disaggregated;
  const auto& pd = config_.deployment;
  const auto& dd = dis.decode.deployment;
  require(pd.model && dd.model, "the serving simulation needs a model, a chip and an engine");
  require(pd.model->id == dd.model->id, "the prefill pool serves " + pd.model->id + " but the decode pool " +
                                            dd.model->id + ": both pools serve one model");
  require(dis.link.bandwidth_bytes_per_s > 0 && std::isfinite(dis.link.bandwidth_bytes_per_s),
          "the KV link needs a bandwidth > 0 bytes/s");
  require(dis.link.latency_s >= 0 && std::isfinite(dis.link.latency_s), "the KV link latency must be >= 0 seconds");
  setup_pool(prefill_, pd, config_.scheduler, config_.replicas, prefill_cal_);
  setup_pool(decode_, dd, dis.decode.scheduler, dis.decode.replicas, decode_cal_);
  check_kv_link_reach(pd, config_.replicas, dd, dis.decode.replicas, dis.link);

  kv_queue_.resize(decode_.replicas.size());
  landed_.resize(decode_.replicas.size());
  bound_.assign(decode_.replicas.size(), 0);
  sender_free_at_.assign(prefill_.replicas.size(), core::kSimStart);
  receiver_free_at_.assign(decode_.replicas.size(), core::kSimStart);
  queue_timeout_ = core::from_seconds(config_.scheduler.queue_timeout_s);
}

double DisaggregatedSimulation::transfer_s(std::int64_t prompt_tokens) const {
  return kv_transfer_s(prompt_tokens, prefill_.kv_bytes_per_token_per_gpu, prefill_.fixed_bytes_per_gpu,
                       decode_.kv_bytes_per_token_per_gpu, decode_.fixed_bytes_per_gpu, config_.disaggregated->link);
}

void DisaggregatedSimulation::kick(core::Time now, Pool p, std::uint32_t replica) {
  PoolState& ps = pool(p);
  if (ps.replicas[replica].busy() || ps.schedule_pending[replica]) return;
  ps.schedule_pending[replica] = true;
  events_.push(now, Phase::kSchedule, Schedule{p, replica});
}

void DisaggregatedSimulation::schedule_session_start(core::Time at) {
  events_.push(at, Phase::kArrival, SessionStart{});
}

void DisaggregatedSimulation::schedule_user_start(core::Time at) { events_.push(at, Phase::kArrival, UserStart{}); }

void DisaggregatedSimulation::schedule_turn(core::Time at, std::uint32_t session) {
  events_.push(at, Phase::kArrival, TurnArrival{session});
}

void DisaggregatedSimulation::on_warmup_end(core::Time now) {
  prefill_.metrics.warmup_end = now;
  decode_.metrics.warmup_end = now;
}

void DisaggregatedSimulation::count_unrunnable(std::int64_t n) {
  // Each is a request that fails at once: counted as arrived and failed, never routed.
  arrived_ += n;
  failed_other_ += n;
  exceeding_context_ += n;
  num_terminal_transitions_ += n;
}

void DisaggregatedSimulation::admit(core::Time now, std::uint32_t session, const traffic::Turn& turn, bool counted) {
  const auto id = static_cast<RequestId>(requests_.size());
  requests_.emplace_back();
  handoffs_.emplace_back();
  Request& r = requests_.back();
  r.input_tokens = turn.input_tokens;
  r.output_tokens = turn.output_tokens;
  r.content = turn.content;
  r.session = session;
  r.arrived_at = now;
  r.counted = counted;
  ++arrived_;

  // It must fit the context window, and its whole life the decode cache; its prompt (and the
  // token its prefill samples) the prefill cache.
  Handoff& h = handoffs_.back();
  h.output_tokens = r.output_tokens;
  const bool fits_decode = decode_.replicas[0].blocks_for_lifetime(r) <= decode_.params.num_blocks;
  r.output_tokens = 1;
  const bool fits_prefill = prefill_.replicas[0].blocks_for_lifetime(r) <= prefill_.params.num_blocks;
  const bool beyond_window = r.input_tokens + h.output_tokens > config_.deployment.model->max_context_tokens;
  if (beyond_window || !fits_decode || !fits_prefill) {
    r.output_tokens = h.output_tokens;
    ++exceeding_context_;
    if (!beyond_window) ++exceeding_kv_cache_;
    terminate(now, id, RequestState::kFailed);
    return;
  }
  const auto target = static_cast<std::uint32_t>(router_.route(r, prefill_.replicas));
  r.replica = static_cast<std::int32_t>(target);
  h.prefill_replica = static_cast<std::int32_t>(target);
  ++prefill_.routed[target];
  Replica& replica = prefill_.replicas[target];
  if (replica.num_waiting() >= config_.scheduler.max_queue) {
    r.output_tokens = h.output_tokens;
    terminate(now, id, RequestState::kRejected);
    return;
  }
  replica.enqueue(id, r);
  if (queue_timeout_.count() > 0) events_.push(now + queue_timeout_, Phase::kTimeout, QueueTimeout{id});
  kick(now, Pool::kPrefill, target);
}

void DisaggregatedSimulation::terminate(core::Time now, RequestId id, RequestState state) {
  Request& r = requests_[id];
  if (r.ended) throw std::logic_error("request " + std::to_string(id) + " ended twice");
  if (!is_terminal(state)) throw std::logic_error("terminate() needs a terminal state");
  r.ended = true;
  ++num_terminal_transitions_;
  r.state = state;
  r.finished_at = now;
  last_terminal_at_ = std::max(last_terminal_at_, now);
  ServingMetrics& m = decode_.metrics;
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
        const Handoff& h = handoffs_[id];
        ++num_ttft_parts_;
        ttft_prefill_s_sum_ += core::to_seconds(h.prefill_done_at - r.arrived_at);
        ttft_kv_wait_s_sum_ += core::to_seconds(h.reserved_at - h.prefill_done_at);
        ttft_link_wait_s_sum_ += core::to_seconds(h.transfer_start_at - h.reserved_at);
        ttft_transfer_s_sum_ += core::to_seconds(h.transfer_done_at - h.transfer_start_at);
        ttft_first_step_s_sum_ += core::to_seconds(r.first_token_at - h.transfer_done_at);
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
  r.blocks = {};
  // The client: the next turn of the session after a completed one, else the session ends.
  clients_.on_request_end(now, static_cast<std::int64_t>(id), r.session, state == RequestState::kCompleted, *this);
}

void DisaggregatedSimulation::on_timeout(core::Time now, RequestId id) {
  Request& r = requests_[id];
  if (r.state != RequestState::kWaiting || r.num_output > 0 || r.ended) return;
  const Handoff& h = handoffs_[id];
  if (h.decode_replica >= 0) {
    decode_.replicas[static_cast<std::size_t>(h.decode_replica)].forget_waiting();
  } else {
    prefill_.replicas[static_cast<std::size_t>(h.prefill_replica)].forget_waiting();
  }
  terminate(now, id, RequestState::kTimedOut);
}

std::int64_t DisaggregatedSimulation::decode_load(std::uint32_t d) const {
  return decode_.replicas[d].num_outstanding() + bound_[d];
}

void DisaggregatedSimulation::hand_off(core::Time now, RequestId id) {
  Request& r = requests_[id];
  Handoff& h = handoffs_[id];
  // The prefill's sampled token is discarded; the request restarts on the decode side with its
  // prompt's KV and its own output length.
  r.output_tokens = h.output_tokens;
  r.num_output = 0;
  r.num_computed = 0;
  r.first_token_at = {};
  r.last_token_at = {};
  r.num_hashed_blocks = 0;
  r.last_hash = kRootHash;
  r.state = RequestState::kRunning;  // in flight between the pools: no queue timeout applies
  h.prefill_done_at = now;
  std::uint32_t best = 0;
  for (std::uint32_t d = 1; d < decode_.replicas.size(); ++d) {
    if (decode_load(d) < decode_load(best)) best = d;
  }
  h.decode_replica = static_cast<std::int32_t>(best);
  r.replica = static_cast<std::int32_t>(best);
  ++decode_.routed[best];
  ++bound_[best];
  kv_queue_[best].push_back(id);
  start_transfers(now, best);
}

void DisaggregatedSimulation::start_transfers(core::Time now, std::uint32_t d) {
  auto& q = kv_queue_[d];
  while (!q.empty()) {
    const RequestId id = q.front();
    Request& r = requests_[id];
    if (!decode_.replicas[d].reserve_transferred(r)) break;  // FIFO: later ones wait behind it
    q.pop_front();
    Handoff& h = handoffs_[id];
    const auto src = static_cast<std::size_t>(h.prefill_replica);
    const core::Time start = std::max({now, sender_free_at_[src], receiver_free_at_[d]});
    const double seconds = transfer_s(r.input_tokens);
    const core::Time end = start + std::max(core::from_seconds(seconds), core::Duration{1});
    sender_free_at_[src] = end;
    receiver_free_at_[d] = end;
    h.reserved_at = now;
    h.transfer_start_at = start;
    h.transfer_done_at = end;
    ++num_transfers_;
    kv_bytes_ +=
        (static_cast<double>(r.input_tokens) * decode_.kv_bytes_per_token_per_gpu + decode_.fixed_bytes_per_gpu) *
        decode_.gpus_per_replica;
    transfer_s_sum_ += seconds;
    link_wait_s_sum_ += core::to_seconds(start - now);
    kv_wait_s_sum_ += core::to_seconds(now - h.prefill_done_at);
    events_.push(end, Phase::kTransferDone, TransferDone{id});
  }
}

void DisaggregatedSimulation::on_transfer_done(core::Time now, RequestId id) {
  const auto d = static_cast<std::uint32_t>(handoffs_[id].decode_replica);
  landed_[d].push_back(id);
  kick(now, Pool::kDecode, d);
}

void DisaggregatedSimulation::on_schedule(core::Time now, Pool p, std::uint32_t replica) {
  PoolState& ps = pool(p);
  ps.schedule_pending[replica] = false;
  Replica& rep = ps.replicas[replica];
  if (rep.busy()) return;
  if (p == Pool::kDecode) {
    auto& landed = landed_[replica];
    while (!landed.empty() && rep.num_running() < ps.params.max_num_seqs) {
      const RequestId id = landed.front();
      landed.pop_front();
      --bound_[replica];
      rep.admit_transferred(id, requests_[id]);
    }
  }
  auto d = rep.start_iteration(requests_, ps.metrics);
  if (!d) return;
  core::Time end = now + *d;
  if (ps.params.fast_forward_decode)
    end = rep.fast_forward(end, next_event_at(), requests_, acceptance_rng_, ps.metrics);
  ps.busy_ns[replica] += (end - now).count();
  events_.push(end, Phase::kIterationEnd, IterationEnd{p, replica});
}

core::Time DisaggregatedSimulation::next_event_at() {
  while (!events_.empty()) {
    const auto& top = events_.top();
    const auto* t = std::get_if<QueueTimeout>(&top.payload);
    if (!t) return top.at;
    const Request& r = requests_[t->id];
    // A request may still time out until it streams a token or ends; one between the pools
    // may still be preempted back into a queue.
    if (!r.ended && r.num_output == 0) return top.at;
    events_.pop();
  }
  return core::kNever;
}

void DisaggregatedSimulation::on_iteration_end(core::Time now, Pool p, std::uint32_t replica) {
  PoolState& ps = pool(p);
  finished_.clear();
  ps.replicas[replica].finish_iteration(now, requests_, acceptance_rng_, ps.metrics, finished_);
  if (p == Pool::kPrefill) {
    for (RequestId id : finished_) hand_off(now, id);
  } else {
    for (RequestId id : finished_) terminate(now, id, RequestState::kCompleted);
    start_transfers(now, replica);  // blocks freed
  }
  kick(now, p, replica);
}

void DisaggregatedSimulation::handle(core::Time now, const Payload& p) {
  struct Visitor {
    DisaggregatedSimulation& sim;
    core::Time now;
    void operator()(const SessionStart&) const { sim.clients_.on_session_start(now, sim); }
    void operator()(const UserStart&) const { sim.clients_.on_user_start(now, sim); }
    void operator()(const TurnArrival& e) const { sim.clients_.on_turn_arrival(now, e.session, sim); }
    void operator()(const QueueTimeout& e) const { sim.on_timeout(now, e.id); }
    void operator()(const IterationEnd& e) const { sim.on_iteration_end(now, e.pool, e.replica); }
    void operator()(const Schedule& e) const { sim.on_schedule(now, e.pool, e.replica); }
    void operator()(const TransferDone& e) const { sim.on_transfer_done(now, e.id); }
  };
  std::visit(Visitor{*this, now}, p);
}

ServingSummary DisaggregatedSimulation::run() {
  start();
  while (!advance(std::numeric_limits<std::int64_t>::max())) {
  }
  return finish();
}

void DisaggregatedSimulation::start() {
  if (ran_) throw std::logic_error("DisaggregatedSimulation::run() called twice");
  ran_ = true;
  clients_.start(*this);
}

bool DisaggregatedSimulation::advance(std::int64_t max_events) {
  if (!ran_) throw std::logic_error("DisaggregatedSimulation::advance() before start()");
  for (std::int64_t n = 0; n < max_events && !events_.empty(); ++n) {
    auto ev = events_.pop();
    if (ev.at == last_at_) {
      if (++same_instant_ > kMaxEventsAtOneInstant) {
        throw std::invalid_argument("the workload makes no progress: every request fails at once");
      }
    } else {
      last_at_ = ev.at;
      same_instant_ = 0;
    }
    handle(ev.at, ev.payload);
  }
  return events_.empty();
}

namespace {

PoolStats pool_stats(const ServingMetrics& m, int replicas, int gpus_per_replica, std::int64_t busy_ns,
                     double simulated_s, std::int64_t kv_capacity_tokens, const std::vector<std::int64_t>& routed) {
  PoolStats p;
  p.replicas = replicas;
  p.num_gpus = replicas * gpus_per_replica;
  if (simulated_s > 0) p.busy_fraction = core::to_seconds(core::Duration{busy_ns}) / (simulated_s * replicas);
  if (m.num_iterations > 0) {
    p.kv_utilization_mean = m.sum_kv_utilization / static_cast<double>(m.num_iterations);
    p.mean_batch_size = m.sum_batch_seqs / static_cast<double>(m.num_iterations);
  }
  p.num_iterations = m.num_iterations;
  p.num_preemptions = m.num_preemptions;
  p.kv_capacity_tokens_per_replica = kv_capacity_tokens;
  p.peak_running_seqs = m.peak_running_seqs;
  p.requests_per_replica = routed;
  return p;
}

}  // namespace

ServingProgress DisaggregatedSimulation::progress() const {
  ServingProgress p;
  p.requests_ended = num_terminal_transitions_;
  p.requests_expected = config_.num_requests > 0 ? config_.num_requests + config_.warmup_requests : 0;
  p.simulated_s = core::to_seconds(last_at_);
  p.duration_s = config_.duration_s;
  return p;
}

ServingSummary DisaggregatedSimulation::finish() {
  if (!events_.empty()) throw std::logic_error("DisaggregatedSimulation::finish() before the last event");
  if (summarised_) throw std::logic_error("DisaggregatedSimulation::finish() called twice");
  summarised_ = true;
  for (const auto& r : requests_) {
    if (!r.ended) throw std::logic_error("a request never reached a terminal state");
  }
  ServingMetrics& dm = decode_.metrics;
  const ServingMetrics& pm = prefill_.metrics;
  dm.flush_itl();
  ServingSummary s;
  s.ttft_s = to_latency(metrics::summarize(dm.ttft_s));
  s.tpot_s = to_latency(metrics::summarize(dm.tpot_s));
  s.e2e_s = to_latency(metrics::summarize(dm.e2e_s));
  s.itl_s = to_latency(dm.itl_ns.summary(), 1e-9);
  const int prefill_gpus = static_cast<int>(prefill_.replicas.size()) * prefill_.gpus_per_replica;
  const int decode_gpus = static_cast<int>(decode_.replicas.size()) * decode_.gpus_per_replica;
  s.num_gpus = prefill_gpus + decode_gpus;
  const double window_s = core::to_seconds(last_terminal_at_ - dm.warmup_end);
  if (window_s > 0) s.output_tok_per_s_per_gpu = static_cast<double>(dm.window_output_tokens) / window_s / s.num_gpus;
  if (!dm.interactivity.empty()) {
    metrics::sort_samples(dm.interactivity);
    s.p90_interactivity_tok_per_s_per_user = metrics::percentile_of_sorted(dm.interactivity, 10);
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
  // Batch size and KV use are the decode pool's (where requests live longest); per-pool figures
  // are in `disaggregated`.
  if (dm.num_iterations > 0) {
    s.mean_batch_size = dm.sum_batch_seqs / static_cast<double>(dm.num_iterations);
    s.kv_utilization_mean = dm.sum_kv_utilization / static_cast<double>(dm.num_iterations);
  }
  if (pm.num_iterations + dm.num_iterations > 0) {
    perf::Provenance p = perf::Provenance::kMeasured;
    if (pm.num_iterations > 0) p = perf::weaker(p, pm.provenance);
    if (dm.num_iterations > 0) p = perf::weaker(p, dm.provenance);
    s.provenance = p;
  } else {
    s.provenance = perf::weaker(prefill_cal_.provenance, decode_cal_.provenance);
  }
  s.num_iterations = pm.num_iterations + dm.num_iterations;
  s.num_preemptions = pm.num_preemptions + dm.num_preemptions;
  s.peak_running_seqs = std::max(pm.peak_running_seqs, dm.peak_running_seqs);
  s.max_num_seqs = decode_.params.max_num_seqs;  // the pool that holds the running sequences
  for (std::size_t i = 0; i < s.time_by_op_s.size(); ++i) s.time_by_op_s[i] = pm.time_by_op_s[i] + dm.time_by_op_s[i];
  s.requests_per_replica = prefill_.routed;
  s.requests_per_replica.insert(s.requests_per_replica.end(), decode_.routed.begin(), decode_.routed.end());
  s.kv_capacity_tokens_per_replica = decode_.kv_capacity_tokens;

  DisaggregatedStats ds;
  std::int64_t busy = 0;
  for (auto b : prefill_.busy_ns) busy += b;
  ds.prefill = pool_stats(pm, static_cast<int>(prefill_.replicas.size()), prefill_.gpus_per_replica, busy,
                          s.simulated_time_s, prefill_.kv_capacity_tokens, prefill_.routed);
  busy = 0;
  for (auto b : decode_.busy_ns) busy += b;
  ds.decode = pool_stats(dm, static_cast<int>(decode_.replicas.size()), decode_.gpus_per_replica, busy,
                         s.simulated_time_s, decode_.kv_capacity_tokens, decode_.routed);
  ds.prefill.max_num_seqs = prefill_.params.max_num_seqs;
  ds.decode.max_num_seqs = decode_.params.max_num_seqs;
  ds.link = config_.disaggregated->link.kind;
  ds.num_transfers = num_transfers_;
  ds.kv_bytes_transferred = kv_bytes_;
  if (num_transfers_ > 0) {
    const auto n = static_cast<double>(num_transfers_);
    ds.transfer_s_mean = transfer_s_sum_ / n;
    ds.link_wait_s_mean = link_wait_s_sum_ / n;
    ds.kv_wait_s_mean = kv_wait_s_sum_ / n;
  }
  if (num_ttft_parts_ > 0) {
    const auto n = static_cast<double>(num_ttft_parts_);
    ds.ttft_prefill_s_mean = ttft_prefill_s_sum_ / n;
    ds.ttft_kv_wait_s_mean = ttft_kv_wait_s_sum_ / n;
    ds.ttft_link_wait_s_mean = ttft_link_wait_s_sum_ / n;
    ds.ttft_transfer_s_mean = ttft_transfer_s_sum_ / n;
    ds.ttft_first_step_s_mean = ttft_first_step_s_sum_ / n;
  }
  s.disaggregated = ds;
  return s;
}

std::int64_t DisaggregatedSimulation::kv_blocks_in_use() const {
  std::int64_t n = 0;
  for (const auto& r : prefill_.replicas) n += r.kv().num_used();
  for (const auto& r : decode_.replicas) n += r.kv().num_used();
  return n;
}

bool DisaggregatedSimulation::kv_invariants_hold() const {
  // Blocks a live request holds are on the replica it is bound to now: the decode replica once
  // handed off, else the prefill one.
  std::vector<std::int64_t> prefill_refs(prefill_.replicas.size(), 0), decode_refs(decode_.replicas.size(), 0);
  for (std::size_t i = 0; i < requests_.size(); ++i) {
    const auto n = static_cast<std::int64_t>(requests_[i].blocks.size());
    if (n == 0) continue;
    const Handoff& h = handoffs_[i];
    if (h.decode_replica >= 0) {
      decode_refs[static_cast<std::size_t>(h.decode_replica)] += n;
    } else {
      prefill_refs[static_cast<std::size_t>(h.prefill_replica)] += n;
    }
  }
  for (std::size_t i = 0; i < prefill_.replicas.size(); ++i) {
    const auto& kv = prefill_.replicas[i].kv();
    if (!kv.check_invariants() || kv.total_references() != prefill_refs[i]) return false;
  }
  for (std::size_t i = 0; i < decode_.replicas.size(); ++i) {
    const auto& kv = decode_.replicas[i].kv();
    if (!kv.check_invariants() || kv.total_references() != decode_refs[i]) return false;
  }
  return true;
}

}  // namespace tycoon::serving
