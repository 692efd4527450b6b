// The one writer of a serving run's results as JSON (each struct's JSON is written in one place,
// so two writers cannot drift apart): `tycoon benchmark --json` prints these blocks; the sweep stores its own subset
// (analysis::PointPerf), read back by its own reader.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/serving/serving_sim.h"
#include "sim/serving/steady_state.h"

namespace tycoon::serving {

// {"mean", "p50", "p90", "p99"} in milliseconds.
nlohmann::json latency_ms_json(const LatencyStats& s);

// The measured results of a run: latencies (ms), throughput, request and token counts, batch,
// KV and preemption figures, GPU time by op class (classes with time only), simulated time and
// provenance. Not the configuration, and not the wall time (which differs run to run).
nlohmann::json summary_json(const ServingSummary& s);

// A disaggregated run's per-pool figures, transfers and TTFT parts (milliseconds).
nlohmann::json disaggregated_stats_json(const DisaggregatedStats& s);

// A disaggregated deployment's decode pool ("decode") and KV link ("kv_link").
nlohmann::json decode_pool_json(const DecodePool& pool);
nlohmann::json kv_link_json(const KvLink& link);

// What ran: the deployment as sweeps write it (perf::describe_deployment), the workload, the
// arrivals, the run's length and warm-up, the scheduler with the limits `r` ran with, and for a
// split deployment its decode pool, KV link and statistics. `tycoon benchmark --json` writes it
// as "config".
nlohmann::json run_config_json(const ServingConfig& config, const ServingSummary& r);

// What the steady-state rule found (steady_state.h): "stationary", "why_not" (when not), the
// warm-up cut ("warmup_requests", "warmup_s"), the requests measured after it, each P90 with its
// 95% batch-means half width in ms ("ttft_p90_ms", "ttft_p90_half_width_ms", likewise TPOT; null
// when too few requests to batch), the requests sent and the simulations it took.
nlohmann::json steady_state_json(const SteadyState& s);

}  // namespace tycoon::serving
