#include "sim/serving/disaggregated.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "sim/core/input_error.h"

namespace tycoon::serving {

namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw core::InputError(what);
}

// One pool's figures over a run of `simulated_s` seconds.
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

void KvHandoffs::add_ttft_parts(const Request& r, RequestId id) {
  const Handoff& h = handoffs[id];
  ++num_ttft_parts;
  ttft_prefill_s_sum += core::to_seconds(h.prefill_done_at - r.arrived_at);  // front end, queue and prefill
  ttft_kv_wait_s_sum += core::to_seconds(h.reserved_at - h.prefill_done_at);
  ttft_link_wait_s_sum += core::to_seconds(h.transfer_start_at - h.reserved_at);
  ttft_transfer_s_sum += core::to_seconds(h.transfer_done_at - h.transfer_start_at);
  ttft_first_step_s_sum += core::to_seconds(r.first_token_at - h.transfer_done_at);
}

void Simulation::add_decode_pool(const perf::CalibrationProfile& prefill_calibration) {
  const Disaggregation& dis = *config_.disaggregated;
  const auto& pd = config_.deployment;
  const auto& dd = dis.decode.deployment;
  require(dd.model != nullptr, "the serving simulation needs a model, a chip and an engine");
  require(pd.model->id == dd.model->id, "the prefill pool serves " + pd.model->id + " but the decode pool " +
                                            dd.model->id + ": both pools serve one model");
  require(dis.link.bandwidth_bytes_per_s > 0 && std::isfinite(dis.link.bandwidth_bytes_per_s),
          "the KV link needs a bandwidth > 0 bytes/s");
  require(dis.link.latency_s >= 0 && std::isfinite(dis.link.latency_s), "the KV link latency must be >= 0 seconds");
  add_pool(dd, dis.decode.scheduler, dis.decode.replicas,
           dis.decode.calibration ? *dis.decode.calibration : prefill_calibration);
  check_kv_link_reach(pd, config_.replicas, dd, dis.decode.replicas, dis.link);

  split_ = std::make_unique<KvHandoffs>();
  const std::size_t num_decode = pools_[kDecodePool].replicas.size();
  split_->kv_queue.resize(num_decode);
  split_->landed.resize(num_decode);
  split_->bound.assign(num_decode, 0);
  split_->sender_free_at.assign(pools_[kPrefillPool].replicas.size(), core::kSimStart);
  split_->receiver_free_at.assign(num_decode, core::kSimStart);
}

double Simulation::transfer_s(std::int64_t prompt_tokens) const {
  if (!split_) throw std::logic_error("transfer_s() needs a disaggregated deployment");
  const Pool& prefill = pools_[kPrefillPool];
  const Pool& decode = pools_[kDecodePool];
  return kv_transfer_s(prompt_tokens, prefill.kv_bytes_per_token_per_gpu, prefill.fixed_bytes_per_gpu,
                       decode.kv_bytes_per_token_per_gpu, decode.fixed_bytes_per_gpu, config_.disaggregated->link);
}

void Simulation::hand_off(core::Time now, RequestId id) {
  Request& r = requests_[id];
  KvHandoffs& split = *split_;
  KvHandoffs::Handoff& h = split.handoffs[id];
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
  h.prefill_replica = r.replica;
  // The decode replica with the fewest outstanding requests (running, waiting and bound to it).
  Pool& decode = pools_[kDecodePool];
  const auto load = [&](std::uint32_t d) { return decode.replicas[d].num_outstanding() + split.bound[d]; };
  std::uint32_t best = 0;
  for (std::uint32_t d = 1; d < decode.replicas.size(); ++d) {
    if (load(d) < load(best)) best = d;
  }
  h.decode_replica = static_cast<std::int32_t>(best);
  r.replica = static_cast<std::int32_t>(best);
  ++decode.routed[best];
  ++split.bound[best];
  split.kv_queue[best].push_back(id);
  start_transfers(now, best);
}

void Simulation::start_transfers(core::Time now, std::uint32_t d) {
  KvHandoffs& split = *split_;
  Pool& decode = pools_[kDecodePool];
  auto& q = split.kv_queue[d];
  while (!q.empty()) {
    const RequestId id = q.front();
    Request& r = requests_[id];
    if (!decode.replicas[d].reserve_transferred(r)) break;  // FIFO: later ones wait behind it
    q.pop_front();
    KvHandoffs::Handoff& h = split.handoffs[id];
    const auto src = static_cast<std::size_t>(h.prefill_replica);
    const core::Time start = std::max({now, split.sender_free_at[src], split.receiver_free_at[d]});
    const double seconds = transfer_s(r.input_tokens);
    const core::Time end = start + std::max(core::from_seconds(seconds), core::Duration{1});
    split.sender_free_at[src] = end;
    split.receiver_free_at[d] = end;
    h.reserved_at = now;
    h.transfer_start_at = start;
    h.transfer_done_at = end;
    ++split.num_transfers;
    split.kv_bytes +=
        (static_cast<double>(r.input_tokens) * decode.kv_bytes_per_token_per_gpu + decode.fixed_bytes_per_gpu) *
        decode.gpus_per_replica;
    split.transfer_s_sum += seconds;
    split.link_wait_s_sum += core::to_seconds(start - now);
    split.kv_wait_s_sum += core::to_seconds(now - h.prefill_done_at);
    events_.push(end, Phase::kTransferDone, TransferDone{id});
  }
}

void Simulation::on_transfer_done(core::Time now, RequestId id) {
  const auto d = static_cast<std::uint32_t>(split_->handoffs[id].decode_replica);
  split_->landed[d].push_back(id);
  kick(now, kDecodePool, d);
}

void Simulation::admit_landed(std::uint32_t d) {
  Pool& decode = pools_[kDecodePool];
  Replica& rep = decode.replicas[d];
  auto& landed = split_->landed[d];
  while (!landed.empty() && rep.num_running() < decode.params.max_num_seqs) {
    const RequestId id = landed.front();
    landed.pop_front();
    --split_->bound[d];
    rep.admit_transferred(id, requests_[id]);
  }
}

bool Simulation::has_landed(std::uint32_t d) const { return !split_->landed[d].empty(); }

DisaggregatedStats Simulation::disaggregated_stats(double simulated_s) const {
  const KvHandoffs& split = *split_;
  const auto stats = [&](const Pool& pool) {
    std::int64_t busy = 0;
    for (auto b : pool.busy_ns) busy += b;
    PoolStats p = pool_stats(pool.metrics, static_cast<int>(pool.replicas.size()), pool.gpus_per_replica, busy,
                             simulated_s, pool.kv_capacity_tokens, pool.routed);
    p.max_num_seqs = pool.params.max_num_seqs;
    return p;
  };
  DisaggregatedStats ds;
  ds.prefill = stats(pools_[kPrefillPool]);
  ds.decode = stats(pools_[kDecodePool]);
  ds.link = config_.disaggregated->link.kind;
  ds.num_transfers = split.num_transfers;
  ds.kv_bytes_transferred = split.kv_bytes;
  if (split.num_transfers > 0) {
    const auto n = static_cast<double>(split.num_transfers);
    ds.transfer_s_mean = split.transfer_s_sum / n;
    ds.link_wait_s_mean = split.link_wait_s_sum / n;
    ds.kv_wait_s_mean = split.kv_wait_s_sum / n;
  }
  if (split.num_ttft_parts > 0) {
    const auto n = static_cast<double>(split.num_ttft_parts);
    ds.ttft_prefill_s_mean = split.ttft_prefill_s_sum / n;
    ds.ttft_kv_wait_s_mean = split.ttft_kv_wait_s_sum / n;
    ds.ttft_link_wait_s_mean = split.ttft_link_wait_s_sum / n;
    ds.ttft_transfer_s_mean = split.ttft_transfer_s_sum / n;
    ds.ttft_first_step_s_mean = split.ttft_first_step_s_sum / n;
  }
  return ds;
}

}  // namespace tycoon::serving
