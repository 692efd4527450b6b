#include "sim/serving/benchmark_run.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "sim/core/input_error.h"

namespace tycoon::serving {

TokenLengths default_lengths(WorkloadKind kind) {
  switch (kind) {
    case WorkloadKind::kInputHeavy:
      return {8192, 1024};
    case WorkloadKind::kOutputHeavy:
      return {1024, 8192};
    case WorkloadKind::kRandom:
    case WorkloadKind::kChat:
    case WorkloadKind::kAgenticCoding:
    case WorkloadKind::kTrace:
      return {1024, 1024};
  }
  return {1024, 1024};
}

bool one_request_per_session(WorkloadKind kind) {
  switch (kind) {
    case WorkloadKind::kRandom:
    case WorkloadKind::kInputHeavy:
    case WorkloadKind::kOutputHeavy:
      return true;
    case WorkloadKind::kChat:
    case WorkloadKind::kAgenticCoding:
    case WorkloadKind::kTrace:
      return false;
  }
  return false;
}

std::int64_t default_num_requests(int concurrency) { return kRequestsPerUser * static_cast<std::int64_t>(concurrency); }

std::int64_t default_warmup_requests(WorkloadKind kind, int concurrency) {
  return one_request_per_session(kind) ? kWarmupRequestsPerUser * static_cast<std::int64_t>(concurrency) : 0;
}

const AgentxTiming* agentx_timing_of(const ServingConfig& c) {
  if (c.workload.kind != WorkloadKind::kAgenticCoding) return nullptr;
  // Open-loop arrivals have no idle cap (closed-loop users only): a timing is its pauses there.
  const bool closed_loop = c.arrival.kind == ArrivalKind::kClosedLoop;
  for (const auto& t : kAgentxTimings) {
    if (t.pause_basis == c.workload.pause_basis && t.pause_cap_s == c.workload.max_pause_s &&
        (!closed_loop || t.idle_cap_s == c.arrival.idle_cap_s))
      return &t;
  }
  return nullptr;
}

std::int64_t num_gpus(const ServingConfig& c) {
  std::int64_t gpus = static_cast<std::int64_t>(c.replicas) * c.deployment.tensor_parallel;
  if (c.disaggregated) {
    const auto& decode = c.disaggregated->decode;
    gpus += static_cast<std::int64_t>(decode.replicas) * decode.deployment.tensor_parallel;
  }
  return gpus;
}

namespace {

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// The traffic shape and its lengths; refuses choices that do not apply to it.
void set_workload(ServingConfig& c, const BenchmarkRun& run) {
  auto kind = run.workload;
  if (!run.trace_path.empty()) {
    if (kind != WorkloadKind::kRandom && kind != WorkloadKind::kTrace) {
      throw core::InputError("--trace replays a file: it cannot be combined with --workload " +
                             std::string(kWorkloadNames[static_cast<std::size_t>(kind)]));
    }
    kind = WorkloadKind::kTrace;
  } else if (kind == WorkloadKind::kTrace) {
    throw core::InputError("--workload trace needs --trace FILE");
  }
  c.workload.kind = kind;
  const auto lengths = default_lengths(kind);
  c.workload.input_tokens = run.input_tokens.value_or(lengths.input_tokens);
  c.workload.output_tokens = run.output_tokens.value_or(lengths.output_tokens);
  const bool lengths_given = run.input_tokens || run.output_tokens;
  if (kind == WorkloadKind::kTrace && lengths_given) {
    throw core::InputError("--isl/--osl do not apply to a trace (its lines give the lengths)");
  }
  if (kind == WorkloadKind::kAgenticCoding && lengths_given) {
    throw core::InputError("--isl/--osl do not apply to agentic-coding (its sessions model their own lengths)");
  }
  if ((run.input_range_ratio || run.output_range_ratio) && kind != WorkloadKind::kRandom) {
    throw std::invalid_argument("--random-range-ratio and --output-range-ratio apply to --workload random only");
  }
  c.workload.input_range_ratio = run.input_range_ratio.value_or(WorkloadSpec{}.input_range_ratio);
  c.workload.output_range_ratio = run.output_range_ratio.value_or(c.workload.input_range_ratio);
  c.workload.trace_path = run.trace_path;
  c.workload.trace_timestamps = kind == WorkloadKind::kTrace && !run.arrival;
}

// Who sends and when; refuses choices that do not apply to the arrivals or the shape.
void set_arrivals(ServingConfig& c, const BenchmarkRun& run) {
  const auto kind = c.workload.kind;
  c.arrival.kind = run.arrival.value_or(ArrivalKind::kClosedLoop);
  c.arrival.concurrency = run.concurrency.value_or(ArrivalSpec{}.concurrency);
  c.arrival.rate_per_s = run.rate_per_s.value_or(0);
  c.arrival.burst_factor = run.burst_factor;
  c.arrival.diurnal_amplitude = run.diurnal_amplitude;
  const bool open_loop = c.arrival.kind != ArrivalKind::kClosedLoop;
  if (open_loop && !run.rate_per_s) {
    throw std::invalid_argument("--arrival " + std::string(kArrivalNames[static_cast<std::size_t>(c.arrival.kind)]) +
                                " needs --rate R");
  }
  if (!open_loop && run.rate_per_s)
    throw std::invalid_argument("--rate applies to open-loop arrivals (--arrival poisson|bursty|diurnal)");
  if (open_loop && run.concurrency) throw std::invalid_argument("--concurrency applies to closed-loop arrivals only");
  if (open_loop && (run.ramp_up_s || run.warmup_requests)) {
    throw std::invalid_argument("--ramp-up-s and --warmup-requests apply to closed-loop users only");
  }
  if (run.warmup_requests && run.warmup_s && *run.warmup_requests > 0 && *run.warmup_s > 0) {
    throw std::invalid_argument("give the warm-up either in requests (--warmup-requests) or in seconds (--warmup-s)");
  }
  c.arrival.ramp_up_s = run.ramp_up_s.value_or(ArrivalSpec{}.ramp_up_s);
  if (open_loop && run.idle_cap_s) throw std::invalid_argument("--idle-cap-s applies to closed-loop users only");
  const bool agentic = kind == WorkloadKind::kAgenticCoding;
  if (run.max_pause_s && !agentic) {
    throw std::invalid_argument("--pause-cap-s applies to --workload agentic-coding only");
  }
  if (run.pause_basis && !agentic) {
    throw std::invalid_argument("--pause-basis applies to --workload agentic-coding only");
  }
  if (run.agentx_timing && !agentic) {
    throw std::invalid_argument("--agentx-timing applies to --workload agentic-coding only");
  }
  if (run.agentx_timing && *run.agentx_timing >= kAgentxTimings.size()) {
    throw std::invalid_argument("--agentx-timing: no such timing");
  }
  // Agentic coding replays AgentX: its named timing gives the pauses and, for closed-loop users,
  // the system's idle cap; each flag refines one of them. Other shapes keep WorkloadSpec's.
  WorkloadSpec plain;
  double idle_cap = ArrivalSpec{}.idle_cap_s;
  if (agentic) {
    const auto& t = kAgentxTimings[run.agentx_timing.value_or(kDefaultAgentxTiming)];
    plain.pause_basis = t.pause_basis;
    plain.max_pause_s = t.pause_cap_s;
    if (!open_loop) idle_cap = t.idle_cap_s;
  }
  c.arrival.idle_cap_s = run.idle_cap_s.value_or(idle_cap);
  c.workload.max_pause_s = run.max_pause_s.value_or(plain.max_pause_s);
  c.workload.pause_basis = run.pause_basis.value_or(plain.pause_basis);
  if (c.workload.trace_timestamps && run.concurrency) {
    throw core::InputError(
        "--concurrency does not apply to a trace replayed at its own times "
        "(add --arrival closed-loop to replay it with that many users)");
  }
}

// How long the run lasts and what it leaves out (the warm-up); refuses a run that measures
// nothing or cannot be simulated.
void set_limits(ServingConfig& c, const BenchmarkRun& run) {
  const auto kind = c.workload.kind;
  const bool open_loop = c.arrival.kind != ArrivalKind::kClosedLoop;
  c.num_requests = run.num_requests;
  c.duration_s = run.duration_s;
  c.warmup_s = run.warmup_s.value_or(0);
  if (c.num_requests == 0 && c.duration_s == 0 && kind != WorkloadKind::kTrace) {
    c.num_requests = default_num_requests(c.arrival.concurrency);
  }
  if (run.warmup_requests) {
    if (c.workload.trace_timestamps) throw std::invalid_argument("--warmup-requests needs closed-loop users");
    c.warmup_requests = *run.warmup_requests;
  } else if (!open_loop && !run.warmup_s) {
    c.warmup_requests = default_warmup_requests(kind, c.arrival.concurrency);
  }
  c.api_server = run.api_server;
  c.scheduler.kv_capacity_tokens = run.kv_capacity_tokens;

  if (c.duration_s > 0 && c.warmup_s >= c.duration_s) {
    throw core::InputError("--warmup-s " + fixed(c.warmup_s, 1) + " is not shorter than --duration-s " +
                           fixed(c.duration_s, 1) + ": nothing would be measured");
  }
  // An open-loop run's span is about its requests over the rate.
  if (open_loop && c.num_requests > 0 && static_cast<double>(c.num_requests) / c.arrival.rate_per_s > kMaxRunSpanS) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%g", c.arrival.rate_per_s);
    const std::string max = "1e" + std::to_string(std::lround(std::log10(kMaxRunSpanS)));  // a power of ten
    throw std::invalid_argument(std::string("--rate ") + buf + ": " + std::to_string(c.num_requests) +
                                " requests at that rate span about " +
                                fixed(static_cast<double>(c.num_requests) / c.arrival.rate_per_s, 0) +
                                " simulated seconds, more than the simulator's " + max + " s: raise --rate");
  }
}

}  // namespace

ServingConfig benchmark_config(ServingConfig deployment, const BenchmarkRun& run) {
  ServingConfig c = std::move(deployment);
  c.seed = run.seed;
  set_workload(c, run);
  set_arrivals(c, run);
  set_limits(c, run);
  return c;
}

}  // namespace tycoon::serving
