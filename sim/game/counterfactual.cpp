#include "sim/game/counterfactual.h"

#include <cmath>
#include <cstdio>

namespace tycoon::game {

std::size_t step_scripted(Game& game, const std::vector<LoggedCommand>& commands) {
  if (game.finished()) return 0;
  const std::int64_t h = game.state().hour;
  std::size_t refused = 0;
  for (const auto& c : commands) {
    if (c.at_hour == h && !game.apply(c.command).ok) ++refused;
  }
  game.step();
  return refused;
}

OutcomeFigures figures_of(const GameState& s) {
  const auto& t = s.ledger.totals();
  OutcomeFigures f;
  f.profit_usd = t.profit_usd();
  f.revenue_usd = t.revenue_usd;
  f.gpu_cost_usd = t.gpu_cost_usd;
  f.fixed_cost_usd = t.fixed_cost_usd;
  f.output_tokens = s.service.tokens.output_tokens;
  f.requests_offered = s.service.requests_offered;
  f.requests_completed = s.service.requests_completed;
  f.slo_attainment = s.service.requests_offered > 0 ? s.service.requests_within_slo / s.service.requests_offered : 1.0;
  f.gpu_hours_rented = s.service.gpu_hours_rented;
  f.gpu_hours_serving = s.service.gpu_hours_serving;
  f.bankrupt = s.company.bankrupt;
  return f;
}

CounterfactualRun ScriptedPlay::result() const {
  CounterfactualRun r;
  r.id = id;
  r.name = name;
  r.description = description;
  r.figures = figures_of(game->state());
  r.commands_refused = refused;
  return r;
}

std::vector<ScriptedPlay> counterfactual_plays(const Scenario& scenario, const GameState& state,
                                               const data::Catalog& catalog, std::shared_ptr<ServingWindows> windows) {
  GameOptions o;
  o.seed = state.seed;
  o.days = static_cast<int>(state.end_hour / 24);
  o.windows = windows ? windows : std::make_shared<ServingWindows>();
  std::vector<ScriptedPlay> plays;
  plays.push_back({"do_nothing", "Had you done nothing",
                   "The level as it starts, left alone: no command at all, no advice taken.",
                   std::make_unique<Game>(scenario, catalog, o), {}, 0});
  if (scenario.reference_strategy) {
    plays.push_back({"reference", "The reference strategy", scenario.reference_strategy->description,
                     std::make_unique<Game>(scenario, catalog, o), scenario.reference_strategy->commands, 0});
  }
  return plays;
}

Counterfactuals collect(const std::vector<ScriptedPlay>& plays) {
  Counterfactuals c;
  for (const auto& p : plays) {
    if (p.id == "do_nothing") c.do_nothing = p.result();
    if (p.id == "reference") c.reference = p.result();
  }
  return c;
}

Counterfactuals run_counterfactuals(const Scenario& scenario, const GameState& state, const data::Catalog& catalog,
                                    std::shared_ptr<ServingWindows> windows) {
  auto plays = counterfactual_plays(scenario, state, catalog, std::move(windows));
  for (auto& p : plays) {
    while (!p.game->finished()) p.step();
  }
  return collect(plays);
}

namespace {

std::string money(double usd) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%s$%.0f", usd < 0 ? "-" : "", std::abs(usd));
  return buf;
}

}  // namespace

std::vector<GapItem> explain_gap(const OutcomeFigures& you, const OutcomeFigures& ref) {
  std::vector<GapItem> out;
  char buf[256];
  const double p_you = you.revenue_per_output_mtok(), p_ref = ref.revenue_per_output_mtok();
  // Revenue: price × volume, split at your volume (pricing) and the reference's price (volume).
  const double pricing = (p_ref - p_you) * you.output_tokens / 1e6;
  const double served = p_ref * (ref.output_tokens - you.output_tokens) / 1e6;
  const double revenue_rest = (ref.revenue_usd - you.revenue_usd) - pricing - served;  // 0 up to rounding
  std::snprintf(buf, sizeof buf, "you earned $%.3f per million output tokens (input included), the reference $%.3f",
                p_you, p_ref);
  out.push_back({"pricing", "Pricing", pricing + revenue_rest, buf});
  std::snprintf(buf, sizeof buf, "you served %.3g output tokens (SLO %.0f%%), the reference %.3g (SLO %.0f%%)",
                you.output_tokens, 100 * you.slo_attainment, ref.output_tokens, 100 * ref.slo_attainment);
  out.push_back({"customers_served", "Customers served", served, buf});
  // GPU bill: idle hours at your average rate, then the rest.
  const double idle = (you.idle_gpu_hours() - ref.idle_gpu_hours()) * you.gpu_usd_per_hour();
  std::snprintf(buf, sizeof buf, "%.0f GPU-hours rented but not serving (the reference: %.0f), at %s per GPU-hour",
                you.idle_gpu_hours(), ref.idle_gpu_hours(), money(you.gpu_usd_per_hour()).c_str());
  out.push_back({"idle_gpu_hours", "Idle GPU-hours", idle, buf});
  const double gpu_rest = (you.gpu_cost_usd - ref.gpu_cost_usd) - idle;
  std::snprintf(buf, sizeof buf, "%.0f GPU-hours serving for %s in all (the reference: %.0f for %s)",
                you.gpu_hours_serving, money(you.gpu_cost_usd).c_str(), ref.gpu_hours_serving,
                money(ref.gpu_cost_usd).c_str());
  out.push_back({"gpu_spend", "GPUs in use", gpu_rest, buf});
  std::snprintf(buf, sizeof buf, "%s against the reference's %s (paid checks of advice count here)",
                money(you.fixed_cost_usd).c_str(), money(ref.fixed_cost_usd).c_str());
  out.push_back({"fixed_costs", "Fixed costs and checks", you.fixed_cost_usd - ref.fixed_cost_usd, buf});
  return out;
}

nlohmann::json to_json(const OutcomeFigures& f) {
  return {{"profit_usd", f.profit_usd},
          {"revenue_usd", f.revenue_usd},
          {"gpu_cost_usd", f.gpu_cost_usd},
          {"fixed_cost_usd", f.fixed_cost_usd},
          {"output_tokens", f.output_tokens},
          {"requests_offered", f.requests_offered},
          {"requests_completed", f.requests_completed},
          {"slo_attainment", f.slo_attainment},
          {"gpu_hours_rented", f.gpu_hours_rented},
          {"gpu_hours_serving", f.gpu_hours_serving},
          {"idle_gpu_hours", f.idle_gpu_hours()},
          {"bankrupt", f.bankrupt}};
}

namespace {
nlohmann::json run_json(const CounterfactualRun& r) {
  return {{"id", r.id},
          {"name", r.name},
          {"description", r.description},
          {"commands_refused", r.commands_refused},
          {"figures", to_json(r.figures)}};
}
}  // namespace

nlohmann::json to_json(const Counterfactuals& c) {
  nlohmann::json j = {{"do_nothing", run_json(c.do_nothing)}};
  j["reference"] = c.reference ? run_json(*c.reference) : nlohmann::json(nullptr);
  return j;
}

nlohmann::json to_json(const GapItem& g) {
  return {{"id", g.id}, {"name", g.name}, {"usd", g.usd}, {"detail", g.detail}};
}

}  // namespace tycoon::game
