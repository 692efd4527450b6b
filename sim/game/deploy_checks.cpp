#include "sim/game/deploy_checks.h"

#include <algorithm>
#include <string_view>

#include "sim/game/fleet.h"
#include "sim/game/lever_limits.h"
#include "sim/game/plan.h"
#include "sim/perf/memory_plan.h"

namespace tycoon::game {

namespace {

Refusal refusal_of(std::string why) { return {std::move(why), false}; }

std::optional<Refusal> check_recipe_locks(const CheckContext& ctx, const serving::ServingOverrides& o) {
  if (!ctx.player) return std::nullopt;
  for (auto f : recipe_fields_set(o)) {
    if (ctx.scenario.recipe_field_locked(f)) {
      return refusal_of("recipe." + std::string(f) + " is locked in this scenario");
    }
  }
  return std::nullopt;
}

// Refuses when the fleet lacks the `want` GPUs of `chip` that `what_needs` ("3 replicas x TP2
// need") asks for; `free`: the fleet's
// unclaimed GPUs of the chip (the deployment's own counted as free when it is being changed).
std::optional<Refusal> lacks_gpus(const std::string& what_needs, int want, const std::string& chip, int free,
                                  const std::string& free_for) {
  if (want <= free) return std::nullopt;
  const int have = std::max(free, 0);
  return Refusal{what_needs + " " + std::to_string(want) + " x " + chip + "; the fleet has " + std::to_string(have) +
                     " unclaimed" + free_for + ": rent " + std::to_string(want - have) +
                     " more in the GPU market first",
                 true};
}

// Checks that disaggregated deployment `probe` (its decode pool set, with the replicas it would
// run) runs: the decode recipe fits its chip and the KV link reaches both pools.
std::optional<Refusal> check_disaggregated(const CheckContext& ctx, const DeploymentState& probe) {
  const auto& p = *probe.decode;
  if (auto why = recipe_refusal(ctx.catalog, ctx.scenario, probe.model, p.chip, probe.segment, p.recipe)) {
    return refusal_of("decode pool: " + *why);
  }
  try {
    (void)plan_deployment(ctx.catalog, ctx.scenario, probe, probe.replicas, p.replicas, {});
  } catch (const std::exception& e) {
    return refusal_of("disaggregated " + probe.model + " (prefill on " + probe.chip + ", decode on " + p.chip +
                      " over " + std::string(serving::kKvLinkNames[static_cast<std::size_t>(p.link)]) +
                      "): " + e.what());
  }
  return std::nullopt;
}

// Refuses when the fleet lacks the GPUs `probe`'s decode pool wants on its own chip (a decode
// pool on the prefill chip is counted with the prefill pool). `existing`: the deployment it
// replaces, whose GPUs count as free.
std::optional<Refusal> check_decode_gpus(const CheckContext& ctx, const DeploymentState& probe,
                                         std::optional<std::int64_t> existing) {
  if (!probe.decode || probe.decode->chip == probe.chip) return std::nullopt;
  const auto& p = *probe.decode;
  return lacks_gpus("the decode pool's " + std::to_string(p.replicas) + " replicas x TP" +
                        std::to_string(p.recipe.tensor_parallel) + " need",
                    probe.gpus_wanted(p.chip), p.chip, unclaimed_gpus(ctx.state.company, p.chip, existing), "");
}

// The segment a deploy serves: the one it names, else the model's only one.
std::optional<Refusal> deploy_segment(const Scenario& sc, const Deploy& c, std::string& segment) {
  if (c.segment) {
    const auto* seg = sc.find_segment(*c.segment);
    if (!seg) return refusal_of("no customer segment '" + *c.segment + "'");
    if (seg->model != c.model)
      return refusal_of("segment '" + *c.segment + "' uses " + seg->model + ", not " + c.model);
    segment = seg->id;
    return std::nullopt;
  }
  std::vector<std::string> ids;
  for (const auto& seg : sc.segments) {
    if (seg.model == c.model) ids.push_back(seg.id);
  }
  if (ids.empty()) return refusal_of("no customers for " + c.model + " in this scenario");
  if (ids.size() > 1) {
    std::string list;
    for (const auto& id : ids) list += (list.empty() ? "" : ", ") + id;
    return refusal_of(c.model + " serves several segments; name one (" + list + ")");
  }
  segment = ids.front();
  return std::nullopt;
}

std::string replicas_outside(const char* what, int replicas, int min) {
  return std::string(what) + " " + std::to_string(replicas) + " is outside " + std::to_string(min) + ".." +
         std::to_string(kReplicasRange.max);
}

}  // namespace

perf::MemoryPlan recipe_memory_plan(const data::Catalog& catalog, const Scenario& scenario, const std::string& model,
                                    const std::string& chip, const std::string& segment, const RecipeSettings& recipe) {
  const perf::Deployment d =
      to_perf_deployment(catalog, model, chip, recipe, acceptance_for(catalog, scenario, segment, model, chip, recipe));
  return perf::plan_memory(d, recipe.max_num_batched_tokens, recipe.max_num_seqs);
}

std::string memory_shortfall(const perf::MemoryPlan& plan) {
  constexpr std::string_view kLead = "does not fit: ";
  return plan.reason.rfind(kLead, 0) == 0 ? plan.reason.substr(kLead.size()) : plan.reason;
}

std::optional<std::string> recipe_refusal(const data::Catalog& catalog, const Scenario& scenario,
                                          const std::string& model, const std::string& chip, const std::string& segment,
                                          const RecipeSettings& recipe) {
  if (const data::Engine* e = catalog.find_engine(recipe.engine); e && !e->serves_production) {
    return recipe.engine + " is " + e->name + ", not a serving engine a business deploys";
  }
  if (auto why = recipe_limits_refusal(recipe, catalog.find_accelerator(chip))) return *why;
  perf::MemoryPlan mem;
  try {
    mem = recipe_memory_plan(catalog, scenario, model, chip, segment, recipe);
  } catch (const std::exception& e) {
    return model + " on " + chip + " with " + describe(recipe) + ": " + e.what();
  }
  if (mem.fits) return std::nullopt;
  const std::string reason = memory_shortfall(mem);
  const auto* acc = catalog.find_accelerator(chip);
  return "Does not fit in " + (acc ? acc->name : chip) + " memory: " + reason + " (" + model + " with " +
         describe(recipe) + "). Use more GPUs per replica, a smaller precision, or a bigger chip.";
}

std::optional<Refusal> check_deploy(const CheckContext& ctx, const Deploy& c, DeploymentState* out) {
  const auto& sc = ctx.scenario;
  const auto& catalog = ctx.catalog;
  std::string segment;
  if (auto r = deploy_segment(sc, c, segment)) return r;
  const data::ModelCard* model = catalog.find_model(c.model);
  const data::Accelerator* chip = catalog.find_accelerator(c.chip);
  if (!model || !chip) return refusal_of("unknown model or chip");
  if (auto r = check_recipe_locks(ctx, c.recipe)) return r;
  RecipeSettings recipe = apply_overrides(default_recipe(catalog, *model, *chip), c.recipe);
  if (auto why = recipe_refusal(catalog, sc, c.model, c.chip, segment, recipe)) return refusal_of(*why);
  if (c.replicas < 1) return refusal_of("deploy at least one replica");
  if (!kReplicasRange.contains(c.replicas)) return refusal_of(replicas_outside("replicas", c.replicas, 1));
  DeploymentState d;
  d.model = c.model;
  d.segment = segment;
  d.chip = c.chip;
  d.recipe = recipe;
  d.replicas = c.replicas;
  d.created_at_hour = ctx.state.hour;
  if (c.decode) {
    if (!sc.allow_disaggregated) {
      return refusal_of("this scenario offers no disaggregated serving (a separate decode pool): deploy without one");
    }
    const data::Accelerator* decode_chip = catalog.find_accelerator(c.decode->chip);
    if (!decode_chip) return refusal_of("unknown decode chip '" + c.decode->chip + "'");
    if (auto r = check_recipe_locks(ctx, c.decode->recipe)) return r;
    if (c.decode->replicas < 1) return refusal_of("the decode pool needs at least one replica");
    if (!kReplicasRange.contains(c.decode->replicas)) {
      return refusal_of(replicas_outside("decode replicas", c.decode->replicas, 1));
    }
    DecodePoolState p;
    p.chip = c.decode->chip;
    // Both pools run one engine, unless the command names another (then refused below).
    p.recipe = decode_pool_recipe(catalog, *model, *decode_chip, recipe, c.decode->recipe);
    p.replicas = c.decode->replicas;
    p.link = c.decode->link;
    d.decode = p;
    if (auto r = check_disaggregated(ctx, d)) return r;
  }
  if (auto r = lacks_gpus(std::to_string(c.replicas) + " replicas x TP" + std::to_string(recipe.tensor_parallel) +
                              (d.decode && d.decode->chip == c.chip ? " and the decode pool" : "") + " need",
                          d.gpus_wanted(c.chip), c.chip, unclaimed_gpus(ctx.state.company, c.chip, std::nullopt), "")) {
    return r;
  }
  if (auto r = check_decode_gpus(ctx, d, std::nullopt)) return r;
  if (out) *out = std::move(d);
  return std::nullopt;
}

std::optional<Refusal> check_change_recipe(const CheckContext& ctx, std::int64_t id, const serving::ServingOverrides& o,
                                           bool check_locks, RecipeSettings* out) {
  const auto* d = ctx.state.company.find_deployment(id);
  if (!d) return refusal_of("no deployment " + std::to_string(id));
  if (check_locks) {
    if (auto r = check_recipe_locks(ctx, o)) return r;
  }
  RecipeSettings recipe = apply_overrides(d->recipe, o);
  if (auto why = recipe_refusal(ctx.catalog, ctx.scenario, d->model, d->chip, d->segment, recipe)) {
    return refusal_of(*why);
  }
  DeploymentState probe = *d;
  probe.recipe = recipe;
  if (probe.decode) {
    if (auto r = check_disaggregated(ctx, probe)) return r;
  }
  if (auto r = lacks_gpus("the new recipe (" + std::to_string(d->replicas) + " replicas x TP" +
                              std::to_string(recipe.tensor_parallel) + ") needs",
                          probe.gpus_wanted(d->chip), d->chip, unclaimed_gpus(ctx.state.company, d->chip, d->id),
                          " for this deployment")) {
    return r;
  }
  if (out) *out = std::move(recipe);
  return std::nullopt;
}

std::optional<Refusal> check_scale(const CheckContext& ctx, const ScaleReplicas& c) {
  const auto* d = ctx.state.company.find_deployment(c.deployment_id);
  if (!d) return refusal_of("no deployment " + std::to_string(c.deployment_id));
  if (c.replicas < kScaleReplicasRange.min) return refusal_of("replicas must not be negative");
  if (c.replicas > kScaleReplicasRange.max) return refusal_of(replicas_outside("replicas", c.replicas, 0));
  DeploymentState probe = *d;
  probe.replicas = c.replicas;
  if (c.decode_replicas) {
    if (!d->decode) return refusal_of("deployment " + std::to_string(d->id) + " has no decode pool to scale");
    if (*c.decode_replicas < kScaleReplicasRange.min) return refusal_of("decode replicas must not be negative");
    if (*c.decode_replicas > kScaleReplicasRange.max) {
      return refusal_of(replicas_outside("decode replicas", *c.decode_replicas, 0));
    }
    probe.decode->replicas = *c.decode_replicas;
  }
  if (probe.decode && probe.replicas > 0 && probe.decode->replicas > 0) {
    if (auto r = check_disaggregated(ctx, probe)) return r;
  }
  if (auto r = lacks_gpus(std::to_string(c.replicas) + " replicas need", probe.gpus_wanted(d->chip), d->chip,
                          unclaimed_gpus(ctx.state.company, d->chip, d->id), " for this deployment")) {
    return r;
  }
  return check_decode_gpus(ctx, probe, d->id);
}

}  // namespace tycoon::game
