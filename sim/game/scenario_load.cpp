// Strict loading of scenario files (see scenario.h and scenarios/README.md).
#include <algorithm>
#include <set>

#include "sim/data/json_reader.h"
#include "sim/data/safe_id.h"
#include "sim/game/command.h"
#include "sim/game/json_fields.h"
#include "sim/game/scenario.h"

namespace tycoon::game {

namespace {

using data::ArrayReader;
using data::Bound;
using data::ObjectReader;

void read_company(ObjectReader in, CompanySpec& c) {
  c.starting_cash_usd = in.number("starting_cash_usd");
  c.fixed_cost_usd_per_day = in.optional_number("fixed_cost_usd_per_day", Bound::kNonNegative).value_or(0);
  c.credit_line_usd = in.optional_number("credit_line_usd", Bound::kNonNegative).value_or(0);
  c.starting_reputation = in.optional_number("starting_reputation", Bound::kUnit).value_or(1.0);
  in.finish();
}

OfferSpec read_offer(ObjectReader in, const data::Catalog& catalog) {
  OfferSpec s;
  auto& o = s.offer;
  o.chip = in.string("chip");
  const data::Accelerator* chip = catalog.find_accelerator(o.chip);
  if (!chip) in.fail("chip", "unknown accelerator '" + o.chip + "'");
  o.contract = read_enum<Contract>(in, "contract", kContractNames);
  o.available_gpus = read_int(in, "available_gpus", Bound::kNonNegative, 100000);
  o.lead_time_hours = read_int(in, "lead_time_hours", Bound::kNonNegative, 24 * 365);
  if (in.has("price_usd_per_gpu_hour")) {
    o.list_price_usd_per_gpu_hour = in.number("price_usd_per_gpu_hour", Bound::kPositive);
    if (!in.has("price_source")) in.fail("price_source", "a price given in the scenario needs its source");
    s.price_source = in.string("price_source");
  } else {
    auto p = chip->price(o.contract);
    if (!p) {
      in.fail("price_usd_per_gpu_hour", "the catalog lists no " + std::string(to_string(o.contract)) + " price for " +
                                            o.chip + "; give one with its price_source");
    }
    o.list_price_usd_per_gpu_hour = p->price_usd_per_gpu_hour;
    // The card's path under the data root, not where this machine keeps it: a resolved scenario
    // (in saves, class files and their hashes) is the same bytes on every machine and in the browser.
    s.price_source = "hardware_db/accelerators/" + chip->id + ".json (" + p->provider + ", " + p->date + ")";
    if (in.has("price_source")) s.price_source = in.string("price_source");
  }
  o.price_multiplier = in.optional_number("price_multiplier", Bound::kPositive).value_or(1.0);
  if (o.contract == Contract::kReserved) {
    o.term_hours = read_int(in, "term_days", Bound::kPositive, kMaxScenarioDays) * 24;
  } else if (in.has("term_days")) {
    in.fail("term_days", "only reserved contracts have a term");
  }
  if (o.contract == Contract::kSpot) {
    o.interruptions_per_hour = in.number("interruptions_per_hour", Bound::kNonNegative);
    if (o.interruptions_per_hour > 1) in.fail("interruptions_per_hour", "is a probability: at most 1");
  } else if (in.has("interruptions_per_hour")) {
    in.fail("interruptions_per_hour", "only spot contracts are interrupted");
  }
  in.finish();
  return s;
}

SegmentSpec read_segment(ObjectReader in, const data::Catalog& catalog) {
  SegmentSpec s;
  s.id = in.string("id");
  s.name = in.optional_string("name").value_or(s.id);
  s.model = in.string("model");
  if (!catalog.find_model(s.model)) in.fail("model", "unknown model '" + s.model + "'");
  {
    auto w = in.object("workload");
    s.workload.kind = read_enum<serving::WorkloadKind>(w, "kind", serving::kWorkloadNames);
    s.workload.input_tokens = w.integer("input_tokens", Bound::kPositive);
    s.workload.output_tokens = w.integer("output_tokens", Bound::kPositive);
    if (s.workload.kind == serving::WorkloadKind::kTrace) {
      s.workload.trace_path = w.string("trace_path");
    }
    w.finish();
  }
  s.cached_input_share = in.optional_number("cached_input_share", Bound::kNonNegative).value_or(0);
  if (s.cached_input_share > 1) in.fail("cached_input_share", "is a share: at most 1");
  {
    auto d = in.object("demand");
    s.demand.base_requests_per_s = d.number("base_requests_per_s", Bound::kNonNegative);
    s.demand.diurnal_amplitude = d.optional_number("diurnal_amplitude", Bound::kNonNegative).value_or(0);
    if (s.demand.diurnal_amplitude > 1) d.fail("diurnal_amplitude", "must be at most 1");
    s.demand.peak_hour = d.optional_number("peak_hour", Bound::kNonNegative).value_or(14);
    if (s.demand.peak_hour >= 24) d.fail("peak_hour", "must be below 24");
    s.demand.growth_per_day = d.optional_number("growth_per_day").value_or(0);
    if (s.demand.growth_per_day <= -1) d.fail("growth_per_day", "must be above -1");
    s.demand.price_elasticity = d.optional_number("price_elasticity", Bound::kNonNegative).value_or(1.0);
    s.demand.reputation_sensitivity = d.optional_number("reputation_sensitivity", Bound::kNonNegative).value_or(1.0);
    if (s.demand.reputation_sensitivity > 1) d.fail("reputation_sensitivity", "must be at most 1");
    d.finish();
  }
  s.demand_noise = in.optional_number("demand_noise", Bound::kNonNegative).value_or(0);
  if (s.demand_noise >= 1) in.fail("demand_noise", "must be below 1");
  {
    auto slo = in.object("slo");
    s.slo.ttft_s = slo.number("ttft_s", Bound::kPositive);
    s.slo.tpot_s = slo.number("tpot_s", Bound::kPositive);
    slo.finish();
  }
  s.reputation_half_life_hours = in.optional_number("reputation_half_life_hours", Bound::kPositive).value_or(24);
  s.spec_acceptance_per_token = in.optional_number("spec_acceptance_per_token", Bound::kNonNegative);
  if (s.spec_acceptance_per_token && *s.spec_acceptance_per_token >= 1) {
    in.fail("spec_acceptance_per_token", "is a probability below 1");
  }
  in.finish();
  return s;
}

ScheduledEvent read_event(ObjectReader in, const Scenario& s) {
  ScheduledEvent e;
  e.at_hour = in.integer("at_hour", Bound::kNonNegative);
  e.news = in.optional_string("news").value_or("");
  auto kind = in.choice("kind", kEventKindNames);
  auto chip_offered = [&](const std::string& chip) {
    bool any = std::any_of(s.offers.begin(), s.offers.end(), [&](const OfferSpec& o) { return o.offer.chip == chip; });
    if (!any) in.fail("chip", "no market offer for '" + chip + "'");
  };
  switch (kind) {
    case 0: {
      GpuPriceEvent p{in.string("chip"), read_enum<Contract>(in, "contract", kContractNames),
                      in.number("multiplier", Bound::kPositive)};
      chip_offered(p.chip);
      e.payload = p;
      break;
    }
    case 1: {
      GpuAvailabilityEvent p{in.string("chip"), read_enum<Contract>(in, "contract", kContractNames),
                             read_int(in, "available_gpus", Bound::kNonNegative, 100000)};
      chip_offered(p.chip);
      e.payload = p;
      break;
    }
    case 2: {
      SpotRiskEvent p{in.string("chip"), in.number("interruptions_per_hour", Bound::kNonNegative)};
      if (p.interruptions_per_hour > 1) in.fail("interruptions_per_hour", "is a probability: at most 1");
      chip_offered(p.chip);
      e.payload = p;
      break;
    }
    case 3: {
      DemandEvent p{in.string("segment"), in.number("multiplier", Bound::kNonNegative)};
      if (!s.find_segment(p.segment)) in.fail("segment", "no segment '" + p.segment + "'");
      e.payload = p;
      break;
    }
    case 4: {
      ReferencePriceEvent p{in.string("model"), in.number("multiplier", Bound::kPositive)};
      if (!s.reference_prices.contains(p.model)) in.fail("model", "no segment sells '" + p.model + "'");
      e.payload = p;
      break;
    }
    default:
      if (e.news.empty()) in.fail("news", "a news event needs its text");
      e.payload = NewsEvent{};
      break;
  }
  in.finish();
  return e;
}

Goal read_goal(ObjectReader in) {
  Goal g;
  g.kind = read_enum<GoalKind>(in, "kind", kGoalKindNames);
  if (g.kind == GoalKind::kSurvive || g.kind == GoalKind::kTutorialComplete) {
    if (in.has("target")) in.fail("target", std::string(to_string(g.kind)) + " has no target");
  } else {
    g.target = in.number("target");
  }
  if ((g.kind == GoalKind::kGrossMargin || g.kind == GoalKind::kSloAttainment) && g.target > 1) {
    in.fail("target", "is a fraction: at most 1");
  }
  g.points = in.optional_number("points", Bound::kPositive).value_or(100);
  in.finish();
  return g;
}

void read_serving(ObjectReader in, ServingSettings& s) {
  s.window_s = in.optional_number("window_s", Bound::kPositive).value_or(s.window_s);
  s.warmup_s = in.optional_number("warmup_s", Bound::kNonNegative).value_or(s.warmup_s);
  if (in.has("min_window_requests")) s.min_window_requests = read_int(in, "min_window_requests", Bound::kPositive);
  s.load_bucket_step = in.optional_number("load_bucket_step", Bound::kPositive).value_or(s.load_bucket_step);
  if (s.load_bucket_step > 0.5) in.fail("load_bucket_step", "must be at most 0.5");
  s.queue_timeout_s = in.optional_number("queue_timeout_s", Bound::kPositive).value_or(s.queue_timeout_s);
  if (in.has("max_queue")) s.max_queue = read_int(in, "max_queue", Bound::kPositive);
  if (in.has("max_simulated_replicas")) {
    s.max_simulated_replicas = read_int(in, "max_simulated_replicas", Bound::kPositive, 4096);
  }
  s.full_hour = in.optional_boolean("full_hour").value_or(false);
  if (s.window_s + s.warmup_s > 3600) in.fail("window_s", "window plus warmup must fit in an hour");
  in.finish();
}

}  // namespace

Scenario scenario_from_json(const nlohmann::json& j, const std::string& file, const data::Catalog& catalog) {
  ObjectReader in(j, file, "");
  Scenario s;
  s.file = file;
  s.format_version = read_int(in, "format_version", Bound::kPositive);
  if (s.format_version > kScenarioFormatVersion) {
    in.fail("format_version", "scenario format " + std::to_string(s.format_version) +
                                  " is newer than this build reads (" + std::to_string(kScenarioFormatVersion) + ")");
  }
  s.id = in.string("id");
  // The id names default saves (autosave-<id>.json): it must stay a plain name.
  if (!data::is_safe_id(s.id)) in.fail("id", "'" + s.id + "' " + data::safe_id_rule());
  s.name = in.string("name");
  s.kind = read_enum<ScenarioKind>(in, "kind", kScenarioKindNames);
  if (in.has("level")) s.level = read_int(in, "level", Bound::kPositive, 100);
  s.lesson = in.optional_string("lesson").value_or("");
  s.question = in.optional_string("question").value_or("");
  s.lesson_source = in.optional_string("lesson_source").value_or("");
  s.briefing = in.optional_string("briefing").value_or("");
  s.seed = static_cast<std::uint64_t>(in.integer("seed", Bound::kNonNegative));
  s.days = read_int(in, "days", Bound::kPositive, kMaxScenarioDays);
  if (in.has("history_days")) s.history_days = read_int(in, "history_days", Bound::kNonNegative, kMaxHistoryDays);
  read_company(in.object("company"), s.company);

  auto offers = in.array("market");
  for (std::size_t i = 0; i < offers.size(); ++i) {
    s.offers.push_back(read_offer(offers.object(i), catalog));
    for (std::size_t k = 0; k < i; ++k) {
      if (s.offers[k].offer.chip == s.offers[i].offer.chip &&
          s.offers[k].offer.contract == s.offers[i].offer.contract) {
        offers.object(i).fail_here("duplicate offer for this chip and contract");
      }
    }
  }
  auto segs = in.array("segments");
  if (segs.size() == 0) segs.fail_here("a scenario needs at least one customer segment");
  for (std::size_t i = 0; i < segs.size(); ++i) {
    auto seg = read_segment(segs.object(i), catalog);
    if (s.find_segment(seg.id)) segs.object(i).fail("id", "duplicate segment id '" + seg.id + "'");
    s.segments.push_back(std::move(seg));
  }
  std::set<std::string> models;
  for (const auto& seg : s.segments) models.insert(seg.model);

  if (auto ref = in.optional_object("reference_prices")) {
    for (const auto& key : ref->keys()) {
      if (!models.contains(key)) ref->fail(key, "no segment sells this model");
      auto p = ref->object(key);
      s.reference_prices[key] = read_prices(p);
      p.string("source");
      p.finish();
    }
    ref->finish();
  }
  for (const auto& m : models) {
    if (!s.reference_prices.contains(m)) s.reference_prices[m] = econ::from_market_price(catalog.model(m).market_price);
  }
  s.starting_prices = s.reference_prices;
  if (auto prices = in.optional_object("prices")) {
    for (const auto& key : prices->keys()) {
      if (!models.contains(key)) prices->fail(key, "no segment sells this model");
      auto p = prices->object(key);
      s.starting_prices[key] = read_prices(p);
      p.finish();
    }
    prices->finish();
  }

  if (auto start = in.optional_object("start")) {
    if (start->has("contracts")) {
      auto cs = start->array("contracts");
      for (std::size_t i = 0; i < cs.size(); ++i) {
        auto c = cs.object(i);
        StartContract sc{c.string("chip"), read_enum<Contract>(c, "contract", kContractNames),
                         read_int(c, "num_gpus", Bound::kPositive, 100000)};
        c.finish();
        s.start_contracts.push_back(sc);
      }
    }
    if (start->has("deployments")) {
      auto ds = start->array("deployments");
      for (std::size_t i = 0; i < ds.size(); ++i) {
        auto d = ds.object(i);
        StartDeployment sd;
        sd.model = d.string("model");
        sd.chip = d.string("chip");
        sd.segment = d.optional_string("segment");
        sd.replicas = read_int(d, "replicas", Bound::kPositive, 10000);
        sd.speedup = d.optional_number("speedup", Bound::kPositive).value_or(1.0);
        if (auto r = d.optional_object("recipe")) {
          sd.recipe = read_overrides(*r);
          r->finish();
        }
        d.finish();
        s.start_deployments.push_back(std::move(sd));
      }
    }
    start->finish();
  }

  if (in.has("events")) {
    auto es = in.array("events");
    for (std::size_t i = 0; i < es.size(); ++i) s.events.push_back(read_event(es.object(i), s));
    std::stable_sort(s.events.begin(), s.events.end(),
                     [](const ScheduledEvent& a, const ScheduledEvent& b) { return a.at_hour < b.at_hour; });
  }
  auto goals = in.array("goals");
  if (goals.size() == 0) goals.fail_here("a scenario states at least one goal");
  for (std::size_t i = 0; i < goals.size(); ++i) s.goals.push_back(read_goal(goals.object(i)));
  if (in.has("locked_levers")) {
    s.locked_levers = in.string_array("locked_levers");
    for (std::size_t i = 0; i < s.locked_levers.size(); ++i) {
      if (!is_known_lever(s.locked_levers[i])) {
        throw data::LoadError(file, "/locked_levers/" + std::to_string(i),
                              "unknown lever '" + s.locked_levers[i] + "'");
      }
    }
  }
  if (in.has("allow_disaggregated")) s.allow_disaggregated = in.boolean("allow_disaggregated");
  if (auto serving = in.optional_object("serving")) read_serving(*serving, s.serving);
  if (in.has("hints")) {
    auto hs = in.array("hints");
    for (std::size_t i = 0; i < hs.size(); ++i) {
      auto h = hs.object(i);
      s.hints.push_back({h.integer("at_hour", Bound::kNonNegative), h.string("text")});
      h.finish();
    }
  }
  if (in.has("tutorial_steps")) {
    auto ts = in.array("tutorial_steps");
    for (std::size_t i = 0; i < ts.size(); ++i) {
      auto t = ts.object(i);
      TutorialStep step;
      step.id = t.string("id");
      step.text = t.string("text");
      step.tab = t.optional_string("tab").value_or("");
      if (!step.tab.empty() && std::find(kPanelNames.begin(), kPanelNames.end(), step.tab) == kPanelNames.end()) {
        t.fail("tab", "unknown panel '" + step.tab + "'");
      }
      step.target = t.optional_string("target").value_or("");
      auto when = t.object("done_when");
      const auto keys = when.keys();
      if (keys.size() != 1) when.fail_here("names exactly one condition (one of: gpus_rented, deployments, ...)");
      const auto k = std::find(kStepConditionNames.begin(), kStepConditionNames.end(), keys[0]);
      if (k == kStepConditionNames.end()) when.fail(keys[0], "unknown condition");
      step.when = static_cast<StepCondition>(k - kStepConditionNames.begin());
      switch (step.when) {
        case StepCondition::kGpusRented:
        case StepCondition::kDeployments:
        case StepCondition::kReplicas:
        case StepCondition::kHour:
          step.count = when.number(keys[0], Bound::kPositive);
          break;
        case StepCondition::kPanelViewed:
          step.panel = kPanelNames[when.choice(keys[0], kPanelNames)];
          break;
        default:
          if (!when.boolean(keys[0])) when.fail(keys[0], "must be true");
      }
      when.finish();
      t.finish();
      s.tutorial_steps.push_back(std::move(step));
    }
  }
  if (auto ref = in.optional_object("reference_strategy")) {
    ReferenceStrategy r;
    r.description = ref->string("description");
    auto cs = ref->array("commands");
    for (std::size_t i = 0; i < cs.size(); ++i) {
      const std::string where = cs.pointer() + "/" + std::to_string(i);
      auto o = cs.object(i);
      LoggedCommand c;
      c.at_hour = o.integer("at_hour", Bound::kNonNegative);
      c.command = command_from_json(o);
      o.finish();
      if (!r.commands.empty() && c.at_hour < r.commands.back().at_hour) {
        throw data::LoadError(file, where + "/at_hour",
                              "goes back in time (" + std::to_string(c.at_hour) + " after " +
                                  std::to_string(r.commands.back().at_hour) + ")");
      }
      if (c.at_hour >= s.end_hour()) throw data::LoadError(file, where + "/at_hour", "is past the scenario's end");
      r.commands.push_back(std::move(c));
    }
    ref->finish();
    s.reference_strategy = std::move(r);
  }
  in.finish();
  return s;
}

Scenario load_scenario(const std::filesystem::path& path, const data::Catalog& catalog) {
  return scenario_from_json(data::parse_json_file(path), path.string(), catalog);
}

const SegmentSpec* Scenario::find_segment(std::string_view seg_id) const {
  for (const auto& s : segments) {
    if (s.id == seg_id) return &s;
  }
  return nullptr;
}

bool Scenario::lever_locked(std::string_view lever) const {
  return std::find(locked_levers.begin(), locked_levers.end(), lever) != locked_levers.end();
}

bool Scenario::command_locked(const Command& c) const {
  if (lever_locked(command_name(c))) return true;
  if (const auto* rent = std::get_if<RentGpus>(&c)) {
    return lever_locked("contract." + std::string(to_string(rent->contract)));
  }
  return false;
}

bool Scenario::recipe_field_locked(std::string_view field) const {
  return lever_locked("recipe." + std::string(field));
}

bool is_known_lever(std::string_view lever) {
  for (auto n : kCommandNames) {
    if (lever == n) return true;
  }
  constexpr std::string_view kRecipe = "recipe.", kContract = "contract.";
  if (lever.starts_with(kRecipe)) {
    auto field = lever.substr(kRecipe.size());
    return std::find(kRecipeFieldNames.begin(), kRecipeFieldNames.end(), field) != kRecipeFieldNames.end();
  }
  if (lever.starts_with(kContract)) {
    return parse_enum<Contract>(lever.substr(kContract.size()), kContractNames).has_value();
  }
  return false;
}

}  // namespace tycoon::game
