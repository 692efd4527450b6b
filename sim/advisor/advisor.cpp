// Chien's profiles of the deployments and the proposals it writes from them: code changes from
// the catalog (by Amdahl on the profile) and recipe changes found by the recipe search. Its checks
// are in checks.cpp, its debrief in debrief.cpp.
#include "sim/advisor/advisor.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/advisor/persona.h"
#include "sim/advisor/wording.h"
#include "sim/game/rng.h"
#include "sim/perf/profile_lookup.h"

namespace tycoon::advisor {

std::shared_ptr<Chien> default_advisor(const data::Catalog& catalog, const game::Scenario& scenario,
                                       const CodeChangeCatalog& changes) {
  if (!scenario.advisor_allowed()) return nullptr;
  return std::make_shared<Chien>(catalog, scenario, changes);
}

std::shared_ptr<Chien> default_advisor(const data::Catalog& catalog, const game::Scenario& scenario,
                                       const std::filesystem::path& data_root) {
  if (!scenario.advisor_allowed()) return nullptr;
  return std::make_shared<Chien>(catalog, scenario, load_code_change_catalog_from_root(data_root));
}

Chien::Chien(const data::Catalog& catalog, game::Scenario scenario, CodeChangeCatalog changes, AdvisorOptions options)
    : catalog_(&catalog),
      scenario_(std::move(scenario)),
      changes_(std::move(changes)),
      options_(options),
      calibrations_(catalog) {}

const perf::CalibrationProfile& Chien::calibration(const std::string& chip) { return calibrations_(chip); }

std::optional<DeploymentProfile> Chien::profile(const game::GameState& state, const game::DeploymentState& d) {
  // A disaggregated deployment's two pools are outside what the advisor profiles and searches
  // (one replica shape per deployment): it makes no proposals for one.
  if (d.decode) return std::nullopt;
  double rate = last_rate_per_replica(state, d);
  if (rate <= 0 || d.active_replicas <= 0) return std::nullopt;
  // The game's own window for one replica at this load (its seed, like the game's, from the
  // customers): the profile sees the requests the deployment serves in its hours.
  DeploymentSetup setup(*catalog_, scenario_, d, d.recipe, calibration(d.chip), rate);
  const auto config = setup.window(state.seed, unit_op_times());
  std::string key = std::to_string(d.id) + '|' + setup.identity(config);
  if (auto it = profile_cache_.find(key); it != profile_cache_.end()) return it->second;
  auto run = serving::simulate(config, setup.calibration());
  auto p = make_profile(d, setup, run);
  p.offered_requests_per_s_per_replica = rate;
  return profile_cache_.emplace(std::move(key), p).first->second;
}

std::vector<DeploymentProfile> Chien::profile_all(const game::GameState& state) {
  std::vector<DeploymentProfile> out;
  for (const auto& d : state.company.deployments) {
    if (auto p = profile(state, d)) out.push_back(*p);
  }
  return out;
}

std::vector<game::Advice> Chien::propose(const game::GameState& state, game::AdvisorState& memory) {
  if (!memory.seeded) {
    // Per level and seed: the tutorial and level 1 on one seed draw different proposals.
    memory.propose_rng.seed(game::derive_seed(state.seed, "advisor|" + scenario_.id));
    memory.check_rng.seed(game::derive_seed(state.seed, "advisor-checks|" + scenario_.id));
    memory.seeded = true;
  }
  std::vector<game::Advice> out;
  const std::int64_t since = state.hour - options_.first_proposal_hour;
  if (since < 0) return out;
  const bool code_due = since % options_.code_change_interval_hours == 0;
  const bool recipe_due = options_.recipe_search && since % options_.recipe_search_interval_hours == 0;
  if (!code_due && !recipe_due) return out;
  for (const auto& d : state.company.deployments) {
    int pending = 0;
    for (const auto& a : state.inbox) {
      if (a.deployment_id == d.id && a.status == game::AdviceStatus::kPending) ++pending;
    }
    if (pending >= options_.max_pending_per_deployment) continue;
    auto p = profile(state, d);
    if (!p) continue;
    std::vector<game::Advice> made;
    if (code_due) {
      if (auto a = propose_code_change(state, memory, d, *p)) made.push_back(std::move(*a));
    }
    if (recipe_due) {
      if (auto a = propose_recipe(state, memory, d, p->offered_requests_per_s_per_replica))
        made.push_back(std::move(*a));
    }
    for (auto& a : made) {
      mark_minor(state, d, a);
      out.push_back(std::move(a));
    }
  }
  return out;
}

double claim_value_usd(const data::Catalog& catalog, const game::GameState& state, const game::DeploymentState& d,
                       double claimed_speedup) {
  const double rent = d.gpus_wanted() * gpu_price_usd_per_hour(catalog, state, d.chip);
  const double hours = static_cast<double>(std::max<std::int64_t>(0, state.end_hour - state.hour));
  return claimed_speedup > 1.0 ? rent * hours * (1.0 - 1.0 / claimed_speedup) : 0.0;
}

void Chien::mark_minor(const game::GameState& state, const game::DeploymentState& d, game::Advice& a) const {
  const double value = claim_value_usd(*catalog_, state, d, a.claimed_speedup);
  const double check = quote_check(options_, *catalog_, state, a, game::AdviceCheckKind::kBenchmark).cost_usd;
  char buf[240];
  if (a.claimed_speedup < 1.0 + game::kMinorClaim) {
    std::snprintf(buf, sizeof buf,
                  " Minor: a claim under x%.3f is smaller than a benchmark can tell from its own noise: not worth a "
                  "check.",
                  1.0 + game::kMinorClaim);
  } else if (value < check) {
    std::snprintf(buf, sizeof buf,
                  " Minor: even if true it saves about $%.0f of GPU time over the rest of the game, less than a "
                  "benchmark costs ($%.0f): not worth a check.",
                  value, check);
  } else {
    return;
  }
  a.minor = true;
  a.rationale += buf;
}

std::optional<game::Advice> Chien::propose_code_change(const game::GameState& state, game::AdvisorState& memory,
                                                       const game::DeploymentState& d, const DeploymentProfile& p) {
  // Candidates: changes not yet proposed here, on an op class that matters on this traffic.
  // Chosen at random, weighted by the gain claimed: the biggest claims come up most often.
  std::vector<const CodeChange*> candidates;
  std::vector<double> weights;
  double total = 0;
  for (const auto& c : changes_.changes) {
    double share = p.time_share[static_cast<std::size_t>(c.op_class)];
    if (share < options_.min_op_share || memory.proposed.contains({d.id, c.id})) continue;
    OpTimes claimed = unit_op_times();
    claimed[static_cast<std::size_t>(c.op_class)] = c.claimed_op_time_scale();
    double w = amdahl_speedup(p.time_share, claimed) - 1.0;
    if (w < 0.005) continue;
    candidates.push_back(&c);
    weights.push_back(w);
    total += w;
  }
  if (candidates.empty()) return std::nullopt;
  double u = game::uniform01(memory.propose_rng) * total;
  std::size_t pick = 0;
  while (pick + 1 < candidates.size() && u >= weights[pick]) u -= weights[pick++];
  const CodeChange& c = *candidates[pick];
  memory.proposed.insert({d.id, c.id});

  const auto op = static_cast<std::size_t>(c.op_class);
  ProposalRecord r;
  r.advice_id = std::string(kPersonaName) + "-" + std::to_string(memory.next_id++);
  r.deployment_id = d.id;
  r.kind = ProposalKind::kCodeChange;
  r.change_id = c.id;
  r.title = c.title;
  r.posted_at_hour = state.hour;
  r.workload = p.workload;
  r.trait = c.trait;
  r.op_class = c.op_class;
  r.op_share = p.time_share[op];
  r.component_speedup = c.component_speedup;
  OpTimes claimed = unit_op_times();
  claimed[op] = c.claimed_op_time_scale();
  r.claimed_speedup = amdahl_speedup(p.time_share, claimed);
  r.true_op_time_scale[op] = c.true_op_time_scale(p.workload);
  r.true_speedup = amdahl_speedup(p.time_share, r.true_op_time_scale);
  r.reputation_hit = c.reputation_hit;

  game::Advice a;
  a.id = r.advice_id;
  a.deployment_id = d.id;
  a.title = c.title;
  a.rationale = "Profile: " + std::string(perf::to_string(c.op_class)) + " is " + pct(r.op_share) +
                " of step time on your " + std::string(serving::kWorkloadNames[static_cast<std::size_t>(p.workload)]) +
                " traffic. My component test makes it " + factor(c.component_speedup) + " faster; by Amdahl that is " +
                factor(r.claimed_speedup) + " end to end. Check me before you trust it.";
  a.claimed_speedup = r.claimed_speedup;
  a.effect.speedup = r.true_speedup;
  a.effect.reputation_hit = r.reputation_hit;
  memory.records.push_back(std::move(r));
  return a;
}

std::optional<game::Advice> Chien::propose_recipe(const game::GameState& state, game::AdvisorState& memory,
                                                  const game::DeploymentState& d, double rate) {
  // Seeds from the deployment's recipe and load bucket: a search repeated at the same load (the
  // next day's) reuses every run from the memo.
  rate = game::bucket_rate_per_s(rate, scenario_.serving.load_bucket_step);
  char bucket[48];
  std::snprintf(bucket, sizeof bucket, "|%a", rate);
  const std::string search_key = "recipe-search|" + d.model + "|" + d.chip + "|" + d.segment + "|" +
                                 game::to_json(d.recipe).dump() + "|" + std::to_string(d.replicas) + bucket;
  auto result = search_recipes(*catalog_, scenario_, d, calibration(d.chip), rate,
                               game::derive_seed(state.seed, search_key), options_.search, &search_memo_);
  if (!result.best) return std::nullopt;
  const auto& best = *result.best;
  const std::string key = "recipe:" + game::to_json(best.move.change).dump();
  if (memory.proposed.contains({d.id, key})) return std::nullopt;
  memory.proposed.insert({d.id, key});
  ProposalRecord r;
  r.advice_id = std::string(kPersonaName) + "-" + std::to_string(memory.next_id++);
  r.deployment_id = d.id;
  r.kind = ProposalKind::kRecipe;
  r.change_id = best.move.label;
  r.title = "Recipe: " + best.move.label;
  r.posted_at_hour = state.hour;
  r.workload = scenario_.find_segment(d.segment)->workload.kind;
  r.claimed_speedup = best.gain;
  r.claimed_spread = best.gain_stddev;
  r.recipe = best.move.change;
  r.replicas = best.move.replicas;
  // The truth: the same comparison with more and longer seeds than the search could afford.
  r.true_speedup = paired_recipe_gain(*catalog_, scenario_, d, calibration(d.chip), rate, best.move,
                                      options_.truth_window_factor * options_.search.window_s,
                                      game::derive_seed(state.seed, r.advice_id), options_.truth_seeds, &search_memo_);
  game::Advice a;
  a.id = r.advice_id;
  a.deployment_id = d.id;
  a.title = r.title;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%d runs: %zu recipes screened on one seed, the best on %d, each paired with the current recipe on "
                "the same arrivals. Goodput %.0f vs %.0f tok/s/GPU now: x%.3f, +/-%.3f across seeds.",
                result.num_runs, result.evaluated.size(), result.repeats, best.goodput_per_gpu,
                result.baseline_goodput_per_gpu, best.gain, best.gain_stddev);
  a.rationale = buf;
  a.claimed_speedup = best.gain;
  a.effect.recipe = best.move.change;
  a.effect.replicas = best.move.replicas;
  memory.records.push_back(std::move(r));
  return a;
}

}  // namespace tycoon::advisor
