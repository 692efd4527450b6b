#include "sim/game/state_json.h"

#include <array>
#include <stdexcept>
#include <string>

#include "sim/data/json_reader.h"
#include "sim/game/advice_json.h"
#include "sim/game/json_fields.h"
#include "sim/game/scenario.h"

namespace tycoon::game {

namespace {

using data::Bound;
using data::ObjectReader;

nlohmann::json prices_json(const econ::TokenPrices& p) {
  return {{"input_usd_per_mtok", p.input_usd_per_mtok},
          {"cached_input_usd_per_mtok", p.cached_input_usd_per_mtok},
          {"output_usd_per_mtok", p.output_usd_per_mtok}};
}

econ::TokenPrices read_prices_object(ObjectReader in) {
  econ::TokenPrices p = read_prices(in);
  in.finish();
  return p;
}

nlohmann::json tokens_json(const econ::TokenCounts& t) {
  return {{"input_tokens", t.input_tokens},
          {"cached_input_tokens", t.cached_input_tokens},
          {"output_tokens", t.output_tokens}};
}

econ::TokenCounts read_tokens(ObjectReader in) {
  econ::TokenCounts t{in.number("input_tokens"), in.number("cached_input_tokens"), in.number("output_tokens")};
  in.finish();
  return t;
}

std::vector<double> read_doubles(const nlohmann::json& j, const std::string& file, const std::string& ptr) {
  if (!j.is_array()) throw data::LoadError(file, ptr, "expected an array of numbers");
  std::vector<double> out;
  out.reserve(j.size());
  for (std::size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_number()) throw data::LoadError(file, ptr + "/" + std::to_string(i), "expected a number");
    out.push_back(j[i].get<double>());
  }
  return out;
}

constexpr std::array<std::string_view, 14> kDeploymentHourFields = {"hour",
                                                                    "deployment_id",
                                                                    "gpus_serving",
                                                                    "offered_requests_per_s",
                                                                    "requests_offered",
                                                                    "requests_completed",
                                                                    "requests_failed",
                                                                    "requests_within_slo",
                                                                    "output_tokens",
                                                                    "revenue_usd",
                                                                    "ttft_p90_s",
                                                                    "tpot_p90_s",
                                                                    "output_tok_per_s_per_gpu",
                                                                    "interrupted"};

}  // namespace

nlohmann::json to_json(const GameState& s) {
  nlohmann::json j;
  j["scenario_id"] = s.scenario_id;
  j["seed"] = s.seed;
  j["hour"] = s.hour;
  j["end_hour"] = s.end_hour;
  j["finished"] = s.finished;

  const auto& c = s.company;
  nlohmann::json contracts = nlohmann::json::array();
  for (const auto& k : c.contracts) {
    contracts.push_back({{"id", k.id},
                         {"chip", k.chip},
                         {"contract", to_string(k.contract)},
                         {"num_gpus", k.num_gpus},
                         {"signed_price_usd_per_gpu_hour", k.signed_price_usd_per_gpu_hour},
                         {"signed_at_hour", k.signed_at_hour},
                         {"ready_at_hour", k.ready_at_hour},
                         {"term_ends_at_hour", k.term_ends_at_hour}});
  }
  nlohmann::json deployments = nlohmann::json::array();
  for (const auto& d : c.deployments) {
    nlohmann::json dj = {{"id", d.id},
                         {"model", d.model},
                         {"segment", d.segment},
                         {"chip", d.chip},
                         {"recipe", to_json(d.recipe)},
                         {"replicas", d.replicas},
                         {"speedup", d.speedup},
                         {"created_at_hour", d.created_at_hour},
                         {"active_replicas", d.active_replicas}};
    // Only a disaggregated deployment has the key: aggregated saves are unchanged.
    if (d.decode) {
      dj["decode"] = {{"chip", d.decode->chip},
                      {"recipe", to_json(d.decode->recipe)},
                      {"replicas", d.decode->replicas},
                      {"link", serving::kKvLinkNames[static_cast<std::size_t>(d.decode->link)]},
                      {"active_replicas", d.decode->active_replicas}};
    }
    deployments.push_back(std::move(dj));
  }
  nlohmann::json prices = nlohmann::json::object();
  for (const auto& [m, p] : c.prices) prices[m] = prices_json(p);
  j["company"] = {
      {"cash_usd", c.cash_usd},
      {"contracts", contracts},
      {"deployments", deployments},
      {"prices", prices},
      {"next_contract_id", c.next_contract_id},
      {"next_deployment_id", c.next_deployment_id},
      {"bankrupt", c.bankrupt},
      {"bankrupt_at_hour", c.bankrupt_at_hour ? nlohmann::json(*c.bankrupt_at_hour) : nlohmann::json(nullptr)}};

  const auto& w = s.world;
  nlohmann::json offers = nlohmann::json::array();
  for (const auto& o : w.market.offers) {
    offers.push_back({{"chip", o.chip},
                      {"contract", to_string(o.contract)},
                      {"list_price_usd_per_gpu_hour", o.list_price_usd_per_gpu_hour},
                      {"price_multiplier", o.price_multiplier},
                      {"available_gpus", o.available_gpus},
                      {"lead_time_hours", o.lead_time_hours},
                      {"term_hours", o.term_hours},
                      {"interruptions_per_hour", o.interruptions_per_hour}});
  }
  nlohmann::json segments = nlohmann::json::array();
  for (const auto& g : w.segments) {
    segments.push_back({{"id", g.id},
                        {"reputation", g.reputation},
                        {"demand_multiplier", g.demand_multiplier},
                        {"last_offered_requests_per_s", g.last_offered_requests_per_s},
                        {"last_slo_attainment", g.last_slo_attainment},
                        {"billed_cached_share", g.billed_cached_share}});
  }
  j["world"] = {{"market", offers},
                {"segments", segments},
                {"reference_price_multiplier", w.reference_price_multiplier},
                {"next_event", w.next_event},
                {"next_hint", w.next_hint},
                {"tutorial_step", w.tutorial_step}};

  const auto& t = s.ledger.totals();
  nlohmann::json by_model = nlohmann::json::object();
  for (const auto& [m, r] : s.ledger.by_model())
    by_model[m] = {{"tokens", tokens_json(r.tokens)}, {"revenue_usd", r.revenue_usd}};
  j["ledger"] = {{"revenue_usd", t.revenue_usd},
                 {"gpu_cost_usd", t.gpu_cost_usd},
                 {"fixed_cost_usd", t.fixed_cost_usd},
                 {"by_model", by_model},
                 {"gpu_cost_by_contract", s.ledger.gpu_cost_by_contract()}};
  const auto& v = s.service;
  j["service"] = {{"requests_offered", v.requests_offered},   {"requests_completed", v.requests_completed},
                  {"requests_failed", v.requests_failed},     {"requests_within_slo", v.requests_within_slo},
                  {"tokens", tokens_json(v.tokens)},          {"gpu_hours_rented", v.gpu_hours_rented},
                  {"gpu_hours_serving", v.gpu_hours_serving}, {"spot_interruptions", v.spot_interruptions}};
  nlohmann::json history = nlohmann::json::object();
  for (std::size_t i = 0; i < kNumSeries; ++i) history[std::string(kSeriesNames[i])] = s.history.series[i];
  j["history"] = history;
  if (!s.past.empty()) {
    // Only when the scenario has history: saves of every other game read and hash as before.
    nlohmann::json past = nlohmann::json::object();
    for (std::size_t i = 0; i < kNumSeries; ++i) past[std::string(kSeriesNames[i])] = s.past.series.series[i];
    j["past"] = {{"series", past},
                 {"priced_model", s.past.priced_model},
                 {"output_price_usd_per_mtok", s.past.output_price_usd_per_mtok},
                 {"market_output_price_usd_per_mtok", s.past.market_output_price_usd_per_mtok},
                 {"rent_chip", s.past.rent_chip},
                 {"rent_usd_per_gpu_hour", s.past.rent_usd_per_gpu_hour}};
  }
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : s.deployment_history) {
    rows.push_back({r.hour, r.deployment_id, r.gpus_serving, r.offered_requests_per_s, r.requests_offered,
                    r.requests_completed, r.requests_failed, r.requests_within_slo, r.output_tokens, r.revenue_usd,
                    r.ttft_p90_s, r.tpot_p90_s, r.output_tok_per_s_per_gpu, r.interrupted ? 1 : 0});
  }
  j["deployment_history"] = {{"fields", kDeploymentHourFields}, {"rows", rows}};
  nlohmann::json news = nlohmann::json::array();
  for (const auto& n : s.news) {
    nlohmann::json nj = {{"at_hour", n.at_hour}, {"text", n.text}};
    if (n.alarm) nj["alarm"] = kAlarmKindNames[static_cast<std::size_t>(*n.alarm)];
    if (n.advice_id) nj["advice_id"] = *n.advice_id;
    if (n.tone != NewsTone::kInfo) nj["tone"] = kNewsToneNames[static_cast<std::size_t>(n.tone)];
    news.push_back(nj);
  }
  j["news"] = news;
  nlohmann::json inbox = nlohmann::json::array();
  for (const auto& a : s.inbox) inbox.push_back(to_json(a));
  j["inbox"] = inbox;
  nlohmann::json log = nlohmann::json::array();
  for (const auto& l : s.log) log.push_back(to_json(l));
  j["log"] = log;
  j["advisor"] = to_json(s.advisor);
  j["rng"] = {{"demand", rng_text(s.rng.demand)}, {"market", rng_text(s.rng.market)}};
  return j;
}

namespace {
// What a check records once it is run, shown only from its ready hour on.
constexpr std::array<const char*, 9> kCheckResultKeys = {"measured_speedup",
                                                         "measured_component_speedup",
                                                         "interval_low",
                                                         "interval_high",
                                                         "verdict",
                                                         "quality_flag",
                                                         "rejection_flag",
                                                         "reputation_hit",
                                                         "note"};
}  // namespace

nlohmann::json take_hidden_fields(nlohmann::json& state) {
  // The advisor's records hold every proposal's truth; its streams the coming noise.
  nlohmann::json hidden = {{"advisor", state["advisor"]}};
  state.erase("advisor");
  // The change proposed is the claim's (the title names it); what it really does is hidden.
  nlohmann::json effects = nlohmann::json::array();
  nlohmann::json checks = nlohmann::json::array();
  const std::int64_t hour = state.at("hour").get<std::int64_t>();
  auto& inbox = state["inbox"];
  for (std::size_t i = 0; i < inbox.size(); ++i) {
    auto& a = inbox[i];
    effects.push_back({a["effect"]["speedup"], a["effect"]["reputation_hit"]});
    a["effect"].erase("speedup");
    a["effect"].erase("reputation_hit");
    for (std::size_t k = 0; k < a["checks"].size(); ++k) {
      auto& c = a["checks"][k];
      if (c["ready_at_hour"].get<std::int64_t>() <= hour) continue;
      nlohmann::json result = nlohmann::json::object();
      for (const char* key : kCheckResultKeys) {
        if (!c.contains(key)) continue;
        result[key] = c[key];
        c.erase(key);
      }
      checks.push_back({i, k, result});
    }
  }
  // A deployment's speedup is what its accepted code changes really do (their claims are in the
  // inbox: game::claimed_code_changes).
  nlohmann::json speedups = nlohmann::json::array();
  for (auto& d : state["company"]["deployments"]) {
    speedups.push_back(d["speedup"]);
    d.erase("speedup");
  }
  hidden["effects"] = effects;
  hidden["speedups"] = speedups;
  hidden["checks"] = checks;
  return hidden;
}

void restore_hidden_fields(nlohmann::json& state, const nlohmann::json& hidden) {
  auto bad = [](const std::string& why) { throw std::invalid_argument(why); };
  if (!hidden.is_object() || !hidden.contains("advisor") || !hidden.contains("effects")) {
    bad("expected the advisor and the inbox effects");
  }
  for (const auto& [key, value] : hidden.items()) {
    if (key != "advisor" && key != "effects" && key != "speedups" && key != "checks") bad("unknown part '" + key + "'");
  }
  if (!state.is_object() || !state.contains("inbox") || !state["inbox"].is_array()) bad("the state has no inbox");
  auto& inbox = state["inbox"];
  const auto& effects = hidden["effects"];
  if (!effects.is_array() || effects.size() != inbox.size()) bad("one effect per inbox item expected");
  for (std::size_t i = 0; i < effects.size(); ++i) {
    auto& a = inbox[i];
    if (!effects[i].is_array() || effects[i].size() != 2 || !a.is_object() || !a.contains("effect") ||
        !a["effect"].is_object()) {
      bad("effect " + std::to_string(i) + " is not [speedup, reputation_hit]");
    }
    a["effect"]["speedup"] = effects[i][0];
    a["effect"]["reputation_hit"] = effects[i][1];
  }
  if (hidden.contains("speedups")) {
    const auto& speedups = hidden["speedups"];
    auto* deployments = state.contains("company") && state["company"].is_object() &&
                                state["company"].contains("deployments") && state["company"]["deployments"].is_array()
                            ? &state["company"]["deployments"]
                            : nullptr;
    if (!deployments || !speedups.is_array() || speedups.size() != deployments->size()) {
      bad("one speedup per deployment expected");
    }
    for (std::size_t d = 0; d < speedups.size(); ++d) {
      if (!(*deployments)[d].is_object()) bad("deployment " + std::to_string(d) + " is not an object");
      (*deployments)[d]["speedup"] = speedups[d];
    }
  }
  if (hidden.contains("checks")) {
    if (!hidden["checks"].is_array()) bad("the checks are not a list");
    for (const auto& c : hidden["checks"]) {
      if (!c.is_array() || c.size() != 3 || !c[0].is_number_unsigned() || !c[1].is_number_unsigned() ||
          !c[2].is_object()) {
        bad("a check is not [inbox item, check, results]");
      }
      const auto i = c[0].get<std::size_t>(), k = c[1].get<std::size_t>();
      if (i >= inbox.size() || !inbox[i].is_object() || !inbox[i].contains("checks") ||
          !inbox[i]["checks"].is_array() || k >= inbox[i]["checks"].size() || !inbox[i]["checks"][k].is_object()) {
        bad("check " + std::to_string(k) + " of inbox item " + std::to_string(i) + " is not in the state");
      }
      for (const auto& [key, value] : c[2].items()) inbox[i]["checks"][k][key] = value;
    }
  }
  state["advisor"] = hidden["advisor"];
}

nlohmann::json player_view_json(const GameState& s) {
  nlohmann::json j = to_json(s);
  j.erase("rng");  // the random streams' state tells the coming noise
  take_hidden_fields(j);
  return j;
}

GameState game_state_from_json(const nlohmann::json& j, const std::string& file, const std::string& pointer) {
  ObjectReader in(j, file, pointer);
  GameState s;
  s.scenario_id = in.string("scenario_id");
  {
    const auto& seed = in.raw("seed");
    if (!seed.is_number_unsigned()) in.fail("seed", "expected an unsigned integer");
    s.seed = seed.get<std::uint64_t>();
  }
  s.hour = in.integer("hour", Bound::kNonNegative);
  s.end_hour = in.integer("end_hour", Bound::kNonNegative);
  s.finished = in.boolean("finished");

  {
    auto c = in.object("company");
    s.company.cash_usd = c.number("cash_usd");
    auto ks = c.array("contracts");
    for (std::size_t i = 0; i < ks.size(); ++i) {
      auto k = ks.object(i);
      GpuContract g;
      g.id = k.integer("id", Bound::kPositive);
      g.chip = k.string("chip");
      g.contract = read_enum<Contract>(k, "contract", kContractNames);
      g.num_gpus = read_int(k, "num_gpus", Bound::kPositive);
      g.signed_price_usd_per_gpu_hour = k.number("signed_price_usd_per_gpu_hour", Bound::kNonNegative);
      g.signed_at_hour = k.integer("signed_at_hour");
      g.ready_at_hour = k.integer("ready_at_hour");
      g.term_ends_at_hour = k.integer("term_ends_at_hour");
      k.finish();
      s.company.contracts.push_back(g);
    }
    auto ds = c.array("deployments");
    for (std::size_t i = 0; i < ds.size(); ++i) {
      auto d = ds.object(i);
      DeploymentState x;
      x.id = d.integer("id", Bound::kPositive);
      x.model = d.string("model");
      x.segment = d.string("segment");
      x.chip = d.string("chip");
      auto r = d.object("recipe");
      x.recipe = recipe_settings_from_json(r);
      r.finish();
      x.replicas = read_int(d, "replicas", Bound::kNonNegative);
      x.speedup = d.number("speedup", Bound::kPositive);
      x.created_at_hour = d.integer("created_at_hour");
      x.active_replicas = read_int(d, "active_replicas", Bound::kNonNegative);
      if (auto dec = d.optional_object("decode")) {
        DecodePoolState p;
        p.chip = dec->string("chip");
        auto dr = dec->object("recipe");
        p.recipe = recipe_settings_from_json(dr);
        dr.finish();
        p.replicas = read_int(*dec, "replicas", Bound::kNonNegative);
        p.link = static_cast<serving::KvLinkKind>(dec->choice("link", serving::kKvLinkNames));
        p.active_replicas = read_int(*dec, "active_replicas", Bound::kNonNegative);
        dec->finish();
        x.decode = std::move(p);
      }
      d.finish();
      s.company.deployments.push_back(x);
    }
    auto prices = c.object("prices");
    for (const auto& m : prices.keys()) s.company.prices[m] = read_prices_object(prices.object(m));
    prices.finish();
    s.company.next_contract_id = c.integer("next_contract_id", Bound::kPositive);
    s.company.next_deployment_id = c.integer("next_deployment_id", Bound::kPositive);
    s.company.bankrupt = c.boolean("bankrupt");
    s.company.bankrupt_at_hour = c.optional_integer("bankrupt_at_hour");
    c.finish();
  }
  {
    auto w = in.object("world");
    auto offers = w.array("market");
    for (std::size_t i = 0; i < offers.size(); ++i) {
      auto o = offers.object(i);
      econ::GpuOffer x;
      x.chip = o.string("chip");
      x.contract = read_enum<Contract>(o, "contract", kContractNames);
      x.list_price_usd_per_gpu_hour = o.number("list_price_usd_per_gpu_hour", Bound::kNonNegative);
      x.price_multiplier = o.number("price_multiplier", Bound::kPositive);
      x.available_gpus = read_int(o, "available_gpus", Bound::kNonNegative);
      x.lead_time_hours = read_int(o, "lead_time_hours", Bound::kNonNegative);
      x.term_hours = read_int(o, "term_hours", Bound::kNonNegative);
      x.interruptions_per_hour = o.number("interruptions_per_hour", Bound::kNonNegative);
      o.finish();
      s.world.market.offers.push_back(x);
    }
    auto segs = w.array("segments");
    for (std::size_t i = 0; i < segs.size(); ++i) {
      auto g = segs.object(i);
      SegmentState x{g.string("id"),
                     g.number("reputation"),
                     g.number("demand_multiplier"),
                     g.number("last_offered_requests_per_s"),
                     g.number("last_slo_attainment"),
                     g.number("billed_cached_share")};
      g.finish();
      s.world.segments.push_back(x);
    }
    auto ref = w.object("reference_price_multiplier");
    for (const auto& m : ref.keys()) s.world.reference_price_multiplier[m] = ref.number(m, Bound::kPositive);
    ref.finish();
    s.world.next_event = static_cast<std::size_t>(w.integer("next_event", Bound::kNonNegative));
    s.world.next_hint = static_cast<std::size_t>(w.integer("next_hint", Bound::kNonNegative));
    // Saves from before the gated tutorial have no step: they start at the first.
    s.world.tutorial_step =
        static_cast<std::size_t>(w.optional_integer("tutorial_step", Bound::kNonNegative).value_or(0));
    w.finish();
  }
  {
    auto l = in.object("ledger");
    econ::LedgerTotals t{l.number("revenue_usd"), l.number("gpu_cost_usd"), l.number("fixed_cost_usd")};
    std::map<std::string, econ::ModelRevenue> by_model;
    auto bm = l.object("by_model");
    for (const auto& m : bm.keys()) {
      auto r = bm.object(m);
      by_model[m] = {read_tokens(r.object("tokens")), r.number("revenue_usd")};
      r.finish();
    }
    bm.finish();
    std::array<double, kContractNames.size()> by_contract{};
    auto bc = l.array("gpu_cost_by_contract");
    if (bc.size() != by_contract.size()) bc.fail_here("expected one cost per contract type");
    for (std::size_t i = 0; i < bc.size(); ++i) by_contract[i] = bc.number(i);
    l.finish();
    s.ledger.restore(t, std::move(by_model), by_contract);
  }
  {
    auto v = in.object("service");
    s.service.requests_offered = v.number("requests_offered");
    s.service.requests_completed = v.number("requests_completed");
    s.service.requests_failed = v.number("requests_failed");
    s.service.requests_within_slo = v.number("requests_within_slo");
    s.service.tokens = read_tokens(v.object("tokens"));
    s.service.gpu_hours_rented = v.number("gpu_hours_rented");
    s.service.gpu_hours_serving = v.number("gpu_hours_serving");
    s.service.spot_interruptions = read_int(v, "spot_interruptions", Bound::kNonNegative);
    v.finish();
  }
  {
    auto h = in.object("history");
    for (std::size_t i = 0; i < kNumSeries; ++i) {
      std::string key(kSeriesNames[i]);
      s.history.series[i] = read_doubles(h.raw(key), file, h.pointer_to(key));
      if (s.history.series[i].size() != s.history.series[0].size()) h.fail(key, "series lengths differ");
    }
    h.finish();
  }
  if (in.has("past")) {
    auto p = in.object("past");
    auto ser = p.object("series");
    for (std::size_t i = 0; i < kNumSeries; ++i) {
      std::string key(kSeriesNames[i]);
      s.past.series.series[i] = read_doubles(ser.raw(key), file, ser.pointer_to(key));
      if (s.past.series.series[i].size() != s.past.series.series[0].size()) ser.fail(key, "series lengths differ");
    }
    ser.finish();
    if (s.past.series.num_hours() == 0 || s.past.series.num_hours() % 24 != 0 ||
        s.past.series.num_hours() > static_cast<std::size_t>(kMaxHistoryDays) * 24) {
      p.fail("series", "the past is whole days, 1 to " + std::to_string(kMaxHistoryDays) + " of them");
    }
    s.past.priced_model = p.string("priced_model");
    s.past.rent_chip = p.string("rent_chip");
    auto hourly = [&](const char* key, bool wanted) {
      auto v = read_doubles(p.raw(key), file, p.pointer_to(key));
      if (v.size() != (wanted ? s.past.series.num_hours() : 0)) {
        p.fail(key, wanted ? "one value per past hour" : "no values without its name");
      }
      return v;
    };
    s.past.output_price_usd_per_mtok = hourly("output_price_usd_per_mtok", !s.past.priced_model.empty());
    s.past.market_output_price_usd_per_mtok = hourly("market_output_price_usd_per_mtok", !s.past.priced_model.empty());
    s.past.rent_usd_per_gpu_hour = hourly("rent_usd_per_gpu_hour", !s.past.rent_chip.empty());
    p.finish();
  }
  {
    auto dh = in.object("deployment_history");
    auto fields = dh.string_array("fields");
    if (fields.size() != kDeploymentHourFields.size() ||
        !std::equal(fields.begin(), fields.end(), kDeploymentHourFields.begin())) {
      dh.fail("fields", "unexpected deployment-hour fields");
    }
    const auto& rows = dh.raw("rows");
    if (!rows.is_array()) dh.fail("rows", "expected an array");
    for (std::size_t i = 0; i < rows.size(); ++i) {
      auto v = read_doubles(rows[i], file, dh.pointer_to("rows") + "/" + std::to_string(i));
      if (v.size() != kDeploymentHourFields.size())
        dh.fail("rows", "row " + std::to_string(i) + " has the wrong length");
      DeploymentHour r;
      r.hour = static_cast<std::int64_t>(v[0]);
      r.deployment_id = static_cast<std::int64_t>(v[1]);
      r.gpus_serving = static_cast<int>(v[2]);
      r.offered_requests_per_s = v[3];
      r.requests_offered = v[4];
      r.requests_completed = v[5];
      r.requests_failed = v[6];
      r.requests_within_slo = v[7];
      r.output_tokens = v[8];
      r.revenue_usd = v[9];
      r.ttft_p90_s = v[10];
      r.tpot_p90_s = v[11];
      r.output_tok_per_s_per_gpu = v[12];
      r.interrupted = v[13] != 0;
      s.deployment_history.push_back(r);
    }
    dh.finish();
  }
  {
    auto ns = in.array("news");
    for (std::size_t i = 0; i < ns.size(); ++i) {
      auto n = ns.object(i);
      NewsItem item{n.integer("at_hour"), n.string("text"), std::nullopt, std::nullopt};
      if (n.has("alarm")) item.alarm = static_cast<AlarmKind>(n.choice("alarm", kAlarmKindNames));
      item.advice_id = n.optional_string("advice_id");
      // Saves written before tones existed: plain news.
      if (n.has("tone")) item.tone = static_cast<NewsTone>(n.choice("tone", kNewsToneNames));
      s.news.push_back(std::move(item));
      n.finish();
    }
  }
  {
    auto ib = in.array("inbox");
    for (std::size_t i = 0; i < ib.size(); ++i) {
      s.inbox.push_back(read_advice(ib.object(i)));
    }
  }
  {
    const auto& log = in.raw("log");
    if (!log.is_array()) in.fail("log", "expected an array");
    for (std::size_t i = 0; i < log.size(); ++i) {
      s.log.push_back(logged_command_from_json(log[i], file, in.pointer_to("log") + "/" + std::to_string(i)));
    }
  }
  // Saves of version 1 have no advisor section: the advisor starts afresh (as it did then).
  if (auto a = in.optional_object("advisor")) s.advisor = read_advisor_state(*a);
  {
    auto r = in.object("rng");
    read_rng(r, "demand", s.rng.demand);
    read_rng(r, "market", s.rng.market);
    r.finish();
  }
  in.finish();
  return s;
}

}  // namespace tycoon::game
