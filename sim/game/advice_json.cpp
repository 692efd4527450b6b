#include "sim/game/advice_json.h"

#include "sim/game/json_fields.h"
#include "sim/game/recipe_settings.h"

namespace tycoon::game {

namespace {

using data::Bound;
using data::ObjectReader;

nlohmann::json check_json(const AdviceCheck& c) {
  nlohmann::json cj = {{"kind", kAdviceCheckKindNames[static_cast<std::size_t>(c.kind)]},
                       {"requested_at_hour", c.requested_at_hour},
                       {"ready_at_hour", c.ready_at_hour},
                       {"measured_speedup", c.measured_speedup},
                       {"interval_low", c.interval_low},
                       {"interval_high", c.interval_high},
                       {"repetitions", c.repetitions},
                       {"verdict", kCheckVerdictNames[static_cast<std::size_t>(c.verdict)]},
                       {"quality_flag", c.quality_flag},
                       {"rejection_flag", c.rejection_flag},
                       {"cost_usd", c.cost_usd},
                       {"reputation_hit", c.reputation_hit},
                       {"note", c.note}};
  if (c.measured_component_speedup) cj["measured_component_speedup"] = *c.measured_component_speedup;
  return cj;
}

AdviceCheck read_check(ObjectReader cj) {
  AdviceCheck c;
  c.kind = read_enum<AdviceCheckKind>(cj, "kind", kAdviceCheckKindNames);
  c.requested_at_hour = cj.integer("requested_at_hour");
  c.ready_at_hour = cj.integer("ready_at_hour");
  c.measured_speedup = cj.number("measured_speedup", Bound::kPositive);
  c.measured_component_speedup = cj.optional_number("measured_component_speedup", Bound::kPositive);
  c.quality_flag = cj.boolean("quality_flag");
  c.rejection_flag = cj.boolean("rejection_flag");
  c.cost_usd = cj.number("cost_usd", Bound::kNonNegative);
  c.reputation_hit = cj.number("reputation_hit", Bound::kNonNegative);
  c.note = cj.string("note");
  // Saves from before checks had intervals: the point estimate alone, one repetition.
  c.interval_low = cj.optional_number("interval_low", Bound::kPositive).value_or(c.measured_speedup);
  c.interval_high = cj.optional_number("interval_high", Bound::kPositive).value_or(c.measured_speedup);
  if (c.interval_low > c.interval_high) cj.fail("interval_high", "below interval_low");
  const auto reps = cj.optional_integer("repetitions", Bound::kPositive).value_or(1);
  if (reps > kMaxCheckRepetitions) cj.fail("repetitions", "more than " + std::to_string(kMaxCheckRepetitions));
  c.repetitions = static_cast<int>(reps);
  if (cj.has("verdict")) {
    c.verdict = read_enum<CheckVerdict>(cj, "verdict", kCheckVerdictNames);
  } else {
    c.verdict = check_verdict(c.measured_speedup, c.interval_low, c.interval_high, c.quality_flag, c.rejection_flag);
  }
  cj.finish();
  return c;
}

// A proposal's checks, oldest first.
nlohmann::json advice_checks_json(const std::vector<AdviceCheck>& checks) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& c : checks) j.push_back(check_json(c));
  return j;
}

std::vector<AdviceCheck> read_advice_checks(ObjectReader& in) {
  std::vector<AdviceCheck> checks;
  auto cs = in.array("checks");
  for (std::size_t k = 0; k < cs.size(); ++k) checks.push_back(read_check(cs.object(k)));
  return checks;
}

// The recipe overlay under `key` (its fields checked as a command's are).
serving::ServingOverrides read_recipe_overlay(ObjectReader& in, std::string_view key) {
  auto rec = in.object(key);
  auto overrides = read_overrides(rec);
  rec.finish();
  return overrides;
}

// A proposal's replica count: positive when set.
std::optional<int> read_optional_replicas(ObjectReader& in) {
  if (!in.has("replicas")) return std::nullopt;
  return static_cast<int>(in.integer("replicas", Bound::kPositive));
}

nlohmann::json record_json(const ProposalRecord& r) {
  nlohmann::json scale = nlohmann::json::array();
  for (double x : r.true_op_time_scale) scale.push_back(x);
  nlohmann::json j = {{"advice_id", r.advice_id},
                      {"deployment_id", r.deployment_id},
                      {"kind", kProposalKindNames[static_cast<std::size_t>(r.kind)]},
                      {"change_id", r.change_id},
                      {"title", r.title},
                      {"posted_at_hour", r.posted_at_hour},
                      {"workload", serving::kWorkloadNames[static_cast<std::size_t>(r.workload)]},
                      {"op_share", r.op_share},
                      {"component_speedup", r.component_speedup},
                      {"true_op_time_scale", scale},
                      {"claimed_speedup", r.claimed_speedup},
                      {"true_speedup", r.true_speedup},
                      {"reputation_hit", r.reputation_hit},
                      {"recipe", to_json(r.recipe)},
                      {"claimed_spread", r.claimed_spread},
                      {"checks", advice_checks_json(r.checks)}};
  if (r.trait) j["trait"] = kTraitNames[static_cast<std::size_t>(*r.trait)];
  if (r.op_class) j["op_class"] = perf::kOpClassNames[static_cast<std::size_t>(*r.op_class)];
  if (r.replicas) j["replicas"] = *r.replicas;
  return j;
}

ProposalRecord read_record(ObjectReader in) {
  ProposalRecord r;
  r.advice_id = in.string("advice_id");
  r.deployment_id = in.integer("deployment_id");
  r.kind = read_enum<ProposalKind>(in, "kind", kProposalKindNames);
  r.change_id = in.string("change_id");
  r.title = in.string("title");
  r.posted_at_hour = in.integer("posted_at_hour");
  r.workload = read_enum<serving::WorkloadKind>(in, "workload", serving::kWorkloadNames);
  if (in.has("trait")) r.trait = read_enum<Trait>(in, "trait", kTraitNames);
  if (in.has("op_class")) r.op_class = read_enum<perf::OpClass>(in, "op_class", perf::kOpClassNames);
  r.op_share = in.number("op_share", Bound::kNonNegative);
  r.component_speedup = in.number("component_speedup", Bound::kPositive);
  {
    auto scale = in.array("true_op_time_scale");
    if (scale.size() != r.true_op_time_scale.size()) {
      in.fail("true_op_time_scale", "expected " + std::to_string(r.true_op_time_scale.size()) + " op-class factors");
    }
    for (std::size_t i = 0; i < scale.size(); ++i) r.true_op_time_scale[i] = scale.number(i, Bound::kPositive);
  }
  r.claimed_speedup = in.number("claimed_speedup", Bound::kPositive);
  r.true_speedup = in.number("true_speedup", Bound::kPositive);
  r.reputation_hit = in.number("reputation_hit", Bound::kNonNegative);
  r.recipe = read_recipe_overlay(in, "recipe");
  r.replicas = read_optional_replicas(in);
  r.claimed_spread = in.number("claimed_spread", Bound::kNonNegative);
  r.checks = read_advice_checks(in);
  in.finish();
  return r;
}

}  // namespace

nlohmann::json to_json(const Advice& a) {
  nlohmann::json effect = {
      {"recipe", to_json(a.effect.recipe)}, {"speedup", a.effect.speedup}, {"reputation_hit", a.effect.reputation_hit}};
  if (a.effect.replicas) effect["replicas"] = *a.effect.replicas;
  nlohmann::json aj = {
      {"id", a.id},
      {"deployment_id", a.deployment_id},
      {"title", a.title},
      {"rationale", a.rationale},
      {"claimed_speedup", a.claimed_speedup},
      {"effect", effect},
      {"status", kAdviceStatusNames[static_cast<std::size_t>(a.status)]},
      {"posted_at_hour", a.posted_at_hour},
      {"decided_at_hour", a.decided_at_hour ? nlohmann::json(*a.decided_at_hour) : nlohmann::json(nullptr)},
      {"minor", a.minor},
      {"checks", advice_checks_json(a.checks)}};
  if (a.previous_recipe) aj["previous_recipe"] = to_json(*a.previous_recipe);
  if (a.previous_replicas) aj["previous_replicas"] = *a.previous_replicas;
  if (a.reverted_at_hour) aj["reverted_at_hour"] = *a.reverted_at_hour;
  return aj;
}

Advice read_advice(ObjectReader a) {
  Advice x;
  x.id = a.string("id");
  x.deployment_id = a.integer("deployment_id");
  x.title = a.string("title");
  x.rationale = a.string("rationale");
  x.claimed_speedup = a.number("claimed_speedup", Bound::kPositive);
  auto e = a.object("effect");
  x.effect.recipe = read_recipe_overlay(e, "recipe");
  x.effect.speedup = e.number("speedup", Bound::kPositive);
  x.effect.reputation_hit = e.optional_number("reputation_hit", Bound::kNonNegative).value_or(0.0);
  x.effect.replicas = read_optional_replicas(e);
  e.finish();
  x.status = read_enum<AdviceStatus>(a, "status", kAdviceStatusNames);
  x.posted_at_hour = a.integer("posted_at_hour");
  x.decided_at_hour = a.optional_integer("decided_at_hour");
  x.minor = a.optional_boolean("minor").value_or(false);
  if (auto pr = a.optional_object("previous_recipe")) {
    x.previous_recipe = recipe_settings_from_json(*pr);
    pr->finish();
  }
  if (a.has("previous_replicas")) {
    const auto n = a.integer("previous_replicas", Bound::kNonNegative);
    if (n > 1'000'000) a.fail("previous_replicas", "must be at most 1000000");
    x.previous_replicas = static_cast<int>(n);
  }
  x.reverted_at_hour = a.optional_integer("reverted_at_hour", Bound::kNonNegative);
  if (a.has("checks")) x.checks = read_advice_checks(a);
  a.finish();
  return x;
}

nlohmann::json to_json(const AdvisorState& a) {
  nlohmann::json proposed = nlohmann::json::array();
  for (const auto& [deployment, change] : a.proposed) proposed.push_back({deployment, change});
  nlohmann::json records = nlohmann::json::array();
  for (const auto& r : a.records) records.push_back(record_json(r));
  return {{"seeded", a.seeded},
          {"propose_rng", rng_text(a.propose_rng)},
          {"check_rng", rng_text(a.check_rng)},
          {"next_id", a.next_id},
          {"proposed", proposed},
          {"records", records},
          {"check_spend_usd", a.check_spend_usd}};
}

AdvisorState read_advisor_state(ObjectReader in) {
  AdvisorState a;
  a.seeded = in.boolean("seeded");
  read_rng(in, "propose_rng", a.propose_rng);
  read_rng(in, "check_rng", a.check_rng);
  a.next_id = in.integer("next_id", Bound::kPositive);
  const auto& proposed = in.raw("proposed");
  if (!proposed.is_array()) in.fail("proposed", "expected an array of [deployment id, change id] pairs");
  for (std::size_t i = 0; i < proposed.size(); ++i) {
    const auto& p = proposed[i];
    if (!p.is_array() || p.size() != 2 || !p[0].is_number_integer() || !p[1].is_string()) {
      throw data::LoadError(in.file(), in.pointer_to("proposed") + "/" + std::to_string(i),
                            "expected a [deployment id, change id] pair");
    }
    a.proposed.insert({p[0].get<std::int64_t>(), p[1].get<std::string>()});
  }
  auto rs = in.array("records");
  for (std::size_t i = 0; i < rs.size(); ++i) a.records.push_back(read_record(rs.object(i)));
  a.check_spend_usd = in.number("check_spend_usd", Bound::kNonNegative);
  in.finish();
  return a;
}

}  // namespace tycoon::game
