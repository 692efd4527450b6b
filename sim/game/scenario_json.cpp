// The resolved form of a scenario (written next to every run's output and into saves), and
// finding scenarios by name.
#include <algorithm>

#include "sim/game/scenario.h"

namespace tycoon::game {

namespace {

nlohmann::json prices_json(const econ::TokenPrices& p) {
  return {{"input_usd_per_mtok", p.input_usd_per_mtok},
          {"cached_input_usd_per_mtok", p.cached_input_usd_per_mtok},
          {"output_usd_per_mtok", p.output_usd_per_mtok}};
}

nlohmann::json event_json(const ScheduledEvent& e) {
  nlohmann::json j = {{"at_hour", e.at_hour}, {"kind", kEventKindNames[e.payload.index()]}};
  if (!e.news.empty()) j["news"] = e.news;
  std::visit(
      [&](const auto& p) {
        using T = std::decay_t<decltype(p)>;
        if constexpr (std::is_same_v<T, GpuPriceEvent>) {
          j["chip"] = p.chip;
          j["contract"] = to_string(p.contract);
          j["multiplier"] = p.multiplier;
        } else if constexpr (std::is_same_v<T, GpuAvailabilityEvent>) {
          j["chip"] = p.chip;
          j["contract"] = to_string(p.contract);
          j["available_gpus"] = p.available_gpus;
        } else if constexpr (std::is_same_v<T, SpotRiskEvent>) {
          j["chip"] = p.chip;
          j["interruptions_per_hour"] = p.interruptions_per_hour;
        } else if constexpr (std::is_same_v<T, DemandEvent>) {
          j["segment"] = p.segment;
          j["multiplier"] = p.multiplier;
        } else if constexpr (std::is_same_v<T, ReferencePriceEvent>) {
          j["model"] = p.model;
          j["multiplier"] = p.multiplier;
        }
      },
      e.payload);
  return j;
}

}  // namespace

nlohmann::json to_json(const Scenario& s) {
  nlohmann::json j;
  j["format_version"] = s.format_version;
  j["id"] = s.id;
  j["name"] = s.name;
  j["kind"] = to_string(s.kind);
  if (s.level) j["level"] = *s.level;
  j["lesson"] = s.lesson;
  if (!s.question.empty()) j["question"] = s.question;
  if (!s.lesson_source.empty()) j["lesson_source"] = s.lesson_source;
  j["briefing"] = s.briefing;
  j["seed"] = s.seed;
  j["days"] = s.days;
  if (s.history_days > 0) j["history_days"] = s.history_days;  // absent: none (older files hash the same)
  j["company"] = {{"starting_cash_usd", s.company.starting_cash_usd},
                  {"fixed_cost_usd_per_day", s.company.fixed_cost_usd_per_day},
                  {"credit_line_usd", s.company.credit_line_usd},
                  {"starting_reputation", s.company.starting_reputation}};
  j["market"] = nlohmann::json::array();
  for (const auto& spec : s.offers) {
    const auto& o = spec.offer;
    nlohmann::json m = {{"chip", o.chip},
                        {"contract", to_string(o.contract)},
                        {"available_gpus", o.available_gpus},
                        {"lead_time_hours", o.lead_time_hours},
                        {"price_usd_per_gpu_hour", o.list_price_usd_per_gpu_hour},
                        {"price_source", spec.price_source},
                        {"price_multiplier", o.price_multiplier}};
    if (o.contract == Contract::kReserved) m["term_days"] = o.term_hours / 24;
    if (o.contract == Contract::kSpot) m["interruptions_per_hour"] = o.interruptions_per_hour;
    j["market"].push_back(m);
  }
  j["segments"] = nlohmann::json::array();
  for (const auto& seg : s.segments) {
    nlohmann::json w = {{"kind", serving::kWorkloadNames[static_cast<std::size_t>(seg.workload.kind)]},
                        {"input_tokens", seg.workload.input_tokens},
                        {"output_tokens", seg.workload.output_tokens}};
    if (seg.workload.kind == serving::WorkloadKind::kTrace) w["trace_path"] = seg.workload.trace_path;
    nlohmann::json g = {{"id", seg.id},
                        {"name", seg.name},
                        {"model", seg.model},
                        {"workload", w},
                        {"cached_input_share", seg.cached_input_share},
                        {"demand",
                         {{"base_requests_per_s", seg.demand.base_requests_per_s},
                          {"diurnal_amplitude", seg.demand.diurnal_amplitude},
                          {"peak_hour", seg.demand.peak_hour},
                          {"growth_per_day", seg.demand.growth_per_day},
                          {"price_elasticity", seg.demand.price_elasticity},
                          {"reputation_sensitivity", seg.demand.reputation_sensitivity}}},
                        {"demand_noise", seg.demand_noise},
                        {"slo", {{"ttft_s", seg.slo.ttft_s}, {"tpot_s", seg.slo.tpot_s}}},
                        {"reputation_half_life_hours", seg.reputation_half_life_hours}};
    if (seg.spec_acceptance_per_token) g["spec_acceptance_per_token"] = *seg.spec_acceptance_per_token;
    j["segments"].push_back(g);
  }
  j["reference_prices"] = nlohmann::json::object();
  for (const auto& [model, p] : s.reference_prices) {
    auto r = prices_json(p);
    r["source"] = "resolved";
    j["reference_prices"][model] = r;
  }
  j["prices"] = nlohmann::json::object();
  for (const auto& [model, p] : s.starting_prices) j["prices"][model] = prices_json(p);
  nlohmann::json start = {{"contracts", nlohmann::json::array()}, {"deployments", nlohmann::json::array()}};
  for (const auto& c : s.start_contracts) {
    start["contracts"].push_back({{"chip", c.chip}, {"contract", to_string(c.contract)}, {"num_gpus", c.num_gpus}});
  }
  for (const auto& d : s.start_deployments) {
    nlohmann::json dj = {{"model", d.model},
                         {"chip", d.chip},
                         {"replicas", d.replicas},
                         {"recipe", to_json(d.recipe)},
                         {"speedup", d.speedup}};
    if (d.segment) dj["segment"] = *d.segment;
    start["deployments"].push_back(dj);
  }
  j["start"] = start;
  j["events"] = nlohmann::json::array();
  for (const auto& e : s.events) j["events"].push_back(event_json(e));
  j["goals"] = nlohmann::json::array();
  for (const auto& g : s.goals) {
    nlohmann::json gj = {{"kind", to_string(g.kind)}, {"points", g.points}};
    if (g.kind != GoalKind::kSurvive && g.kind != GoalKind::kTutorialComplete) gj["target"] = g.target;
    j["goals"].push_back(gj);
  }
  j["locked_levers"] = s.locked_levers;
  if (s.allow_disaggregated) j["allow_disaggregated"] = true;  // absent: off (older files hash the same)
  j["serving"] = {{"window_s", s.serving.window_s},
                  {"warmup_s", s.serving.warmup_s},
                  {"min_window_requests", s.serving.min_window_requests},
                  {"load_bucket_step", s.serving.load_bucket_step},
                  {"queue_timeout_s", s.serving.queue_timeout_s},
                  {"max_queue", s.serving.max_queue},
                  {"max_simulated_replicas", s.serving.max_simulated_replicas},
                  {"full_hour", s.serving.full_hour}};
  j["hints"] = nlohmann::json::array();
  for (const auto& h : s.hints) j["hints"].push_back({{"at_hour", h.at_hour}, {"text", h.text}});
  if (!s.tutorial_steps.empty()) {
    nlohmann::json steps = nlohmann::json::array();
    for (const auto& t : s.tutorial_steps) {
      nlohmann::json tj = {{"id", t.id}, {"text", t.text}};
      if (!t.tab.empty()) tj["tab"] = t.tab;
      if (!t.target.empty()) tj["target"] = t.target;
      const std::string key(kStepConditionNames[static_cast<std::size_t>(t.when)]);
      switch (t.when) {
        case StepCondition::kGpusRented:
        case StepCondition::kDeployments:
        case StepCondition::kReplicas:
        case StepCondition::kHour:
          tj["done_when"] = {{key, t.count}};
          break;
        case StepCondition::kPanelViewed:
          tj["done_when"] = {{key, t.panel}};
          break;
        default:
          tj["done_when"] = {{key, true}};
      }
      steps.push_back(tj);
    }
    j["tutorial_steps"] = steps;
  }
  if (s.reference_strategy) {
    nlohmann::json cs = nlohmann::json::array();
    for (const auto& c : s.reference_strategy->commands) cs.push_back(to_json(c));
    j["reference_strategy"] = {{"description", s.reference_strategy->description}, {"commands", cs}};
  }
  return j;
}

std::vector<std::filesystem::path> list_scenarios(const std::filesystem::path& data_root) {
  std::vector<std::filesystem::path> out;
  auto dir = data_root / "scenarios";
  if (!std::filesystem::is_directory(dir)) return out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().extension() != ".json") continue;
    // Analyst sweep specs (`tycoon sweep`) live beside the scenarios but are not scenarios.
    if (e.path().stem().extension() == ".sweep") continue;
    out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::filesystem::path find_scenario(std::string_view name_or_path, const std::filesystem::path& data_root) {
  std::filesystem::path p(name_or_path);
  if (std::filesystem::is_regular_file(p)) return p;
  auto all = list_scenarios(data_root);
  for (const auto& f : all) {
    if (f.stem() == p.stem() && p.extension() != ".json") return f;
  }
  // "campaign-01-thin-margin" style ids: the folder name joined to the stem.
  for (const auto& f : all) {
    if (f.parent_path().filename().string() + "-" + f.stem().string() == name_or_path) return f;
  }
  std::string known;
  for (const auto& f : all) {
    auto rel = std::filesystem::relative(f, data_root / "scenarios");
    known += (known.empty() ? "" : ", ") + rel.replace_extension().string();
  }
  throw data::UnknownIdError("no scenario '" + std::string(name_or_path) + "' (a .json path, or one of: " + known +
                             ")");
}

}  // namespace tycoon::game
