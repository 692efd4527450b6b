#include "sim/game/sim_tape.h"

#include "sim/game/game.h"

#include <cstdio>
#include <limits>
#include <stdexcept>

namespace tycoon::game {

namespace {

void put(std::string& out, double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%a,", x);
  out += buf;
}
void put(std::string& out, std::int64_t x) {
  out += std::to_string(x);
  out += ',';
}
void put(std::string& out, const std::string& x) {
  out += x;
  out += ',';
}

void put_deployment(std::string& f, const perf::Deployment& d) {
  put(f, d.model ? d.model->id : std::string("?"));
  if (d.hardware) {
    put(f, d.hardware->id);
    put(f, d.hardware->hbm_bandwidth_bytes_per_s);
    put(f, d.hardware->hbm_bytes);
    put(f, d.hardware->runtime_memory_bytes);
  }
  put(f, d.engine ? d.engine->id : std::string("?"));
  put(f, std::int64_t{static_cast<int>(d.precision)});
  put(f, std::int64_t{static_cast<int>(d.kv_cache_dtype)});
  put(f, std::int64_t{d.tensor_parallel});
  put(f, std::int64_t{d.expert_parallel});
  put(f, std::int64_t{d.cuda_graphs});
  put(f, std::int64_t{d.kv_page_tokens});
  put(f, d.gpu_memory_utilization);
  if (d.spec_decode) {
    put(f, std::int64_t{d.spec_decode->num_draft_tokens});
    put(f, d.spec_decode->acceptance_length);
  }
  for (double x : d.op_time_scale) put(f, x);
}

void put_scheduler(std::string& f, const serving::SchedulerConfig& s) {
  put(f, std::int64_t{s.max_num_batched_tokens});
  put(f, std::int64_t{s.max_num_seqs});
  put(f, std::int64_t{s.chunked_prefill});
  put(f, std::int64_t{s.prefix_caching});
  put(f, s.queue_timeout_s);
  put(f, std::int64_t{s.max_queue});
  put(f, s.kv_capacity_tokens);
  put(f, std::int64_t{static_cast<int>(s.kv_admission)});
  // Only when set, so that the fingerprints of earlier configurations are unchanged.
  if (s.running_limit_from_engine) put(f, std::string("running limit from the engine"));
}

}  // namespace

std::string simulation_fingerprint(const serving::ServingConfig& c, const perf::CalibrationProfile& cal) {
  std::string f;
  f.reserve(512);
  put_deployment(f, c.deployment);
  put(f, cal.chip);
  put_scheduler(f, c.scheduler);
  put(f, std::int64_t{c.replicas});
  put(f, std::int64_t{static_cast<int>(c.router)});
  put(f, std::int64_t{static_cast<int>(c.workload.kind)});
  put(f, c.workload.input_tokens);
  put(f, c.workload.output_tokens);
  put(f, c.workload.input_range_ratio);
  put(f, c.workload.output_range_ratio);
  put(f, c.workload.trace_path);
  put(f, std::int64_t{c.workload.trace_timestamps});
  put(f, std::int64_t{static_cast<int>(c.arrival.kind)});
  put(f, std::int64_t{c.arrival.concurrency});
  put(f, c.arrival.rate_per_s);
  put(f, c.arrival.burst_factor);
  put(f, c.arrival.diurnal_amplitude);
  put(f, c.num_requests);
  put(f, c.duration_s);
  put(f, c.warmup_s);
  put(f, c.warmup_requests);
  put(f, c.arrival.ramp_up_s);
  put(f, static_cast<std::int64_t>(c.seed));
  // The agentic replay's timing, only where it is not the default (earlier fingerprints unchanged).
  const serving::WorkloadSpec default_workload;
  if (c.workload.max_pause_s != default_workload.max_pause_s ||
      c.workload.pause_basis != default_workload.pause_basis || c.arrival.idle_cap_s != 0) {
    put(f, std::string("pauses"));
    put(f, c.workload.max_pause_s);
    put(f, std::int64_t{static_cast<int>(c.workload.pause_basis)});
    put(f, c.arrival.idle_cap_s);
  }
  if (c.arrival.skip_pauses) put(f, std::string("no pauses"));
  if (c.disaggregated) {
    // Only disaggregated configurations carry this part: aggregated fingerprints are unchanged.
    const auto& dp = c.disaggregated->decode;
    put(f, std::string("disaggregated"));
    put_deployment(f, dp.deployment);
    put(f, dp.calibration ? dp.calibration->chip : cal.chip);
    put_scheduler(f, dp.scheduler);
    put(f, std::int64_t{dp.replicas});
    put(f, std::int64_t{static_cast<int>(c.disaggregated->link.kind)});
    put(f, c.disaggregated->link.bandwidth_bytes_per_s);
    put(f, c.disaggregated->link.latency_s);
  }
  return f;
}

serving::ServingSummary SimulationTape::simulate(const serving::ServingConfig& config,
                                                 const perf::CalibrationProfile& calibration) {
  std::string f = simulation_fingerprint(config, calibration);
  if (next_ < entries_.size()) {
    const Entry& e = entries_[next_++];
    if (e.fingerprint != f) {
      throw std::logic_error("the simulation tape diverged at call " + std::to_string(next_) +
                             ": the game asked for another simulation than when it was recorded");
    }
    if (e.error) std::rethrow_exception(e.error);
    return e.summary;
  }
  auto job = std::make_shared<serving::SlicedSimulation>(config, calibration);
  if (!compute_on_miss_) throw TapeMiss{std::move(job), std::move(f)};
  while (!job->advance(std::numeric_limits<std::int64_t>::max())) {
  }
  append(f, *job);
  ++next_;
  return job->result();
}

void SimulationTape::append(const std::string& fingerprint, const serving::SlicedSimulation& job) {
  if (!job.done()) throw std::logic_error("SimulationTape::append: the simulation has not finished");
  Entry e;
  e.fingerprint = fingerprint;
  e.error = job.error();
  if (!e.error) e.summary = job.result();
  entries_.push_back(std::move(e));
}

TapedWork::TapedWork() = default;

bool TapedWork::prepare(const Game& game, const std::string& work_id, const Work& work, std::int64_t max_events) {
  if (work_id != work_id_) {
    done();
    work_id_ = work_id;
  }
  if (job_) {
    if (!job_->advance(max_events)) return false;
    tape_.append(job_fingerprint_, *job_);
    job_.reset();
    ++simulations_sliced_;
  }
  auto fork = game.fork();
  tape_.rewind();
  tape_.set_compute_on_miss(false);
  ++forks_;
  try {
    serving::ScopedSimulateInterceptor guard(&tape_);
    work(*fork);
  } catch (TapeMiss& miss) {
    job_ = std::move(miss.job);
    job_fingerprint_ = std::move(miss.fingerprint);
    return false;
  } catch (const std::exception&) {
    // The real run meets the same error and reports it.
  }
  return true;
}

SimulationTape& TapedWork::tape() {
  tape_.rewind();
  tape_.set_compute_on_miss(true);
  return tape_;
}

void TapedWork::done() {
  work_id_.clear();
  tape_.clear();
  tape_.set_compute_on_miss(false);
  job_.reset();
}

}  // namespace tycoon::game
