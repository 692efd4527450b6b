#include "sim/serving/deployment_plan.h"

#include <cstdio>

#include "sim/core/input_error.h"
#include "sim/perf/profile_lookup.h"
#include "sim/serving/disaggregated.h"

namespace tycoon::serving {

TunedHardware tuned_hardware(const data::Accelerator& hw, const data::Engine& engine,
                             const perf::CalibrationProfile& cal, double speedup) {
  // Every field changed here is also in simulation_fingerprint (put_tuned), so that a tuned run
  // never shares a cache entry with a stock one.
  TunedHardware t{hw, engine, cal};
  t.hardware.hbm_bandwidth_bytes_per_s *= speedup;
  t.hardware.dense_bf16_flop_per_s *= speedup;
  t.hardware.dense_fp8_flop_per_s *= speedup;
  t.hardware.dense_fp4_flop_per_s *= speedup;
  t.hardware.scale_up.bandwidth_bytes_per_s *= speedup;
  t.engine.iteration_overhead_s /= speedup;
  t.engine.per_sequence_overhead_s /= speedup;
  t.calibration.allreduce_latency_s /= speedup;
  t.calibration.kernel_floor_s /= speedup;
  t.calibration.eager_launch_s /= speedup;
  t.calibration.python_op_launch_s /= speedup;
  t.calibration.python_op_launch_tp_s /= speedup;
  t.calibration.python_op_launch_slowest_s /= speedup;
  t.calibration.python_op_launch_tp_slowest_s /= speedup;
  t.calibration.graph_kernel_gap_s /= speedup;
  return t;
}

ServingOverrides decode_overrides(const ServingOverrides& prefill, const ServingOverrides& decode, bool same_chip) {
  ServingOverrides o = prefill;
  if (!same_chip) {
    o.tensor_parallel.reset();
    o.expert_parallel.reset();
    o.precision.reset();
    // A W4A16 kernel is a choice for chips without 4-bit math: another chip runs its default.
    o.mxfp4_backend.reset();
    o.max_num_seqs.reset();
    o.max_num_batched_tokens.reset();
  }
  // A decode pool runs no prompt beside its decodes (each request arrives prefilled), as a
  // TensorRT-LLM decode-only worker, which never waits: batch waiting is the prefill side's.
  o.batch_wait_iters.reset();
  o.batch_wait_tokens_ratio.reset();
  // The receive interval is refused for split deployments (resolve_plan); a decode pool never
  // inherits it.
  o.recv_interval.reset();
  // Asynchronous scheduling is refused for split deployments too (resolve_plan).
  o.async_scheduling.reset();
  overlay(o, decode);
  // A set tensor-parallel size the inherited expert-parallel degree does not divide: the
  // resolver's own rule (reset to 1) applies, as for a pool's own recipe.
  if (decode.tensor_parallel && !decode.expert_parallel) o.expert_parallel.reset();
  return o;
}

CalibrationLookup catalog_calibrations(const data::Catalog& catalog) {
  return [&catalog](const data::Accelerator& chip) { return perf::calibration_for(catalog, chip); };
}

namespace {

// One pool resolved: the deployment and scheduler, tuned by the speedup when it is not 1.
struct Pool {
  ResolvedServing resolved;
  perf::CalibrationProfile calibration;
  std::shared_ptr<const TunedHardware> tuned;
};

Pool resolve_pool(const data::Catalog& catalog, const data::ModelCard& model, const PoolRequest& p,
                  const PlanRequest& request, const CalibrationLookup& calibrations, const char* which) {
  if (p.replicas < 0) throw core::InputError(std::string(which) + ": replicas must not be negative");
  const data::Accelerator& chip = catalog.accelerator(p.chip);
  Pool out;
  try {
    out.resolved = resolve_serving(catalog, model, chip, p.recipe);
  } catch (const std::invalid_argument& e) {
    if (!request.decode) throw;
    throw core::InputError(std::string(which) + ": " + e.what());
  }
  if (calibrations) out.calibration = calibrations(chip);
  auto& d = out.resolved.deployment;
  if (request.speedup != 1.0) {
    auto t = std::make_shared<TunedHardware>(tuned_hardware(*d.hardware, *d.engine, out.calibration, request.speedup));
    d.hardware = &t->hardware;
    d.engine = &t->engine;
    out.calibration = t->calibration;
    out.tuned = std::move(t);
  }
  auto& s = out.resolved.scheduler;
  if (request.queue_timeout_s) s.queue_timeout_s = *request.queue_timeout_s;
  if (request.max_queue) s.max_queue = *request.max_queue;
  return out;
}

}  // namespace

DeploymentPlan resolve_plan(const data::Catalog& catalog, const PlanRequest& request,
                            const CalibrationLookup& calibrations) {
  if (!request.model) throw core::InputError("a deployment plan needs a model");
  const data::ModelCard& model = *request.model;
  Pool main = resolve_pool(catalog, model, request.pool, request, calibrations, "prefill pool");

  DeploymentPlan plan;
  plan.speedup = request.speedup;
  plan.recipe = main.resolved.recipe;
  plan.calibration = main.calibration;
  plan.tuned_ = main.tuned;
  auto& c = plan.config;
  c.deployment = main.resolved.deployment;
  c.scheduler = main.resolved.scheduler;
  c.replicas = request.pool.replicas;
  c.router = request.pool.recipe.router.value_or(RouterKind::kRoundRobin);
  if (!request.decode) return plan;

  // SGLang's receive interval acts where a scheduler decodes while requests arrive: in a split
  // deployment that is the decode worker, whose intake of prefilled requests the simulation does
  // not model with it (a prefill-only pool takes every request in at once). Refused, not ignored.
  if (c.scheduler.recv_interval > 1) {
    throw core::InputError(
        "receive interval: not modelled for a disaggregated deployment (SGLang's decode worker "
        "takes its prefilled requests in at the interval; the simulation's decode pool does not)");
  }
  // Asynchronous scheduling moves arrivals by a step; in a split deployment the decode worker's
  // arrivals are transfers, which the simulation admits at their landing. Refused, not ignored,
  // on either pool (a decode pool's own recipe is checked below).
  const PoolRequest& dq = *request.decode;
  if (c.scheduler.async_scheduling || dq.recipe.async_scheduling.value_or(false)) {
    throw core::InputError(
        "asynchronous scheduling: not modelled for a disaggregated deployment (the decode pool admits a "
        "transfer when it lands, not a step later)");
  }
  PoolRequest decode = dq;
  decode.recipe = decode_overrides(request.pool.recipe, dq.recipe, dq.chip == request.pool.chip);
  Pool dp = resolve_pool(catalog, model, decode, request, calibrations, "decode pool");
  if (dp.resolved.deployment.engine->id != main.resolved.deployment.engine->id) {
    throw core::InputError("both pools run one engine: the prefill pool runs " + main.resolved.deployment.engine->id +
                           ", the decode pool " + dp.resolved.deployment.engine->id);
  }
  if (catalog.kv_links.links.empty()) {
    throw core::InputError("disaggregated serving needs hardware_db/kv_links.json under the data root");
  }
  Disaggregation dis;
  dis.decode.deployment = dp.resolved.deployment;
  dis.decode.scheduler = dp.resolved.scheduler;
  dis.decode.replicas = dq.replicas;
  // The decode chip's own calibration where it differs from the prefill pool's: another chip,
  // or a tuned one (the simulation otherwise uses the prefill pool's for both).
  if (calibrations && (dq.chip != request.pool.chip || request.speedup != 1.0)) dis.decode.calibration = dp.calibration;
  dis.link = resolve_kv_link(request.link, catalog.accelerator(request.pool.chip), catalog.accelerator(dq.chip),
                             catalog.kv_links);
  check_kv_link_reach(c.deployment, c.replicas, dis.decode.deployment, dis.decode.replicas, dis.link);
  c.disaggregated = std::move(dis);
  plan.decode_tuned_ = dp.tuned;
  return plan;
}

// ---- identity ----

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

// The fields tuned_hardware changes beyond the HBM bandwidth (which put_deployment lists).
void put_tuned(std::string& f, const perf::Deployment& d, const perf::CalibrationProfile& cal) {
  if (!d.hardware || !d.engine) return;
  put(f, std::string("t"));
  put(f, d.hardware->dense_bf16_flop_per_s);
  put(f, d.hardware->dense_fp8_flop_per_s);
  put(f, d.hardware->dense_fp4_flop_per_s);
  put(f, d.hardware->scale_up.bandwidth_bytes_per_s);
  put(f, d.engine->iteration_overhead_s);
  put(f, d.engine->per_sequence_overhead_s);
  put(f, cal.allreduce_latency_s);
  put(f, cal.kernel_floor_s);
  put(f, cal.eager_launch_s);
  put(f, cal.python_op_launch_s);
  put(f, cal.python_op_launch_tp_s);
  put(f, cal.python_op_launch_slowest_s);
  put(f, cal.python_op_launch_tp_slowest_s);
  put(f, cal.graph_kernel_gap_s);
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
    // The drafter's cost differs by method (EAGLE heads or a full MTP block); EAGLE's two names are
    // one cost model, and stay out of the fingerprint as they always were.
    const auto method = perf::parse_draft_method(d.spec_decode->method);
    if (method == perf::DraftMethod::kMtp) put(f, std::string("draft method mtp"));
    // A method the simulator does not know is refused by the run; its name keeps the call apart,
    // so a memo or tape never answers it with an EAGLE run's result.
    if (!method) put(f, "draft method " + d.spec_decode->method);
  }
  for (double x : d.op_time_scale) put(f, x);
  if (d.expert_activation) put(f, std::string("expert activation ") + std::string(to_string(*d.expert_activation)));
  if (const data::W4a16MoeKernel* k = d.w4a16_moe_kernel()) {
    put(f, "mxfp4 backend " + *d.mxfp4_backend);
    put(f, k->compute_share);
    put(f, k->memory_share);
  }
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
  if (s.running_limit_from_engine) put(f, std::string("running limit from the engine"));
  if (s.batch_wait_iters > 0 || s.batch_wait_tokens_ratio > 0) {
    put(f, std::string("batch waiting"));
    put(f, std::int64_t{s.batch_wait_iters});
    put(f, s.batch_wait_tokens_ratio);
  }
  if (s.recv_interval > 1) {
    put(f, std::string("receive interval"));
    put(f, std::int64_t{s.recv_interval});
  }
  if (s.async_scheduling) put(f, std::string("async scheduling"));
}

}  // namespace

std::string simulation_fingerprint(const serving::ServingConfig& c, const perf::CalibrationProfile& cal) {
  std::string f;
  f.reserve(640);
  put_deployment(f, c.deployment);
  put(f, cal.chip);
  put_tuned(f, c.deployment, cal);
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
  put(f, std::int64_t{c.api_server});
  put(f, static_cast<std::int64_t>(c.seed));
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
    const auto& dp = c.disaggregated->decode;
    const auto& dcal = dp.calibration ? *dp.calibration : cal;
    put(f, std::string("disaggregated"));
    put_deployment(f, dp.deployment);
    put(f, dcal.chip);
    put_tuned(f, dp.deployment, dcal);
    put_scheduler(f, dp.scheduler);
    put(f, std::int64_t{dp.replicas});
    put(f, std::int64_t{static_cast<int>(c.disaggregated->link.kind)});
    put(f, c.disaggregated->link.bandwidth_bytes_per_s);
    put(f, c.disaggregated->link.latency_s);
  }
  return f;
}

serving::ServingConfig DeploymentPlan::closed_loop(const serving::WorkloadSpec& workload, int concurrency,
                                                   std::int64_t num_requests, std::uint64_t seed) const {
  serving::ServingConfig c = config;
  c.workload = workload;
  c.arrival.kind = ArrivalKind::kClosedLoop;
  c.arrival.concurrency = concurrency;
  c.num_requests = num_requests;
  c.seed = seed;
  return c;
}

serving::ServingConfig DeploymentPlan::benchmark(const serving::WorkloadSpec& workload, int concurrency,
                                                 std::int64_t num_requests, std::uint64_t seed) const {
  serving::ServingConfig c = closed_loop(workload, concurrency, num_requests, seed);
  c.scheduler.queue_timeout_s = 1e9;  // a benchmark waits for every request
  if (c.disaggregated) c.disaggregated->decode.scheduler.queue_timeout_s = 1e9;
  c.arrival.skip_pauses = true;
  return c;
}

std::string DeploymentPlan::identity(const serving::ServingConfig& run) const {
  return simulation_fingerprint(run, calibration);
}

}  // namespace tycoon::serving
