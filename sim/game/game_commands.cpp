// What each command does to the game state (see command.h), and why it may be refused.
#include <algorithm>
#include <cstdio>

#include "sim/econ/prices.h"
#include "sim/game/command_applier.h"
#include "sim/game/deploy_checks.h"
#include "sim/game/game.h"
#include "sim/game/lever_limits.h"
#include "sim/game/market.h"

namespace tycoon::game {

namespace {

CommandResult refuse(std::string why) { return {false, std::move(why)}; }
CommandResult done(std::string what) { return {true, std::move(what)}; }

}  // namespace

CommandResult Game::apply(const Command& command) {
  if (state_.finished) return refuse("the game is over");
  state_.log.push_back({state_.hour, command});
  CommandApplier applier{*this, true};
  auto r = applier.apply(command);
  if (!std::holds_alternative<Advance>(command) && !(r.ok && r.message.empty())) {
    const bool advice = std::holds_alternative<AcceptAdvice>(command) ||
                        std::holds_alternative<RejectAdvice>(command) || std::holds_alternative<CheckAdvice>(command) ||
                        std::holds_alternative<RevertAdvice>(command);
    const NewsTone tone = !r.ok       ? NewsTone::kLoss
                          : r.warning ? NewsTone::kWarning
                          : advice    ? NewsTone::kAdvice
                                      : NewsTone::kInfo;
    news((r.ok ? "" : "Refused " + std::string(command_name(command)) + ": ") + r.message, tone);
  }
  update_tutorial();
  return r;
}

CommandResult CommandApplier::apply(const Command& c) {
  if (enforce_locks && locked(command_name(c))) {
    return refuse(std::string(command_name(c)) + " is locked in this scenario");
  }
  return std::visit(*this, c);
}

bool CommandApplier::locked(std::string_view lever) const {
  return enforce_locks && game.scenario_.lever_locked(lever);
}

CheckContext CommandApplier::context() const { return {*game.catalog_, game.scenario_, game.state_, enforce_locks}; }

CommandResult CommandApplier::operator()(const RentGpus& c) {
  auto& s = game.state_;
  if (locked("contract." + std::string(to_string(c.contract)))) {
    return refuse(std::string(to_string(c.contract)) + " contracts are locked in this scenario");
  }
  if (auto why = rent_refusal(game.scenario_, s, c, enforce_locks)) return refuse(*why);
  const auto* offer = s.world.market.find(c.chip, c.contract);
  const GpuContract& k = sign_contract(s.company, *offer, c.num_gpus, s.hour, offer->lead_time_hours);
  std::string msg = "Contract " + std::to_string(k.id) + ": " + std::to_string(c.num_gpus) + " x " + c.chip + " " +
                    std::string(to_string(c.contract)) + " at " + econ::usd_text(k.signed_price_usd_per_gpu_hour) +
                    "/GPU-hour, serving from hour " + std::to_string(k.ready_at_hour);
  if (c.contract == Contract::kReserved) msg += ", committed until hour " + std::to_string(k.term_ends_at_hour);
  return done(msg);
}

CommandResult CommandApplier::operator()(const ReleaseGpus& c) {
  auto& s = game.state_;
  auto& cs = s.company.contracts;
  auto it = std::find_if(cs.begin(), cs.end(), [&](const GpuContract& k) { return k.id == c.contract_id; });
  if (it == cs.end()) return refuse("no contract " + std::to_string(c.contract_id));
  int n = c.num_gpus.value_or(it->num_gpus);
  if (n < 1 || n > it->num_gpus) {
    return refuse("contract " + std::to_string(it->id) + " holds " + std::to_string(it->num_gpus) + " GPUs");
  }
  std::string msg = "Released " + std::to_string(n) + " x " + it->chip + " from contract " + std::to_string(it->id);
  if (it->contract == Contract::kReserved && s.hour < it->term_ends_at_hour) {
    const auto hours_left = release_hours_left(*it, s.hour);
    const double fee = release_fee_usd(*it, n, s.hour);
    s.company.cash_usd -= fee;
    s.ledger.add_gpu_cost(Contract::kReserved, fee);
    msg +=
        "; early release pays the remaining " + std::to_string(hours_left) + " committed hours: " + econ::usd_text(fee);
  }
  std::string chip = it->chip;
  it->num_gpus -= n;
  if (it->num_gpus == 0) cs.erase(it);
  CommandResult r = done(msg);
  if (unclaimed_gpus(s.company, chip, std::nullopt) < 0) {
    r.message += " (deployments on " + chip + " now lack GPUs and lose replicas)";
    r.warning = true;
  }
  return r;
}

CommandResult CommandApplier::operator()(const Deploy& c) {
  auto& s = game.state_;
  DeploymentState d;
  if (auto r = check_deploy(context(), c, &d)) return refuse(r->message);
  const RecipeSettings& recipe = d.recipe;
  d.id = s.company.next_deployment_id++;
  s.company.deployments.push_back(d);
  std::string msg = "Deployment " + std::to_string(d.id) + ": " + c.model + " on " + std::to_string(c.replicas) +
                    " x " + std::to_string(recipe.tensor_parallel) + " " + c.chip + " (" + describe(recipe) + ")";
  if (d.decode) {
    const auto& p = *d.decode;
    msg += " for prefill, decode on " + std::to_string(p.replicas) + " x " + std::to_string(p.recipe.tensor_parallel) +
           " " + p.chip + " (" + describe(p.recipe) + ") over " +
           std::string(serving::kKvLinkNames[static_cast<std::size_t>(p.link)]) + ",";
  }
  return done(msg + " for " + d.segment);
}

CommandResult CommandApplier::operator()(const Undeploy& c) {
  auto& ds = game.state_.company.deployments;
  auto it = std::find_if(ds.begin(), ds.end(), [&](const DeploymentState& d) { return d.id == c.deployment_id; });
  if (it == ds.end()) return refuse("no deployment " + std::to_string(c.deployment_id));
  ds.erase(it);
  return done("Deployment " + std::to_string(c.deployment_id) + " stopped; its GPUs are free (and still rented)");
}

CommandResult CommandApplier::change_recipe(std::int64_t id, const serving::ServingOverrides& o, bool check_locks) {
  RecipeSettings recipe;
  if (auto r = check_change_recipe(context(), id, o, check_locks, &recipe)) return refuse(r->message);
  auto* d = game.state_.company.find_deployment(id);
  d->recipe = recipe;
  return done("Deployment " + std::to_string(id) + " now runs " + describe(recipe));
}

CommandResult CommandApplier::operator()(const ChangeRecipe& c) {
  return change_recipe(c.deployment_id, c.recipe, true);
}

CommandResult CommandApplier::operator()(const ScaleReplicas& c) {
  if (auto r = check_scale(context(), c)) return refuse(r->message);
  auto* d = game.state_.company.find_deployment(c.deployment_id);
  d->replicas = c.replicas;
  if (c.decode_replicas) d->decode->replicas = *c.decode_replicas;
  std::string msg = "Deployment " + std::to_string(d->id) + " scaled to " + std::to_string(c.replicas) + " replicas";
  if (c.decode_replicas) msg += " (prefill) and " + std::to_string(*c.decode_replicas) + " decode replicas";
  return done(msg);
}

CommandResult CommandApplier::operator()(const SetPrices& c) {
  auto& prices = game.state_.company.prices;
  auto it = prices.find(c.model);
  if (it == prices.end()) return refuse("this scenario sells no " + c.model);
  if (auto why = price_refusal(c)) return refuse(*why);
  if (c.input_usd_per_mtok) it->second.input_usd_per_mtok = *c.input_usd_per_mtok;
  if (c.cached_input_usd_per_mtok) it->second.cached_input_usd_per_mtok = *c.cached_input_usd_per_mtok;
  if (c.output_usd_per_mtok) it->second.output_usd_per_mtok = *c.output_usd_per_mtok;
  const auto& p = it->second;
  return done(c.model + " now costs " + econ::usd_text(p.input_usd_per_mtok) + " in / " +
              econ::usd_text(p.cached_input_usd_per_mtok) + " cached / " + econ::usd_text(p.output_usd_per_mtok) +
              " out per million tokens");
}

CommandResult CommandApplier::operator()(const AcceptAdvice& c) {
  auto& s = game.state_;
  auto it = std::find_if(s.inbox.begin(), s.inbox.end(), [&](const Advice& a) { return a.id == c.advice_id; });
  if (it == s.inbox.end()) return refuse("no advice '" + c.advice_id + "' in the inbox");
  if (it->status != AdviceStatus::kPending) return refuse("advice '" + c.advice_id + "' was already decided");
  auto* d = s.company.find_deployment(it->deployment_id);
  if (!d) return refuse("the advice's deployment " + std::to_string(it->deployment_id) + " is gone");
  const RecipeSettings before = d->recipe;
  const int replicas_before = d->replicas;
  if (!recipe_fields_set(it->effect.recipe).empty()) {
    if (auto r = change_recipe(it->deployment_id, it->effect.recipe, false); !r.ok) return r;
    d = s.company.find_deployment(it->deployment_id);
  }
  it->previous_recipe = before;
  it->previous_replicas = replicas_before;
  if (it->effect.replicas) d->replicas = *it->effect.replicas;
  d->speedup *= it->effect.speedup;
  it->status = AdviceStatus::kAccepted;
  it->decided_at_hour = s.hour;
  std::string msg = "Accepted advice '" + it->id + "': " + it->title;
  if (it->effect.reputation_hit > 0) {
    for (auto& seg : s.world.segments) {
      if (seg.id == d->segment) seg.reputation *= 1.0 - std::min(1.0, it->effect.reputation_hit);
    }
    msg += ". Quality incident: customers of " + d->segment + " report wrong or refused answers; reputation falls";
  }
  return done(msg);
}

CommandResult CommandApplier::operator()(const RejectAdvice& c) {
  auto& s = game.state_;
  auto it = std::find_if(s.inbox.begin(), s.inbox.end(), [&](const Advice& a) { return a.id == c.advice_id; });
  if (it == s.inbox.end()) return refuse("no advice '" + c.advice_id + "' in the inbox");
  if (it->status != AdviceStatus::kPending) return refuse("advice '" + c.advice_id + "' was already decided");
  it->status = AdviceStatus::kRejected;
  it->decided_at_hour = s.hour;
  return done("Rejected advice '" + it->id + "'");
}

CommandResult CommandApplier::operator()(const CheckAdvice& c) {
  auto& s = game.state_;
  auto it = std::find_if(s.inbox.begin(), s.inbox.end(), [&](const Advice& a) { return a.id == c.advice_id; });
  if (it == s.inbox.end()) return refuse("no advice '" + c.advice_id + "' in the inbox");
  if (it->status != AdviceStatus::kPending) return refuse("advice '" + c.advice_id + "' was already decided");
  if (!game.advisor_) return refuse("no advisor in this game to run the check");
  if (auto why = check_refusal(game.scenario_, s, *it, c.check, 0)) return refuse(*why);
  // The advisor runs the check on a copy of its memory: a check refused for its cost leaves the
  // advisor's random streams as they were, so the game goes on as if it had not been asked.
  AdviceCheck r;
  AdvisorState memory = s.advisor;
  try {
    r = game.advisor_->check(s, memory, *it, c.check, c.repetitions);
  } catch (const std::invalid_argument& e) {
    return refuse(e.what());
  }
  if (auto why = check_refusal(game.scenario_, s, *it, c.check, r.cost_usd)) return refuse(*why);
  s.advisor = std::move(memory);
  s.company.cash_usd -= r.cost_usd;
  // A benchmark rents GPU hours; a component test is an engineer's time; a canary costs what its
  // slice of customers lost.
  if (c.check == AdviceCheckKind::kBenchmark) {
    s.ledger.add_gpu_cost(Contract::kOnDemand, r.cost_usd);
  } else {
    s.ledger.add_fixed_cost(r.cost_usd);
  }
  std::string msg = "Paid " + econ::usd_text(r.cost_usd) + " for a " +
                    std::string(kAdviceCheckKindNames[static_cast<std::size_t>(c.check)]) + " of '" + it->id +
                    "', ready at hour " + std::to_string(r.ready_at_hour);
  if (r.reputation_hit > 0) {
    if (const auto* d = s.company.find_deployment(it->deployment_id)) {
      for (auto& seg : s.world.segments) {
        if (seg.id == d->segment) seg.reputation *= 1.0 - std::min(1.0, r.reputation_hit);
      }
    }
    msg += "; the canary's customers saw bad answers";
  }
  it->checks.push_back(std::move(r));
  return done(msg);
}

CommandResult CommandApplier::operator()(const ViewPanel&) { return done(""); }

CommandResult CommandApplier::operator()(const RevertAdvice& c) {
  auto& s = game.state_;
  auto it = std::find_if(s.inbox.begin(), s.inbox.end(), [&](const Advice& a) { return a.id == c.advice_id; });
  if (it == s.inbox.end()) return refuse("no advice '" + c.advice_id + "' in the inbox");
  if (auto why = revert_refusal(s, *it)) return refuse(*why);
  auto* d = s.company.find_deployment(it->deployment_id);
  // The recipe fields the proposal set go back to what they were (later changes of other fields stay).
  if (!recipe_fields_set(it->effect.recipe).empty()) {
    // The fields it set, and those a change of them resets (expert parallelism, the acceptance).
    const auto& e = it->effect.recipe;
    const auto& was = *it->previous_recipe;
    serving::ServingOverrides back;
    if (e.engine) back.engine = was.engine;
    if (e.precision) back.precision = was.precision;
    if (e.kv_cache_dtype) back.kv_cache_dtype = was.kv_cache_dtype;
    if (e.tensor_parallel || e.expert_parallel) {
      back.tensor_parallel = was.tensor_parallel;
      back.expert_parallel = was.expert_parallel;
    }
    if (e.spec_draft_tokens || e.spec_acceptance_length) {
      back.spec_draft_tokens = was.spec_draft_tokens;
      back.spec_acceptance_length = was.spec_acceptance_length;
    }
    if (e.max_num_batched_tokens) back.max_num_batched_tokens = was.max_num_batched_tokens;
    if (e.max_num_seqs) back.max_num_seqs = was.max_num_seqs;
    if (e.prefix_caching) back.prefix_caching = was.prefix_caching;
    if (e.cuda_graphs) back.cuda_graphs = was.cuda_graphs;
    if (e.router) back.router = was.router;
    if (auto r = change_recipe(d->id, back, false); !r.ok) return r;
    d = s.company.find_deployment(it->deployment_id);
    // Unset before: a spec acceptance the segment's traffic gives (an override cannot say "none").
    if (back.spec_draft_tokens && !was.spec_acceptance_length) d->recipe.spec_acceptance_length.reset();
  }
  if (it->effect.replicas && it->previous_replicas) d->replicas = *it->previous_replicas;
  d->speedup /= it->effect.speedup;
  it->reverted_at_hour = s.hour;
  return done("Reverted advice '" + it->id + "': " + it->title + " is undone on deployment " + std::to_string(d->id));
}

CommandResult CommandApplier::operator()(const Advance& c) {
  if (c.hours < 1) return refuse("advance at least one hour");
  game.advance(c.hours);
  return done("Advanced to hour " + std::to_string(game.state_.hour));
}

const GpuContract* Company::find_contract(std::int64_t id) const {
  for (const auto& c : contracts) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

const DeploymentState* Company::find_deployment(std::int64_t id) const {
  for (const auto& d : deployments) {
    if (d.id == id) return &d;
  }
  return nullptr;
}

DeploymentState* Company::find_deployment(std::int64_t id) {
  for (auto& d : deployments) {
    if (d.id == id) return &d;
  }
  return nullptr;
}

}  // namespace tycoon::game
