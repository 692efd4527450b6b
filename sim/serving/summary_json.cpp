#include "sim/serving/summary_json.h"

#include <string>

namespace tycoon::serving {

namespace {

nlohmann::json pool_json(const PoolStats& p) {
  return {{"replicas", p.replicas},
          {"num_gpus", p.num_gpus},
          {"busy_fraction", p.busy_fraction},
          {"kv_utilization_mean", p.kv_utilization_mean},
          {"mean_batch_size", p.mean_batch_size},
          {"num_iterations", p.num_iterations},
          {"num_preemptions", p.num_preemptions},
          {"kv_capacity_tokens_per_replica", p.kv_capacity_tokens_per_replica},
          {"max_num_seqs", p.max_num_seqs},
          {"peak_running_seqs", p.peak_running_seqs},
          {"requests_per_replica", p.requests_per_replica}};
}

}  // namespace

nlohmann::json latency_ms_json(const LatencyStats& s) {
  return {{"mean", s.mean * 1e3}, {"p50", s.p50 * 1e3}, {"p90", s.p90 * 1e3}, {"p99", s.p99 * 1e3}};
}

nlohmann::json summary_json(const ServingSummary& r) {
  nlohmann::json by_op = nlohmann::json::object();
  for (std::size_t i = 0; i < perf::kNumOpClasses; ++i) {
    if (r.time_by_op_s[i] > 0) by_op[std::string(perf::kOpClassNames[i])] = r.time_by_op_s[i];
  }
  return {{"ttft_ms", latency_ms_json(r.ttft_s)},
          {"tpot_ms", latency_ms_json(r.tpot_s)},
          {"itl_ms", latency_ms_json(r.itl_s)},
          {"e2e_ms", latency_ms_json(r.e2e_s)},
          {"output_tok_per_s_per_gpu", r.output_tok_per_s_per_gpu},
          {"p90_interactivity_tok_per_s_per_user", r.p90_interactivity_tok_per_s_per_user},
          {"requests_arrived", r.requests_arrived},
          {"requests_completed", r.requests_completed},
          {"requests_failed", r.requests_failed},
          {"requests_rejected", r.requests_rejected},
          {"requests_timed_out", r.requests_timed_out},
          {"requests_exceeding_context", r.requests_exceeding_context},
          {"requests_exceeding_kv_cache", r.requests_exceeding_kv_cache},
          {"requests_per_replica", r.requests_per_replica},
          {"input_tokens", r.input_tokens},
          {"cached_input_tokens", r.cached_input_tokens},
          {"output_tokens", r.output_tokens},
          {"prefix_cache_hit_rate", r.prefix_cache_hit_rate},
          {"mean_batch_size", r.mean_batch_size},
          {"kv_utilization_mean", r.kv_utilization_mean},
          {"num_iterations", r.num_iterations},
          {"num_preemptions", r.num_preemptions},
          {"max_num_seqs", r.max_num_seqs},
          {"peak_running_seqs", r.peak_running_seqs},
          {"time_by_op_s", by_op},
          {"simulated_time_s", r.simulated_time_s},
          {"provenance", std::string(perf::to_string(r.provenance))}};
}

nlohmann::json disaggregated_stats_json(const DisaggregatedStats& st) {
  return {{"prefill", pool_json(st.prefill)},
          {"decode", pool_json(st.decode)},
          {"num_transfers", st.num_transfers},
          {"kv_bytes_transferred", st.kv_bytes_transferred},
          {"transfer_ms_mean", st.transfer_s_mean * 1e3},
          {"link_wait_ms_mean", st.link_wait_s_mean * 1e3},
          {"kv_wait_ms_mean", st.kv_wait_s_mean * 1e3},
          {"ttft_breakdown_ms_mean",
           {{"prefill", st.ttft_prefill_s_mean * 1e3},
            {"kv_wait", st.ttft_kv_wait_s_mean * 1e3},
            {"link_wait", st.ttft_link_wait_s_mean * 1e3},
            {"transfer", st.ttft_transfer_s_mean * 1e3},
            {"first_step", st.ttft_first_step_s_mean * 1e3}}}};
}

nlohmann::json decode_pool_json(const DecodePool& pool) {
  const auto& dd = pool.deployment;
  return {{"hardware", dd.hardware->id},
          {"precision", std::string(to_string(dd.precision))},
          {"tensor_parallel", dd.tensor_parallel},
          {"expert_parallel", dd.expert_parallel},
          {"replicas", pool.replicas},
          {"max_num_seqs", pool.scheduler.max_num_seqs},
          {"max_num_batched_tokens", pool.scheduler.max_num_batched_tokens}};
}

nlohmann::json kv_link_json(const KvLink& link) {
  return {{"kind", std::string(kKvLinkNames[static_cast<std::size_t>(link.kind)])},
          {"bandwidth_bytes_per_s_per_gpu", link.bandwidth_bytes_per_s},
          {"latency_s", link.latency_s}};
}

}  // namespace tycoon::serving
