#include "sim/game/summary.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace tycoon::game {

ScoreInputs score_inputs(const Game& game, const Counterfactuals* cf, std::optional<std::int64_t> stopped_at_hour) {
  ScoreInputs in;
  in.judgement = game.revealed_judgement();
  in.stopped_at_hour = stopped_at_hour;
  if (cf) {
    in.do_nothing_profit_usd = cf->do_nothing.figures.profit_usd;
    if (cf->reference) {
      in.reference_profit_usd = cf->reference->figures.profit_usd;
    } else {
      in.reference_profit_usd = *in.do_nothing_profit_usd;
      for (const auto& g : game.scenario().goals) {
        if (g.kind == GoalKind::kProfitUsd) in.reference_profit_usd = g.target;
      }
    }
  }
  return in;
}

namespace {

// The money, service and hours a game state holds.
void fill_figures(GameSummary& out, const GameState& s) {
  const auto& t = s.ledger.totals();
  out.hours = s.hour;
  out.simulated_days = static_cast<double>(s.hour) / 24.0;
  out.cash_usd = s.company.cash_usd;
  out.revenue_usd = t.revenue_usd;
  out.gpu_cost_usd = t.gpu_cost_usd;
  out.fixed_cost_usd = t.fixed_cost_usd;
  out.profit_usd = t.profit_usd();
  out.gross_margin = t.gross_margin();
  out.tokens = s.service.tokens;
  out.requests_offered = s.service.requests_offered;
  out.requests_completed = s.service.requests_completed;
  out.requests_failed = s.service.requests_failed;
  out.slo_attainment = slo_attainment(s);
  double rep = 0;
  for (const auto& seg : s.world.segments) rep += seg.reputation;
  out.reputation = s.world.segments.empty() ? 1.0 : rep / static_cast<double>(s.world.segments.size());
  out.gpu_hours_rented = s.service.gpu_hours_rented;
  out.gpu_hours_serving = s.service.gpu_hours_serving;
  out.spot_interruptions = s.service.spot_interruptions;
  out.bankrupt = s.company.bankrupt;
  out.bankrupt_at_hour = s.company.bankrupt_at_hour;
  out.revenue_by_model_usd.clear();
  for (const auto& [model, r] : s.ledger.by_model()) out.revenue_by_model_usd[model] = r.revenue_usd;
  for (std::size_t i = 0; i < kContractNames.size(); ++i) {
    out.gpu_cost_by_contract_usd[std::string(kContractNames[i])] = s.ledger.gpu_cost_by_contract()[i];
  }
}

}  // namespace

GameSummary summarize(const Game& game, const Counterfactuals* cf, std::optional<std::int64_t> stopped_at_hour,
                      const GameState* at_stop) {
  const auto& sc = game.scenario();
  const auto& s = game.state();
  GameSummary out;
  out.scenario_id = sc.id;
  out.scenario_name = sc.name;
  out.seed = s.seed;
  out.starting_cash_usd = sc.company.starting_cash_usd;
  fill_figures(out, s);
  out.goals = evaluate_goals(sc, s);
  out.score = score(sc, s, out.goals, score_inputs(game, cf, stopped_at_hour));
  if (cf) {
    out.counterfactuals = *cf;
    if (cf->reference) {
      // The whole game's (an unfinished one's replay run to its end), as the score measures it.
      out.gap_to_reference = explain_gap(figures_of(s), cf->reference->figures);
      out.reference_comparison = reference_comparison(out.score, out.profit_usd, *cf->reference);
      out.what_to_try = what_to_try(out.gap_to_reference, out.score, *cf->reference);
    }
  }
  // An unfinished game reports the hours played: its state when it stopped.
  if (stopped_at_hour && at_stop && *stopped_at_hour < s.hour) fill_figures(out, *at_stop);
  out.windows_simulated = game.windows().windows_simulated();
  out.window_cache_hits = game.windows().cache_hits();
  return out;
}

nlohmann::json to_json(const GameSummary& s) {
  auto whole = [](double x) { return static_cast<std::int64_t>(std::llround(x)); };
  nlohmann::json goals = nlohmann::json::array();
  for (const auto& g : s.goals) {
    nlohmann::json gj = {{"kind", to_string(g.goal.kind)},
                         {"description", g.description},
                         {"achieved", g.achieved},
                         {"met", g.met},
                         {"points", g.points},
                         {"max_points", g.goal.points}};
    if (g.goal.kind != GoalKind::kSurvive) gj["target"] = g.goal.target;
    goals.push_back(gj);
  }
  nlohmann::json components = nlohmann::json::array();
  for (const auto& c : s.score.components) {
    components.push_back({{"id", c.id},
                          {"name", c.name},
                          {"points", c.points},
                          {"max_points", c.max_points},
                          {"known", c.known},
                          {"detail", c.detail}});
  }
  nlohmann::json j = {
      {"scenario", s.scenario_id},
      {"scenario_name", s.scenario_name},
      {"seed", s.seed},
      {"simulated_hours", s.hours},
      {"simulated_days", s.simulated_days},
      {"starting_cash_usd", s.starting_cash_usd},
      {"cash_usd", s.cash_usd},
      {"revenue_usd", s.revenue_usd},
      {"gpu_cost_usd", s.gpu_cost_usd},
      {"fixed_cost_usd", s.fixed_cost_usd},
      {"profit_usd", s.profit_usd},
      {"gross_margin", s.gross_margin ? nlohmann::json(*s.gross_margin) : nlohmann::json(nullptr)},
      {"input_tokens", whole(s.tokens.input_tokens)},
      {"cached_input_tokens", whole(s.tokens.cached_input_tokens)},
      {"output_tokens", whole(s.tokens.output_tokens)},
      {"requests_offered", whole(s.requests_offered)},
      {"requests_completed", whole(s.requests_completed)},
      {"requests_failed", whole(s.requests_failed)},
      {"slo_attainment", s.slo_attainment},
      {"reputation", s.reputation},
      {"gpu_hours_rented", s.gpu_hours_rented},
      {"gpu_hours_serving", s.gpu_hours_serving},
      {"spot_interruptions", s.spot_interruptions},
      {"bankrupt", s.bankrupt},
      {"bankrupt_at_hour", s.bankrupt_at_hour ? nlohmann::json(*s.bankrupt_at_hour) : nlohmann::json(nullptr)},
      {"score", s.score.points},
      {"max_score", s.score.max_points},
      {"score_final", s.score.final},
      {"score_components", components},
      {"passed", s.score.passed},
      {"stars", s.score.stars},
      {"played_share", s.score.played_share},
      {"goals", goals},
      {"revenue_by_model_usd", s.revenue_by_model_usd},
      {"gpu_cost_by_contract_usd", s.gpu_cost_by_contract_usd},
      {"serving_windows_simulated", s.windows_simulated},
      {"serving_window_cache_hits", s.window_cache_hits},
  };
  if (s.counterfactuals) {
    j["counterfactuals"] = to_json(*s.counterfactuals);
    nlohmann::json gap = nlohmann::json::array();
    for (const auto& g : s.gap_to_reference) gap.push_back(to_json(g));
    j["gap_to_reference"] = gap;
    if (s.counterfactuals->reference) j["reference_comparison"] = s.reference_comparison;
    j["what_to_try"] = s.what_to_try;
  }
  if (s.answer_key_hidden) j["answer_key_hidden"] = true;
  return j;
}

std::string history_csv(const GameState& state) {
  std::ostringstream os;
  os.precision(12);
  os << "hour";
  for (auto n : kSeriesNames) os << ',' << n;
  os << '\n';
  for (std::size_t h = 0; h < state.history.num_hours(); ++h) {
    os << h;
    for (std::size_t i = 0; i < kNumSeries; ++i) os << ',' << state.history.series[i][h];
    os << '\n';
  }
  return os.str();
}

std::string deployments_csv(const GameState& state) {
  std::ostringstream os;
  os.precision(12);
  os << "hour,deployment_id,gpus_serving,offered_requests_per_s,requests_offered,requests_completed,"
        "requests_failed,requests_within_slo,output_tokens,revenue_usd,ttft_p90_s,tpot_p90_s,"
        "output_tok_per_s_per_gpu,interrupted\n";
  for (const auto& r : state.deployment_history) {
    os << r.hour << ',' << r.deployment_id << ',' << r.gpus_serving << ',' << r.offered_requests_per_s << ','
       << r.requests_offered << ',' << r.requests_completed << ',' << r.requests_failed << ',' << r.requests_within_slo
       << ',' << r.output_tokens << ',' << r.revenue_usd << ',' << r.ttft_p90_s << ',' << r.tpot_p90_s << ','
       << r.output_tok_per_s_per_gpu << ',' << (r.interrupted ? 1 : 0) << '\n';
  }
  return os.str();
}

}  // namespace tycoon::game
