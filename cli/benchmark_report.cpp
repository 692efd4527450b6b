#include "cli/benchmark_report.h"

#include <cstdio>
#include <string>
#include <string_view>

#include "cli/common.h"
#include "sim/perf/deployment_json.h"
#include "sim/serving/disaggregated.h"
#include "sim/traffic/trace.h"

namespace tycoon::cli {

namespace {

std::string name(std::string_view s) { return std::string(s); }

}  // namespace

void print_benchmark_report(const serving::ServingConfig& c, const serving::ServingSummary& r,
                            const perf::CalibrationProfile& cal, double wall_s) {
  const auto& d = c.deployment;
  const auto& s = c.scheduler;
  const auto kind = c.workload.kind;
  const bool open_loop = c.arrival.kind != serving::ArrivalKind::kClosedLoop;
  // "8 x H200" (one replica of TP 8), "2 replicas of 2 x H200": the GPUs a replica spans, then how many.
  const std::string gpus = (c.replicas > 1 ? std::to_string(c.replicas) + " replicas of " : std::string()) +
                           std::to_string(d.tensor_parallel) + " x";
  std::printf("%s on %s %s (%s, %s weights), %s traffic, %s — %s\n", d.model->name.c_str(), gpus.c_str(),
              d.hardware->name.c_str(), d.engine->name.c_str(), name(to_string(d.precision)).c_str(),
              name(serving::kWorkloadNames[static_cast<std::size_t>(kind)]).c_str(),
              open_loop
                  ? ("open loop " + format_fixed(c.arrival.rate_per_s, 2) + "/s").c_str()
                  : (std::to_string(c.arrival.concurrency) + (c.arrival.concurrency == 1 ? " user" : " users")).c_str(),
              name(perf::to_string(r.provenance)).c_str());
  // What the client did, so that a reader can match it with a published harness.
  std::string client;
  if (!open_loop && !c.workload.trace_timestamps) {
    client = std::to_string(c.arrival.concurrency) + " users";
    client += c.arrival.ramp_up_s > 0 ? std::string(" starting over ") + format_fixed(c.arrival.ramp_up_s, 1) + " s"
                                      : std::string(" starting together");
    if (c.num_requests > 0) client += ", " + std::to_string(c.num_requests) + " measured requests";
    if (c.duration_s > 0) client += ", " + format_fixed(c.duration_s, 0) + " s measured";
    if (c.warmup_requests > 0) client += " after " + std::to_string(c.warmup_requests) + " warm-up requests";
    if (c.warmup_s > 0) client += " (the first " + format_fixed(c.warmup_s, 0) + " s not counted)";
    if (c.arrival.idle_cap_s > 0) client += "; the system idle at most " + format_fixed(c.arrival.idle_cap_s, 1) + " s";
  }
  if (kind == serving::WorkloadKind::kAgenticCoding) {
    if (!client.empty()) client += "; ";
    client += c.workload.max_pause_s > 0 ? "recorded pauses capped at " + format_fixed(c.workload.max_pause_s, 0) + " s"
                                         : std::string("recorded pauses uncapped");
    client += c.workload.pause_basis == traffic::PauseBasis::kStartToStart
                  ? " (start-to-start gaps, waited after each answer)"
              : c.workload.pause_basis == traffic::PauseBasis::kEndToStart
                  ? " (end-to-start: the gap less the answer's recorded time)"
                  : " (the recorded think time)";
    const auto* timing = serving::agentx_timing_of(c);
    client += timing ? "; AgentX's " + std::string(timing->name) + " timing (" + std::string(timing->since) + ")"
                     : std::string("; a custom AgentX timing");
  }
  if (kind == serving::WorkloadKind::kRandom) {
    if (!client.empty()) client += "; ";
    client += std::string("lengths uniform in [") + format_fixed(c.workload.input_range_ratio, 2) + ", 1] x " +
              std::to_string(c.workload.input_tokens) + " in / [" + format_fixed(c.workload.output_range_ratio, 2) +
              ", 1] x " + std::to_string(c.workload.output_tokens) + " out";
  }
  if (!client.empty()) std::printf("client: %s\n", client.c_str());
  if (!c.api_server) {
    std::printf("front end: none (--offline: token ids straight to the engine)\n");
  } else if (d.engine->frontend_request_s > 0 || d.engine->tokenize_s_per_input_token > 0) {
    std::printf("front end: %.1f ms per request, tokenization %.2f us per input token on one lane (engine card)\n",
                d.engine->frontend_request_s * 1e3, d.engine->tokenize_s_per_input_token * 1e6);
  }
  if (d.spec_decode) {
    std::printf("speculative decoding: %s, %d drafts, acceptance %.2f\n", d.spec_decode->method.c_str(),
                d.spec_decode->num_draft_tokens, d.spec_decode->acceptance_length);
  }
  if (const auto* k = d.w4a16_moe_kernel()) {
    std::printf(
        "experts: %s's %s W4A16 kernel (--mxfp4-backend), %.4f of the curves' compute and %.4f of their "
        "weight streaming (engine card; outside the validation set)\n",
        d.engine->name.c_str(), d.mxfp4_backend->c_str(), k->compute_share, k->memory_share);
  }
  std::printf("\n  %-8s %10s %10s %10s %10s\n", "ms", "mean", "p50", "p90", "p99");
  auto row = [](const char* label, const serving::LatencyStats& l) {
    std::printf("  %-8s %10.2f %10.2f %10.2f %10.2f\n", label, l.mean * 1e3, l.p50 * 1e3, l.p90 * 1e3, l.p99 * 1e3);
  };
  row("TTFT", r.ttft_s);
  row("TPOT", r.tpot_s);
  row("ITL", r.itl_s);
  row("E2E", r.e2e_s);
  std::printf("\n  output throughput      %10.1f tok/s/GPU (%d GPUs)\n", r.output_tok_per_s_per_gpu, r.num_gpus);
  std::printf("  P90 interactivity      %10.1f tok/s/user\n", r.p90_interactivity_tok_per_s_per_user);
  std::printf(
      "  requests               %lld arrived, %lld completed, %lld failed (%lld rejected, %lld timed out, "
      "%lld beyond the context window, %lld larger than a replica's whole KV cache of %lld tokens)\n",
      static_cast<long long>(r.requests_arrived), static_cast<long long>(r.requests_completed),
      static_cast<long long>(r.requests_failed), static_cast<long long>(r.requests_rejected),
      static_cast<long long>(r.requests_timed_out), static_cast<long long>(r.requests_beyond_context_window()),
      static_cast<long long>(r.requests_exceeding_kv_cache), static_cast<long long>(r.kv_capacity_tokens_per_replica));
  std::printf("  prefix cache hit rate  %10.1f%%\n", 100 * r.prefix_cache_hit_rate);
  std::printf("  mean batch             %10.1f sequences, KV %.1f%% used, %lld preemptions\n", r.mean_batch_size,
              100 * r.kv_utilization_mean, static_cast<long long>(r.num_preemptions));
  if (r.disaggregated) {
    const auto& dp = r.disaggregated->decode;
    std::printf(
        "  running limit          %10d sequences per decode replica (%s), at most %lld ran at once\n", dp.max_num_seqs,
        c.disaggregated->decode.scheduler.running_limit_from_engine ? "the engine's, from its KV pool" : "max_num_seqs",
        static_cast<long long>(dp.peak_running_seqs));
  } else {
    std::printf("  running limit          %10d sequences (%s), at most %lld ran at once\n", r.max_num_seqs,
                s.running_limit_from_engine ? "the engine's, from its KV pool" : "max_num_seqs",
                static_cast<long long>(r.peak_running_seqs));
  }
  std::printf("  simulated              %10.1f s in %.3f s wall (%.0fx real time)\n", r.simulated_time_s, wall_s,
              wall_s > 0 ? r.simulated_time_s / wall_s : 0.0);
  if (const auto shares = perf::time_shares(r.time_by_op_s); !shares.empty()) {
    std::printf("\n  where the time goes (share of engine time):\n");
    for (const auto& sh : shares)
      std::printf("    %-18s %5.1f%%\n", name(perf::to_string(sh.op)).c_str(), 100 * sh.share);
  }
  if (r.disaggregated) {
    const auto& dd = c.disaggregated->decode.deployment;
    const auto& st = *r.disaggregated;
    std::printf("\n  disaggregated: %d x %d %s prefill -> %d x %d %s decode over %s\n", st.prefill.replicas,
                d.tensor_parallel, d.hardware->id.c_str(), st.decode.replicas, dd.tensor_parallel,
                dd.hardware->id.c_str(),
                name(serving::kKvLinkNames[static_cast<std::size_t>(c.disaggregated->link.kind)]).c_str());
    std::printf("    %-8s %6.1f%% busy, KV %.1f%% used, mean batch %.1f, %lld preemptions\n", "prefill",
                100 * st.prefill.busy_fraction, 100 * st.prefill.kv_utilization_mean, st.prefill.mean_batch_size,
                static_cast<long long>(st.prefill.num_preemptions));
    std::printf("    %-8s %6.1f%% busy, KV %.1f%% used, mean batch %.1f, %lld preemptions\n", "decode",
                100 * st.decode.busy_fraction, 100 * st.decode.kv_utilization_mean, st.decode.mean_batch_size,
                static_cast<long long>(st.decode.num_preemptions));
    std::printf("    KV transfers %lld, %.3f ms each (mean), %.3f ms waiting for the link, %.3f ms for decode KV\n",
                static_cast<long long>(st.num_transfers), st.transfer_s_mean * 1e3, st.link_wait_s_mean * 1e3,
                st.kv_wait_s_mean * 1e3);
    std::printf(
        "    mean TTFT = %.1f ms front end + queue + prefill, %.1f decode KV wait, %.1f link wait, %.1f transfer, "
        "%.1f to the first token on decode\n",
        st.ttft_prefill_s_mean * 1e3, st.ttft_kv_wait_s_mean * 1e3, st.ttft_link_wait_s_mean * 1e3,
        st.ttft_transfer_s_mean * 1e3, st.ttft_first_step_s_mean * 1e3);
    if (c.disaggregated->decode.calibration) {
      std::printf("    decode calibration: %s\n", c.disaggregated->decode.calibration->source.c_str());
    }
  }
  std::printf("\ncalibration: %s\n", cal.source.c_str());
}

}  // namespace tycoon::cli
