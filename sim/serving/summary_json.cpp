#include "sim/serving/summary_json.h"

#include "sim/perf/deployment_json.h"
#include "sim/serving/benchmark_run.h"

#include <cmath>
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

nlohmann::json run_config_json(const ServingConfig& c, const ServingSummary& r) {
  const auto& s = c.scheduler;
  const auto kind = c.workload.kind;
  const bool open_loop = c.arrival.kind != ArrivalKind::kClosedLoop;
  auto name = [](std::string_view v) { return std::string(v); };
  nlohmann::json config = perf::describe_deployment(c.deployment);
  config.update(nlohmann::json{
      {"replicas", c.replicas},
      {"router", name(kRouterNames[static_cast<std::size_t>(c.router)])},
      {"num_gpus", r.num_gpus},
      {"workload", name(kWorkloadNames[static_cast<std::size_t>(kind)])},
      {"isl", c.workload.input_tokens},
      {"osl", c.workload.output_tokens},
      {"trace", c.workload.trace_path},
      {"arrival", c.workload.trace_timestamps ? std::string("trace-timestamps")
                                              : name(kArrivalNames[static_cast<std::size_t>(c.arrival.kind)])},
      {"concurrency", open_loop ? 0 : c.arrival.concurrency},
      {"rate_per_s", c.arrival.rate_per_s},
      {"num_requests", c.num_requests},
      {"duration_s", c.duration_s},
      {"warmup_s", c.warmup_s},
      {"warmup_requests", c.warmup_requests},
      {"api_server", c.api_server},
      {"ramp_up_s", c.arrival.ramp_up_s},
      {"idle_cap_s", c.arrival.idle_cap_s},
      {"pause_cap_s", c.workload.max_pause_s},
      {"pause_basis", kind == WorkloadKind::kAgenticCoding
                          ? nlohmann::json(traffic::kPauseBasisNames[static_cast<std::size_t>(c.workload.pause_basis)])
                          : nlohmann::json(nullptr)},
      {"agentx_timing", kind != WorkloadKind::kAgenticCoding ? nlohmann::json(nullptr)
                        : agentx_timing_of(c)                ? nlohmann::json(std::string(agentx_timing_of(c)->name))
                                                             : nlohmann::json("custom")},
      {"random_range_ratio",
       kind == WorkloadKind::kRandom ? nlohmann::json(c.workload.input_range_ratio) : nlohmann::json(nullptr)},
      {"output_range_ratio",
       kind == WorkloadKind::kRandom ? nlohmann::json(c.workload.output_range_ratio) : nlohmann::json(nullptr)},
      {"seed", c.seed},
      {"max_num_seqs", r.disaggregated ? r.disaggregated->prefill.max_num_seqs : r.max_num_seqs},
      {"max_num_seqs_from", s.running_limit_from_engine ? "the engine, from its KV pool" : "the setting"},
      {"max_num_batched_tokens", s.max_num_batched_tokens},
      {"chunked_prefill", s.chunked_prefill},
      {"prefix_caching", s.prefix_caching},
      {"kv_capacity_tokens_per_replica", r.kv_capacity_tokens_per_replica},
      {"kv_admission", name(kKvAdmissionNames[static_cast<std::size_t>(s.kv_admission)])},
      {"batch_wait_iters", s.batch_wait_iters},
      {"batch_wait_tokens_ratio", s.batch_wait_tokens_ratio},
      {"recv_interval", s.recv_interval},
      {"async_scheduling", s.async_scheduling},
      {"queue_timeout_s", s.queue_timeout_s},
      {"max_queue", s.max_queue}});
  if (c.disaggregated) {
    config["decode"] = decode_pool_json(c.disaggregated->decode);
    if (r.disaggregated) config["decode"]["max_num_seqs"] = r.disaggregated->decode.max_num_seqs;
    config["kv_link"] = kv_link_json(c.disaggregated->link);
    config["disaggregation_stats"] = disaggregated_stats_json(*r.disaggregated);
  }
  return config;
}

nlohmann::json steady_state_json(const SteadyState& s) {
  auto ms_or_null = [](double v) { return std::isfinite(v) ? nlohmann::json(1e3 * v) : nlohmann::json(nullptr); };
  nlohmann::json j = {{"stationary", s.stationary},
                      {"warmup_requests", s.warmup_requests},
                      {"warmup_s", s.warmup_s},
                      {"measured_requests", s.measured_requests},
                      {"ttft_p90_ms", 1e3 * s.ttft_p90_s.value},
                      {"ttft_p90_half_width_ms", ms_or_null(s.ttft_p90_s.half_width)},
                      {"tpot_p90_ms", 1e3 * s.tpot_p90_s.value},
                      {"tpot_p90_half_width_ms", ms_or_null(s.tpot_p90_s.half_width)},
                      {"num_requests", s.num_requests},
                      {"num_runs", s.num_runs}};
  if (!s.stationary) j["why_not"] = s.why_not;
  return j;
}

}  // namespace tycoon::serving
