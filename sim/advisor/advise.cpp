#include "sim/advisor/advise.h"

#include <algorithm>
#include <memory>

#include "sim/advisor/persona.h"
#include "sim/game/game.h"
#include "sim/game/rng.h"
#include "sim/perf/profile_lookup.h"

namespace tycoon::advisor {

namespace {

// The proposals pending in `state`, by claimed gain (the highest first; ties in posting order).
std::vector<const ProposalRecord*> pending_ranked(const game::GameState& state) {
  std::vector<const ProposalRecord*> out;
  for (const auto& r : state.advisor.records) {
    const auto& inbox = state.inbox;
    auto a = std::find_if(inbox.begin(), inbox.end(), [&](const game::Advice& x) { return x.id == r.advice_id; });
    if (a != inbox.end() && a->status == game::AdviceStatus::kPending) out.push_back(&r);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const auto* a, const auto* b) { return a->claimed_speedup > b->claimed_speedup; });
  return out;
}

// Pays for a check of the top `verify` pending proposals, then runs the game on (no decisions)
// until their results are in. Returns the refusals, "id: reason".
std::vector<std::string> check_top(game::Game& g, int verify, game::AdviceCheckKind kind,
                                   const AdviseProgress& progress) {
  std::vector<std::string> refused;
  auto ranked = pending_ranked(g.state());
  const std::size_t n = std::min(ranked.size(), static_cast<std::size_t>(std::max(0, verify)));
  if (progress) progress(0, n);
  for (std::size_t i = 0; i < n; ++i) {
    auto res = g.apply(game::CheckAdvice{ranked[i]->advice_id, kind});
    if (!res.ok) refused.push_back(ranked[i]->advice_id + ": " + res.message);
    if (progress) progress(i + 1, n);
  }
  std::int64_t ready = g.state().hour;
  for (const auto& a : g.state().inbox) {
    for (const auto& c : a.checks) ready = std::max(ready, c.ready_at_hour);
  }
  ready = std::min(ready, g.state().end_hour - 1);
  if (ready > g.state().hour) g.advance(ready - g.state().hour);
  return refused;
}

}  // namespace

double checks_usd(const game::GameState& state) {
  double total = 0;
  for (const auto& a : state.inbox) {
    for (const auto& c : a.checks) total += c.cost_usd;
  }
  return total;
}

AdviseReport advise(const data::Catalog& catalog, const game::Scenario& scenario, CodeChangeCatalog changes,
                    const AdviseRequest& request, const AdviseProgress& progress) {
  game::GameOptions opts;
  if (request.seed) opts.seed = *request.seed;
  game::Game g(scenario, catalog, opts);
  auto chien = std::make_shared<Chien>(catalog, g.scenario(), std::move(changes), request.options);
  g.set_advisor(chien);
  // Advise at the requested hour, but no earlier than the advisor's first round.
  std::int64_t hour =
      std::max<std::int64_t>(static_cast<std::int64_t>(request.at_day * 24), chien->options().first_proposal_hour);
  hour = std::min(hour, g.state().end_hour - 1);
  g.advance(hour - g.state().hour);

  AdviseReport out;
  out.advised_at_hour = g.state().hour;
  out.checks_refused = check_top(g, request.verify, request.check, progress);
  const auto& st = g.state();
  out.scenario_id = st.scenario_id;
  out.seed = st.seed;
  out.hour = st.hour;
  out.search = chien->options().search;
  for (const auto& p : chien->profile_all(st)) {
    // The recipe search on this deployment's traffic, every candidate kept.
    const auto* d = st.company.find_deployment(p.deployment_id);
    out.profiles.push_back(
        {p, search_recipes(catalog, g.scenario(), *d, perf::calibration_for(catalog, catalog.accelerator(d->chip)),
                           p.offered_requests_per_s_per_replica,
                           game::derive_seed(st.seed, "advise-recipe-search|" + std::to_string(p.deployment_id)),
                           out.search)});
  }
  const auto ranked = pending_ranked(st);
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    const auto& a = *std::find_if(st.inbox.begin(), st.inbox.end(),
                                  [&](const game::Advice& x) { return x.id == ranked[i]->advice_id; });
    auto j = player_view_json(*ranked[i], a, st.hour);
    j["rank"] = i + 1;
    out.proposals.push_back(j);
  }
  out.checks_usd = checks_usd(st);
  return out;
}

nlohmann::json to_json(const AdviseReport& r) {
  nlohmann::json profiles = nlohmann::json::array();
  for (const auto& [p, result] : r.profiles) {
    auto j = to_json(p);
    nlohmann::json cands = nlohmann::json::array();
    for (const auto& c : result.evaluated) {
      cands.push_back({{"change", c.move.label},
                       {"goodput_tok_per_s_per_gpu", c.goodput_per_gpu},
                       {"gain", c.gain},
                       {"gain_stddev", c.gain_stddev},
                       {"gain_low", c.gain_low},
                       {"seeds", c.seeds}});
    }
    auto label = [](const std::optional<RecipeCandidate>& c) {
      return c ? nlohmann::json(c->move.label) : nlohmann::json(nullptr);
    };
    j["recipe_search"] = {
        {"baseline_goodput_tok_per_s_per_gpu", result.baseline_goodput_per_gpu},
        {"runs", result.num_runs},
        {"finalists", r.search.finalists},
        {"skipped", result.skipped},
        {"seeds_per_candidate", result.repeats},
        {"window_s", r.search.window_s},
        {"candidates", cands},
        {"leader", label(result.leader)},
        {"best", label(result.best)},
        {"confirmed_gain", result.best ? nlohmann::json(result.best->gain) : nlohmann::json(nullptr)}};
    profiles.push_back(j);
  }
  return {{"advisor", kPersonaName},
          {"motto", kPersonaMotto},
          {"scenario", r.scenario_id},
          {"seed", r.seed},
          {"advised_at_hour", r.advised_at_hour},
          {"hour", r.hour},
          {"profiles", profiles},
          {"proposals", r.proposals},
          {"checks_refused", r.checks_refused},
          {"checks_usd", r.checks_usd}};
}

}  // namespace tycoon::advisor
