// The end-of-game debrief of Chien's proposals (what was true, the player's call, what it cost or
// earned), the advisor's JSON views, and the judgement the score reads.
#include "sim/advisor/advisor.h"

#include <algorithm>

#include "sim/advisor/persona.h"
#include "sim/advisor/wording.h"
#include "sim/game/game.h"
#include "sim/game/summary.h"

namespace tycoon::advisor {

Debrief make_debrief(const game::GameState& state) {
  Debrief out;
  for (const auto& r : state.advisor.records) {
    DebriefRow row;
    row.record = r;
    for (const auto& a : state.inbox) {
      if (a.id == r.advice_id) {
        row.decision = a.status;
        row.decided_at_hour = a.decided_at_hour;
        row.minor = a.minor;
      }
    }
    for (const auto& c : r.checks) row.checks_usd += c.cost_usd;
    const bool accepted = row.decision == game::AdviceStatus::kAccepted;
    if (accepted && row.decided_at_hour) {
      // What the game measured on the deployment around the decision (an hour's row is the hour
      // simulated after the commands at its boundary).
      const std::int64_t h0 = *row.decided_at_hour;
      double before = 0, after = 0;
      int nb = 0, na = 0;
      for (const auto& dh : state.deployment_history) {
        if (dh.deployment_id != r.deployment_id || dh.gpus_serving <= 0) continue;
        if (dh.hour < h0 && dh.hour >= h0 - kOutcomeHours) before += dh.output_tok_per_s_per_gpu, ++nb;
        if (dh.hour >= h0 && dh.hour < h0 + kOutcomeHours) after += dh.output_tok_per_s_per_gpu, ++na;
      }
      if (nb > 0) row.tok_per_gpu_before = before / nb;
      if (na > 0) row.tok_per_gpu_after = after / na;
      const auto& rep = state.history[game::Series::kReputation];
      const auto at = static_cast<std::size_t>(h0);
      if (h0 >= 1 && at <= rep.size()) row.reputation_before = rep[at - 1];
      if (h0 >= 0 && at < rep.size()) row.reputation_after = rep[at];
    }
    row.right_call = accepted ? r.good() : (row.decision == game::AdviceStatus::kRejected && !r.good());
    const bool too_late =
        row.decision == game::AdviceStatus::kPending && r.posted_at_hour + game::kJudgedAfterHours > state.end_hour;
    row.judged = !too_late && (!row.minor || (accepted && !r.good()));
    if (accepted && row.decided_at_hour) {
      // GPU time the change saved (or cost) while live: the deployment's rent × (1 − 1/speedup).
      double rent = 0;
      if (const auto* d = state.company.find_deployment(r.deployment_id)) {
        const auto* o = state.world.market.find(d->chip, Contract::kOnDemand);
        rent = d->gpus_wanted() * (o ? o->price_usd_per_gpu_hour() : 0.0);
      }
      double hours = static_cast<double>(state.hour - *row.decided_at_hour);
      row.value_usd = hours * rent * (1.0 - 1.0 / r.true_speedup);
    }
    // What it really does, in words a player reads (the blooper reel's mechanisms).
    std::string truth;
    if (r.reputation_hit > 0) {
      truth = r.trait == Trait::kQualityDrift
                  ? "outputs drift beyond tolerance: accepting it caused a quality incident"
                  : "games the scorer: its speed comes from refusing requests, which customers see (an incident)";
    } else if (r.trait == Trait::kScorerGaming) {
      truth = "games the scorer: faster on the benchmark's own prompts, not on your traffic";
    } else if (r.trait == Trait::kIsolationOnly) {
      truth = "fast only on the component test's shapes: " + factor(r.true_speedup) + " on your traffic";
    } else if (r.true_speedup < 0.99) {
      truth = "slower on your traffic (" + factor(r.true_speedup) + ")";
    } else if (r.true_speedup < 1.0 + game::kMaterialGain) {
      truth = r.kind == ProposalKind::kCodeChange && r.op_share < 0.1
                  ? "the kernel is faster, but it is " + pct(r.op_share) + " of the step: " + factor(r.true_speedup) +
                        " end to end, under the 1% worth a change"
                  : "no gain worth a change on your traffic (" + factor(r.true_speedup) + ")";
    } else if (r.trait == Trait::kShrinksOnOtherTraffic) {
      truth = "tuned for other traffic: a real but smaller gain on yours (" + factor(r.true_speedup) + ")";
    } else {
      truth = "a real gain on your traffic (" + factor(r.true_speedup) + ")";
    }
    row.truth = truth;
    const bool good = r.good();
    row.verdict = row.minor && row.decision != game::AdviceStatus::kAccepted ? "a minor claim, not judged"
                  : row.decision == game::AdviceStatus::kPending
                      ? (good ? "left undecided: a gain missed" : "left undecided")
                  : row.right_call ? (row.decision == game::AdviceStatus::kAccepted ? "right: a real gain taken"
                                                                                    : "right: a bad change kept out")
                  : row.decision == game::AdviceStatus::kAccepted ? "wrong: a bad change accepted"
                                                                  : "wrong: a real gain missed";
    out.checks_usd += row.checks_usd;
    out.value_usd += row.value_usd;
    switch (row.decision) {
      case game::AdviceStatus::kAccepted:
        ++out.num_accepted;
        if (r.reputation_hit > 0) ++out.num_incidents;
        if (r.true_speedup < 0.99) ++out.num_regressions;
        break;
      case game::AdviceStatus::kRejected:
        ++out.num_rejected;
        break;
      case game::AdviceStatus::kPending:
        ++out.num_pending;
        break;
    }
    if (row.right_call) ++out.num_right;
    out.rows.push_back(row);
  }
  return out;
}

nlohmann::json to_json(const DeploymentProfile& p) {
  nlohmann::json shares = nlohmann::json::object();
  std::vector<std::size_t> order(perf::kNumOpClasses);
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return p.time_share[a] > p.time_share[b]; });
  nlohmann::json ranked = nlohmann::json::array();
  for (auto i : order) {
    if (p.time_share[i] <= 0) continue;
    ranked.push_back({{"op_class", perf::kOpClassNames[i]}, {"time_share", p.time_share[i]}});
  }
  return {{"deployment_id", p.deployment_id},
          {"model", p.model},
          {"chip", p.chip},
          {"segment", p.segment},
          {"recipe", p.recipe},
          {"workload", serving::kWorkloadNames[static_cast<std::size_t>(p.workload)]},
          {"offered_requests_per_s_per_replica", p.offered_requests_per_s_per_replica},
          {"output_tok_per_s_per_gpu", p.output_tok_per_s_per_gpu},
          {"slo_share", p.slo_share},
          {"completed_share", p.completed_share},
          {"provenance", to_string(p.provenance)},
          {"time_by_op_class", ranked}};
}

nlohmann::json to_json(const CheckResult& c) {
  nlohmann::json j = {
      {"kind", to_string(c.kind)},        {"requested_at_hour", c.requested_at_hour},
      {"ready_at_hour", c.ready_at_hour}, {"measured_speedup", c.measured_speedup},
      {"interval_low", c.interval_low},   {"interval_high", c.interval_high},
      {"repetitions", c.repetitions},     {"verdict", game::kCheckVerdictNames[static_cast<std::size_t>(c.verdict)]},
      {"quality_flag", c.quality_flag},   {"rejection_flag", c.rejection_flag},
      {"cost_usd", c.cost_usd},           {"note", c.note}};
  if (c.measured_component_speedup) j["measured_component_speedup"] = *c.measured_component_speedup;
  return j;
}

nlohmann::json to_json(const CheckResult& c, std::int64_t now_hour) {
  if (c.ready(now_hour)) return to_json(c);
  return {{"kind", to_string(c.kind)},
          {"requested_at_hour", c.requested_at_hour},
          {"ready_at_hour", c.ready_at_hour},
          {"cost_usd", c.cost_usd},
          {"note", "running"}};
}

namespace {

// What a proposal claims beyond its speedup, into `j`: the op class it speeds up, that op's share
// of the step and the component speedup (under `component_key`) for a code change; the recipe,
// replicas and claimed spread for a recipe change.
void add_claim_fields(nlohmann::json& j, const ProposalRecord& r, const char* component_key) {
  if (r.op_class) {
    j["op_class"] = perf::to_string(*r.op_class);
    j["op_share"] = r.op_share;
    j[component_key] = r.component_speedup;
  }
  if (r.kind == ProposalKind::kRecipe) {
    j["recipe"] = game::to_json(r.recipe);
    if (r.replicas) j["replicas"] = *r.replicas;
    j["claimed_spread"] = r.claimed_spread;
  }
}

}  // namespace

nlohmann::json player_view_json(const ProposalRecord& r, const game::Advice& a, std::int64_t now_hour) {
  nlohmann::json j = {{"id", r.advice_id},
                      {"deployment_id", r.deployment_id},
                      {"kind", kProposalKindNames[static_cast<std::size_t>(r.kind)]},
                      {"change", r.change_id},
                      {"title", a.title},
                      {"rationale", a.rationale},
                      {"posted_at_hour", a.posted_at_hour},
                      {"status", game::kAdviceStatusNames[static_cast<std::size_t>(a.status)]},
                      {"claimed_speedup", a.claimed_speedup}};
  add_claim_fields(j, r, "claimed_component_speedup");
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& c : a.checks) checks.push_back(to_json(c, now_hour));
  j["checks"] = checks;
  // The index in "checks" of the check that decides now (game::deciding_check); null: none ready.
  const auto deciding = game::deciding_check(a, now_hour);
  j["deciding_check"] = deciding ? nlohmann::json(*deciding) : nlohmann::json(nullptr);
  return j;
}

nlohmann::json to_json(const ProposalRecord& r, bool reveal_truth) {
  nlohmann::json j = {{"id", r.advice_id},
                      {"deployment_id", r.deployment_id},
                      {"kind", kProposalKindNames[static_cast<std::size_t>(r.kind)]},
                      {"change", r.change_id},
                      {"title", r.title},
                      {"posted_at_hour", r.posted_at_hour},
                      {"claimed_speedup", r.claimed_speedup}};
  add_claim_fields(j, r, "component_speedup");
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& c : r.checks) checks.push_back(to_json(c));
  j["checks"] = checks;
  if (reveal_truth) {
    j["truth"] = {{"speedup", r.true_speedup},
                  {"reputation_hit", r.reputation_hit},
                  {"good", r.good()},
                  {"incident", r.reputation_hit > 0},
                  {"trait", r.trait ? std::string(to_string(*r.trait)) : std::string("recipe")}};
  }
  return j;
}

nlohmann::json to_json(const Debrief& d) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : d.rows) {
    auto j = to_json(row.record, true);
    j["decision"] = game::kAdviceStatusNames[static_cast<std::size_t>(row.decision)];
    j["decided_at_hour"] = row.decided_at_hour ? nlohmann::json(*row.decided_at_hour) : nlohmann::json(nullptr);
    j["right_call"] = row.right_call;
    j["checks_usd"] = row.checks_usd;
    j["estimated_value_usd"] = row.value_usd;
    auto opt = [](const std::optional<double>& x) { return x ? nlohmann::json(*x) : nlohmann::json(nullptr); };
    j["outcome"] = {{"hours", kOutcomeHours},
                    {"tok_per_s_per_gpu_before", opt(row.tok_per_gpu_before)},
                    {"tok_per_s_per_gpu_after", opt(row.tok_per_gpu_after)},
                    {"reputation_before", opt(row.reputation_before)},
                    {"reputation_after", opt(row.reputation_after)}};
    j["verdict"] = row.verdict;
    j["truth_text"] = row.truth;
    j["minor"] = row.minor;
    j["judged"] = row.judged;
    // The evidence the player had when deciding: the newest check's verdict, if any.
    j["evidence"] =
        row.record.checks.empty()
            ? nlohmann::json(nullptr)
            : nlohmann::json(game::kCheckVerdictNames[static_cast<std::size_t>(row.record.checks.back().verdict)]);
    rows.push_back(j);
  }
  return {{"advisor", kPersonaName},
          {"proposals", rows},
          {"accepted", d.num_accepted},
          {"rejected", d.num_rejected},
          {"pending", d.num_pending},
          {"right_calls", d.num_right},
          {"right_call_rule", "A right call accepts a real gain of at least " + pct(game::kMaterialGain) +
                                  " with no incident, or keeps out anything else. Minor claims (worth less than a "
                                  "check even if true) are not judged."},
          {"quality_incidents", d.num_incidents},
          {"regressions", d.num_regressions},
          {"checks_usd", d.checks_usd},
          {"estimated_value_usd", d.value_usd}};
}

nlohmann::json Chien::debrief_json(const game::GameState& state) const { return to_json(make_debrief(state)); }

std::optional<game::AdviceJudgement> Chien::judgement(const game::GameState& state) const {
  game::AdviceJudgement j;
  for (const auto& row : make_debrief(state).rows) {
    if (!row.judged) continue;
    ++j.proposals;
    if (row.right_call) ++j.right_calls;
    if (row.decision == game::AdviceStatus::kAccepted && !row.right_call) ++j.bad_accepted;
    if (row.decision != game::AdviceStatus::kAccepted && row.record.good()) ++j.good_missed;
  }
  return j;
}

nlohmann::json run_summary_json(const game::Game& game, bool with_advisor, std::size_t commands_refused,
                                const game::Counterfactuals* counterfactuals) {
  auto j = game::to_json(game::summarize(game, counterfactuals));
  j["commands_refused"] = commands_refused;
  if (with_advisor) j["advisor_debrief"] = to_json(make_debrief(game.state()));
  return j;
}

}  // namespace tycoon::advisor
