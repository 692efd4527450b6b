// What the serving simulation measures while it runs; summarised into ServingSummary at the end.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sim/core/time.h"
#include "sim/metrics/sample_stats.h"
#include "sim/perf/iteration_cost.h"
#include "sim/serving/request.h"

namespace tycoon::serving {

struct ServingMetrics {
  core::Time warmup_end{};  // latencies of requests arriving before it are not counted

  // Per counted request (seconds); interactivity = 1 / TPOT (tokens per second per user).
  std::vector<double> ttft_s, tpot_s, e2e_s, interactivity;
  metrics::LogHistogram itl_ns;  // gaps between streamed chunks of counted requests

  std::int64_t window_output_tokens = 0;  // emitted at or after warmup_end
  core::Time last_event_at{};

  std::int64_t num_iterations = 0;
  double sum_batch_seqs = 0;
  double sum_kv_utilization = 0;
  std::array<double, perf::kNumOpClasses> time_by_op_s{};
  std::int64_t num_preemptions = 0;
  std::int64_t peak_running_seqs = 0;  // most sequences one replica had running at once
  perf::Provenance provenance = perf::Provenance::kMeasured;
  std::int64_t pending_itl_ns_ = -1;
  std::int64_t pending_itl_count_ = 0;

  // `n` tokens of `r` streamed at `now`.
  void on_tokens(Request& r, std::int64_t n, core::Time now) {
    if (r.num_output == 0) {
      r.first_token_at = now;
    } else if (r.counted) {
      record_itl((now - r.last_token_at).count());
    }
    r.last_token_at = now;
    r.num_output += n;
    if (now >= warmup_end) window_output_tokens += n;
  }

  // Equal gaps come in runs (every sequence of a decode step waited the same step), so they are
  // counted together: one histogram update per run.
  void record_itl(std::int64_t gap_ns) {
    if (gap_ns == pending_itl_ns_) {
      ++pending_itl_count_;
      return;
    }
    flush_itl();
    pending_itl_ns_ = gap_ns;
    pending_itl_count_ = 1;
  }
  // The same as `count` calls of record_itl(gap_ns) (none when count is 0).
  void record_itl(std::int64_t gap_ns, std::int64_t count) {
    if (count <= 0) return;
    if (gap_ns == pending_itl_ns_) {
      pending_itl_count_ += count;
      return;
    }
    flush_itl();
    pending_itl_ns_ = gap_ns;
    pending_itl_count_ = count;
  }
  void flush_itl() {
    if (pending_itl_count_ > 0) itl_ns.record(pending_itl_ns_, pending_itl_count_);
    pending_itl_count_ = 0;
  }

  void on_iteration(const perf::IterationCost& cost, std::size_t batch_seqs, double kv_utilization) {
    ++num_iterations;
    sum_batch_seqs += static_cast<double>(batch_seqs);
    sum_kv_utilization += kv_utilization;
    for (std::size_t i = 0; i < perf::kNumOpClasses; ++i) time_by_op_s[i] += cost.ops[i].time_s;
    provenance = perf::weaker(provenance, cost.provenance);
  }
  // The same for a step priced by perf::DecodeStepModel::step_times.
  void on_iteration(const perf::DecodeStepTimes& cost, std::size_t batch_seqs, double kv_utilization) {
    ++num_iterations;
    sum_batch_seqs += static_cast<double>(batch_seqs);
    sum_kv_utilization += kv_utilization;
    for (std::size_t i = 0; i < perf::kNumOpClasses; ++i) time_by_op_s[i] += cost.time_s[i];
    provenance = perf::weaker(provenance, cost.provenance);
  }
};

}  // namespace tycoon::serving
