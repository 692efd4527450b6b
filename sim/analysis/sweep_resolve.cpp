// Resolving a sweep configuration against the catalog (declared in sweep_spec.h).
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <tuple>

#include "sim/analysis/sweep_spec.h"
#include "sim/data/json_reader.h"
#include "sim/perf/deployment_json.h"
#include "sim/perf/memory_plan.h"
#include "sim/serving/benchmark_run.h"
#include "sim/serving/deployment_plan.h"
#include "sim/serving/disaggregated.h"
#include "sim/serving/resolve_config.h"

namespace tycoon::analysis {

using data::LoadError;

nlohmann::json ResolvedConfig::describe() const {
  nlohmann::json j = perf::describe_deployment(deployment());
  j.update(nlohmann::json{
      {"label", label},
      {"max_num_batched_tokens", scheduler().max_num_batched_tokens},
      {"max_num_seqs", scheduler().max_num_seqs},
      {"prefix_caching", scheduler().prefix_caching},
      {"kv_admission", std::string(serving::kKvAdmissionNames[static_cast<std::size_t>(scheduler().kv_admission)])},
      {"gpu_usd_per_hour", gpu_usd_per_hour},
      {"gpu_price_source", gpu_price_source},
      {"all_in_power_watts",
       std::isfinite(all_in_power_watts) ? nlohmann::json(all_in_power_watts) : nlohmann::json()}});
  // Only a fleet carries its size and router: a single replica hashes as before.
  if (!disaggregation() && replicas() > 1) {
    j["replicas"] = replicas();
    j["router"] = std::string(serving::kRouterNames[static_cast<std::size_t>(plan.config.router)]);
  }
  // Only where the engine sizes its own running limit (SGLang without a max_num_seqs): the key
  // differs from a run capped at the setting, and every other configuration hashes as before.
  if (scheduler().running_limit_from_engine) j["max_num_seqs"] = "the engine's, from its KV pool";
  // Only disaggregated configurations carry the key: aggregated ones hash as before.
  if (const auto& dis = disaggregation()) {
    const auto& dd = dis->decode.deployment;
    j["disaggregated"] = {{"prefill_replicas", replicas()},
                          {"decode_replicas", dis->decode.replicas},
                          {"decode_hardware", dd.hardware->id},
                          {"decode_precision", std::string(to_string(dd.precision))},
                          {"decode_tensor_parallel", dd.tensor_parallel},
                          {"decode_expert_parallel", dd.expert_parallel},
                          {"decode_max_num_batched_tokens", dis->decode.scheduler.max_num_batched_tokens},
                          {"decode_max_num_seqs", dis->decode.scheduler.running_limit_from_engine
                                                      ? nlohmann::json("the engine's, from its KV pool")
                                                      : nlohmann::json(dis->decode.scheduler.max_num_seqs)},
                          {"kv_link", std::string(serving::kKvLinkNames[static_cast<std::size_t>(dis->link.kind)])},
                          {"kv_link_bandwidth_bytes_per_s", dis->link.bandwidth_bytes_per_s},
                          {"kv_link_latency_s", dis->link.latency_s}};
    // Only a router other than round robin: every split configuration before it hashes as before.
    if (plan.config.router != serving::RouterKind::kRoundRobin) {
      j["disaggregated"]["router"] = std::string(serving::kRouterNames[static_cast<std::size_t>(plan.config.router)]);
    }
  }
  return j;
}

int ResolvedConfig::num_gpus() const { return static_cast<int>(serving::num_gpus(plan.config)); }

namespace {

constexpr double kNoPower = std::numeric_limits<double>::quiet_NaN();

// The rent of `hw` under the spec's contract, else the configuration's own figure.
std::pair<double, std::string> gpu_price(const SweepSpec& spec, const data::Accelerator& hw, const ConfigFields& f,
                                         const std::function<void(const std::string&)>& fail) {
  if (f.gpu_usd_per_hour) return {*f.gpu_usd_per_hour, "sweep spec"};
  const auto price = hw.price(spec.contract);
  const std::string contract(kContractNames[static_cast<std::size_t>(spec.contract)]);
  if (!price) fail(hw.id + " has no " + contract + " price in the catalog: set gpu_usd_per_hour");
  return {price->price_usd_per_gpu_hour,
          "hardware_db/accelerators/" + hw.id + ".json: " + contract + ", " + price->provider + ", " + price->date};
}

// The chip's catalog rent under each contract, NaN where it has none.
std::array<double, 3> contract_rents(const data::Accelerator& hw) {
  std::array<double, 3> out{kNoPower, kNoPower, kNoPower};
  for (std::size_t k = 0; k < out.size(); ++k) {
    if (const auto p = hw.price(static_cast<Contract>(k))) out[k] = p->price_usd_per_gpu_hour;
  }
  return out;
}

// Refuses a pool whose weights, activations and KV do not fit its GPUs' memory.
void check_fits(const perf::Deployment& d, const serving::SchedulerConfig& s, const std::string& pool,
                const std::function<void(const std::string&)>& fail) {
  auto plan = perf::plan_memory(d, s.max_num_batched_tokens, s.max_num_seqs);
  if (plan.fits) return;
  // The memory plan's reason usually says "does not fit" itself; say it once.
  const std::string_view prefix = "does not fit";
  fail(pool + (std::string_view(plan.reason).substr(0, prefix.size()) == prefix ? plan.reason
                                                                                : "does not fit: " + plan.reason));
}

}  // namespace

ResolvedConfig resolve_config(const SweepSpec& spec, const data::Catalog& catalog, const ConfigFields& f,
                              std::string label, const std::string& pointer) {
  const std::string& file = spec.file;
  const std::function<void(const std::string&)> fail = [&](const std::string& why) {
    throw LoadError(file, pointer, label + ": " + why);
  };
  if (!f.model) fail("no model (set base.model, a configuration's model or a model axis)");
  if (!f.hardware) fail("no hardware (set base.hardware, a configuration's hardware or a hardware axis)");
  const data::ModelCard* model = catalog.find_model(*f.model);
  if (!model) fail("unknown model '" + *f.model + "' (tycoon list models)");
  const data::Accelerator* hw = catalog.find_accelerator(*f.hardware);
  if (!hw) fail("unknown hardware '" + *f.hardware + "' (tycoon list hardware)");
  if (f.recipe.engine && !catalog.find_engine(*f.recipe.engine))
    fail("unknown engine '" + *f.recipe.engine + "' (tycoon list engines)");
  const bool disaggregated = f.disaggregated.value_or(false);
  if (!disaggregated && (f.prefill_replicas || f.decode_replicas || f.decode_hardware ||
                         f.decode != serving::ServingOverrides{} || f.kv_link)) {
    fail("prefill_/decode_ fields and kv_link describe a disaggregated deployment: set \"disaggregated\": true");
  }
  if (disaggregated && f.replicas) {
    fail(
        "\"replicas\" counts an aggregated deployment's replicas: a disaggregated one sets prefill_replicas and "
        "decode_replicas");
  }
  const data::Accelerator* decode_hw = hw;
  if (disaggregated && f.decode_hardware) {
    decode_hw = catalog.find_accelerator(*f.decode_hardware);
    if (!decode_hw) fail("unknown hardware '" + *f.decode_hardware + "' (tycoon list hardware)");
  }

  ResolvedConfig c;
  c.label = label;  // a copy: `fail` names the label in every later refusal
  c.fields = f;
  c.pointer = pointer;
  // The deployment plan (sim/serving/deployment_plan.h): the recipe's settings, the engine card's
  // admission policy, this configuration's fields on top; the decode pool by the plan's rule.
  serving::PlanRequest request;
  request.model = model;
  request.pool.chip = hw->id;
  request.pool.recipe = f.recipe;
  request.pool.replicas = f.replicas.value_or(1);
  if (disaggregated) {
    request.pool.replicas = f.prefill_replicas.value_or(1);
    serving::PoolRequest decode;
    decode.chip = decode_hw->id;
    decode.recipe = f.decode;
    decode.replicas = f.decode_replicas.value_or(1);
    request.decode = std::move(decode);
    const auto link = parse_enum<serving::KvLinkKind>(f.kv_link.value_or("infiniband"), serving::kKvLinkNames);
    if (!link) fail("unknown kv_link '" + *f.kv_link + "'");
    request.link = *link;
  }
  try {
    c.plan = serving::resolve_plan(catalog, request, {});  // calibrations: the sweep's own (sweep_run.cpp)
  } catch (const std::invalid_argument& e) {
    fail(e.what());
  }
  check_fits(c.deployment(), c.scheduler(), disaggregated ? "prefill pool: " : "", fail);
  std::tie(c.gpu_usd_per_hour, c.gpu_price_source) = gpu_price(spec, *hw, f, fail);
  c.all_in_power_watts = hw->all_in_power_watts.value_or(kNoPower);
  c.contract_usd_per_gpu_hour = contract_rents(*hw);
  if (!disaggregated) return c;

  const auto& dis = *c.disaggregation();
  check_fits(dis.decode.deployment, dis.decode.scheduler, "decode pool: ", fail);
  const auto [decode_price, decode_source] = gpu_price(spec, *decode_hw, f, fail);
  const double prefill_gpus = static_cast<double>(c.replicas() * c.deployment().tensor_parallel);
  const double decode_gpus = static_cast<double>(dis.decode.replicas * dis.decode.deployment.tensor_parallel);
  c.gpu_usd_per_hour = (prefill_gpus * c.gpu_usd_per_hour + decode_gpus * decode_price) / (prefill_gpus + decode_gpus);
  c.all_in_power_watts =
      (prefill_gpus * c.all_in_power_watts + decode_gpus * decode_hw->all_in_power_watts.value_or(kNoPower)) /
      (prefill_gpus + decode_gpus);
  const auto decode_rents = contract_rents(*decode_hw);
  for (std::size_t k = 0; k < decode_rents.size(); ++k) {
    c.contract_usd_per_gpu_hour[k] =
        (prefill_gpus * c.contract_usd_per_gpu_hour[k] + decode_gpus * decode_rents[k]) / (prefill_gpus + decode_gpus);
  }
  if (decode_hw->id != hw->id) {
    c.gpu_price_source = "GPU-weighted mean of prefill " + c.gpu_price_source + " and decode " + decode_source;
  }
  return c;
}

}  // namespace tycoon::analysis
