// Resolving a sweep configuration against the catalog (declared in sweep_spec.h).
#include <string>

#include "sim/analysis/sweep_spec.h"
#include "sim/data/json_reader.h"
#include "sim/perf/deployment_json.h"
#include "sim/perf/memory_plan.h"
#include "sim/serving/disaggregated.h"
#include "sim/serving/resolve_config.h"

namespace tycoon::analysis {

using data::LoadError;

nlohmann::json ResolvedConfig::describe() const {
  nlohmann::json j = perf::describe_deployment(deployment);
  j.update(nlohmann::json{
      {"label", label},
      {"max_num_batched_tokens", scheduler.max_num_batched_tokens},
      {"max_num_seqs", scheduler.max_num_seqs},
      {"prefix_caching", scheduler.prefix_caching},
      {"kv_admission", std::string(serving::kKvAdmissionNames[static_cast<std::size_t>(scheduler.kv_admission)])},
      {"gpu_usd_per_hour", gpu_usd_per_hour},
      {"gpu_price_source", gpu_price_source}});
  // Only where the engine sizes its own running limit (SGLang without a max_num_seqs): the key
  // differs from a run capped at the setting, and every other configuration hashes as before.
  if (scheduler.running_limit_from_engine) j["max_num_seqs"] = "the engine's, from its KV pool";
  // Only disaggregated configurations carry the key: aggregated ones hash as before.
  if (disaggregation) {
    const auto& dd = disaggregation->decode.deployment;
    j["disaggregated"] = {
        {"prefill_replicas", replicas},
        {"decode_replicas", disaggregation->decode.replicas},
        {"decode_hardware", dd.hardware->id},
        {"decode_precision", std::string(to_string(dd.precision))},
        {"decode_tensor_parallel", dd.tensor_parallel},
        {"decode_expert_parallel", dd.expert_parallel},
        {"decode_max_num_batched_tokens", disaggregation->decode.scheduler.max_num_batched_tokens},
        {"decode_max_num_seqs", disaggregation->decode.scheduler.running_limit_from_engine
                                    ? nlohmann::json("the engine's, from its KV pool")
                                    : nlohmann::json(disaggregation->decode.scheduler.max_num_seqs)},
        {"kv_link", std::string(serving::kKvLinkNames[static_cast<std::size_t>(disaggregation->link.kind)])},
        {"kv_link_bandwidth_bytes_per_s", disaggregation->link.bandwidth_bytes_per_s},
        {"kv_link_latency_s", disaggregation->link.latency_s}};
  }
  return j;
}

ResolvedConfig resolve_config(const SweepSpec& spec, const data::Catalog& catalog, const ConfigFields& f,
                              std::string label, const std::string& pointer) {
  const std::string& file = spec.file;
  auto fail = [&](const std::string& why) -> void { throw LoadError(file, pointer, label + ": " + why); };
  if (!f.model) fail("no model (set base.model, a configuration's model or a model axis)");
  if (!f.hardware) fail("no hardware (set base.hardware, a configuration's hardware or a hardware axis)");
  const data::ModelCard* model = catalog.find_model(*f.model);
  if (!model) fail("unknown model '" + *f.model + "' (tycoon list models)");
  const data::Accelerator* hw = catalog.find_accelerator(*f.hardware);
  if (!hw) fail("unknown hardware '" + *f.hardware + "' (tycoon list hardware)");
  if (f.engine && !catalog.find_engine(*f.engine)) fail("unknown engine '" + *f.engine + "' (tycoon list engines)");

  ResolvedConfig c;
  c.label = label;  // a copy: `fail` names the label in every later refusal
  c.fields = f;
  c.pointer = pointer;
  // The one resolver (sim/serving/resolve_config.h): the recipe's settings, the engine card's
  // admission policy, this configuration's fields on top.
  serving::ServingOverrides o;
  o.engine = f.engine;
  o.precision = f.precision;
  o.kv_cache_dtype = f.kv_cache_dtype;
  o.tensor_parallel = f.tensor_parallel;
  o.expert_parallel = f.expert_parallel;
  o.cuda_graphs = f.cuda_graphs;
  o.spec_draft_tokens = f.spec_tokens;
  o.spec_acceptance_length = f.acceptance_length;
  o.max_num_batched_tokens = f.max_num_batched_tokens;
  o.max_num_seqs = f.max_num_seqs;
  o.prefix_caching = f.prefix_caching;
  try {
    auto r = serving::resolve_serving(catalog, *model, *hw, o);
    c.deployment = r.deployment;
    c.scheduler = r.scheduler;
  } catch (const std::invalid_argument& e) {
    fail(e.what());
  }
  const auto& d = c.deployment;
  auto plan = perf::plan_memory(d, c.scheduler.max_num_batched_tokens, c.scheduler.max_num_seqs);
  if (!plan.fits) {
    // The memory plan's reason usually says "does not fit" itself; say it once.
    const std::string_view prefix = "does not fit";
    fail(std::string_view(plan.reason).substr(0, prefix.size()) == prefix ? plan.reason
                                                                          : "does not fit: " + plan.reason);
  }

  if (f.gpu_usd_per_hour) {
    c.gpu_usd_per_hour = *f.gpu_usd_per_hour;
    c.gpu_price_source = "sweep spec";
  } else {
    auto price = hw->price(spec.contract);
    if (!price) {
      fail(hw->id + " has no " + std::string(kContractNames[static_cast<std::size_t>(spec.contract)]) +
           " price in the catalog: set gpu_usd_per_hour");
    }
    c.gpu_usd_per_hour = price->price_usd_per_gpu_hour;
    c.gpu_price_source = "hardware_db/accelerators/" + hw->id +
                         ".json: " + std::string(kContractNames[static_cast<std::size_t>(spec.contract)]) + ", " +
                         price->provider + ", " + price->date;
  }

  const bool disaggregated = f.disaggregated.value_or(false);
  if (!disaggregated && (f.prefill_replicas || f.decode_replicas || f.decode_hardware || f.decode_precision ||
                         f.decode_tensor_parallel || f.decode_max_num_seqs || f.kv_link)) {
    fail("prefill_/decode_ fields and kv_link describe a disaggregated deployment: set \"disaggregated\": true");
  }
  if (disaggregated) {
    // The decode pool: the same model and engine; the prefill pool's values on the same chip,
    // else the decode chip's recipe.
    ConfigFields df = f;
    df.disaggregated = false;
    df.prefill_replicas.reset();
    df.decode_replicas.reset();
    df.decode_hardware.reset();
    df.decode_precision.reset();
    df.decode_tensor_parallel.reset();
    df.decode_max_num_seqs.reset();
    df.kv_link.reset();
    if (f.decode_hardware && *f.decode_hardware != hw->id) {
      df.hardware = f.decode_hardware;
      df.tensor_parallel.reset();
      df.expert_parallel.reset();
      df.precision.reset();
      df.max_num_seqs.reset();
      df.max_num_batched_tokens.reset();
    }
    if (f.decode_tensor_parallel) df.tensor_parallel = f.decode_tensor_parallel;
    if (f.decode_precision) df.precision = f.decode_precision;
    if (f.decode_max_num_seqs) df.max_num_seqs = f.decode_max_num_seqs;
    ResolvedConfig dc = resolve_config(spec, catalog, df, c.label + " (decode pool)", pointer);
    serving::Disaggregation dis;
    dis.decode.deployment = dc.deployment;
    dis.decode.scheduler = dc.scheduler;
    dis.decode.replicas = f.decode_replicas.value_or(1);
    c.replicas = f.prefill_replicas.value_or(1);
    const auto link = parse_enum<serving::KvLinkKind>(f.kv_link.value_or("infiniband"), serving::kKvLinkNames);
    if (catalog.kv_links.links.empty()) fail("disaggregated serving needs hardware_db/kv_links.json");
    try {
      dis.link = serving::resolve_kv_link(*link, *hw, *dc.deployment.hardware, catalog.kv_links);
      serving::check_kv_link_reach(d, c.replicas, dc.deployment, dis.decode.replicas, dis.link);
    } catch (const std::invalid_argument& e) {
      fail(e.what());
    }
    const double prefill_gpus = static_cast<double>(c.replicas * d.tensor_parallel);
    const double decode_gpus = static_cast<double>(dis.decode.replicas * dc.deployment.tensor_parallel);
    c.gpu_usd_per_hour =
        (prefill_gpus * c.gpu_usd_per_hour + decode_gpus * dc.gpu_usd_per_hour) / (prefill_gpus + decode_gpus);
    if (dc.deployment.hardware->id != hw->id) {
      std::string src = "GPU-weighted mean of prefill ";
      src += c.gpu_price_source;
      src += " and decode ";
      src += dc.gpu_price_source;
      c.gpu_price_source = src;
    }
    c.disaggregation = dis;
  }
  return c;
}

}  // namespace tycoon::analysis
