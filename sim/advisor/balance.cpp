#include "sim/advisor/balance.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <utility>

#include "sim/advisor/advisor.h"
#include "sim/advisor/bots.h"
#include "sim/game/summary.h"
#include "sim/serving/simulation_memo.h"

namespace tycoon::advisor {

const BalanceRow* BalanceTable::find(std::string_view strategy) const {
  for (const auto& r : rows) {
    if (r.strategy == strategy) return &r;
  }
  return nullptr;
}

namespace {

BalanceRow not_applicable(std::string_view strategy, std::string why) {
  BalanceRow r;
  r.strategy = std::string(strategy);
  r.applicable = false;
  r.why_not = std::move(why);
  return r;
}

// `ignored_advice`: the strategy plays in a level with an advisor but never decides on its
// proposals (they are played without one: an ignored advisor changes nothing in the business),
// so its advice calls score 0 of 10 as a player's would.
BalanceRow row_of(std::string_view strategy, const game::Game& g, const game::Counterfactuals& cf,
                  bool ignored_advice = false) {
  BalanceRow r;
  r.strategy = std::string(strategy);
  auto sum = game::summarize(g, &cf);
  if (ignored_advice) {
    auto in = game::score_inputs(g, &cf);
    in.judgement = game::AdviceJudgement{1, 0, 0};
    sum.score = game::score(g.scenario(), g.state(), sum.goals, in);
  }
  r.profit_usd = sum.profit_usd;
  r.slo_attainment = sum.slo_attainment;
  r.bankrupt = sum.bankrupt;
  r.score = sum.score;
  return r;
}

}  // namespace

BalanceTable balance_table(const game::Scenario& scenario, const data::Catalog& catalog,
                           const CodeChangeCatalog& changes, const std::filesystem::path& strategies_dir) {
  // The six strategies ask many of the same questions (the advisor's profiles, its claims' truths,
  // the checks' benchmarks): each is simulated once per table.
  serving::SimulationMemo memo;
  BalanceTable t;
  t.scenario_id = scenario.id;
  t.scenario_name = scenario.name;
  auto windows = std::make_shared<game::ServingWindows>();
  game::GameOptions o;
  o.windows = windows;
  // The counterfactuals are the do-nothing and reference rows themselves.
  game::Game probe(scenario, catalog, o);
  const bool advice_locked = scenario.lever_locked("accept_advice");
  // The reference takes the advisor's good proposals (as the game's own comparison does).
  const Chien reference_advisor(catalog, scenario, changes);
  auto plays = game::counterfactual_plays(scenario, probe.state(), catalog, windows,
                                          advice_locked ? nullptr : &reference_advisor);
  for (auto& p : plays) {
    while (!p.game->finished()) p.step();
  }
  const auto cf = game::collect(plays);
  for (auto name : kBalanceStrategies) {
    if (name == "do-nothing" || name == "reference") {
      const game::ScriptedPlay* play = nullptr;
      for (const auto& p : plays) {
        if (p.id == (name == "do-nothing" ? "do_nothing" : "reference")) play = &p;
      }
      if (!play) {
        t.rows.push_back(not_applicable(name, "the scenario has no reference strategy"));
        continue;
      }
      // The reference's calls are its own (it decides by the truth); doing nothing ignores the advisor.
      t.rows.push_back(row_of(name, *play->game, cf, name == "do-nothing" && !advice_locked));
      continue;
    }
    if (name == "naive") {
      auto path = strategies_dir / scenario.id / "naive.jsonl";
      if (!std::filesystem::exists(path)) {
        t.rows.push_back(not_applicable(name, "no naive script at " + path.string()));
        continue;
      }
      game::Game g(scenario, catalog, o);
      game::replay(g, game::read_command_log(path));
      t.rows.push_back(row_of(name, g, cf, !advice_locked));
      continue;
    }
    if (advice_locked) {
      t.rows.push_back(not_applicable(name, "the level locks accept_advice: no advisor"));
      continue;
    }
    BotPolicy policy = name == "accept-all"   ? BotPolicy::kAcceptAll
                       : name == "reject-all" ? BotPolicy::kRejectAll
                                              : BotPolicy::kVerifyThenDecide;
    game::Game g(scenario, catalog, o);
    auto chien = std::make_shared<Chien>(catalog, scenario, changes);
    BotOptions bo;
    if (scenario.reference_strategy) bo.script = &scenario.reference_strategy->commands;
    play_bot(g, chien, policy, bo);
    t.rows.push_back(row_of(name, g, cf));
  }
  return t;
}

std::string balance_markdown(const std::vector<BalanceTable>& tables) {
  std::string out = "| level |";
  for (auto s : kBalanceStrategies) {
    out += ' ';
    out += s;
    out += " |";
  }
  out += "\n|---|";
  for (std::size_t i = 0; i < kBalanceStrategies.size(); ++i) out += "---|";
  out += "\n";
  for (const auto& t : tables) {
    out += "| ";
    out += t.scenario_id;
    out += " |";
    for (const auto& r : t.rows) {
      if (!r.applicable) {
        out += " — |";
        continue;
      }
      std::string stars;
      for (int i = 0; i < 3; ++i) stars += i < r.score.stars ? "★" : "☆";
      char buf[128];
      std::snprintf(buf, sizeof buf, " %.0f %s ($%.0f%s) |", r.score.points, stars.c_str(), r.profit_usd,
                    r.bankrupt ? ", bankrupt" : "");
      out += buf;
    }
    out += "\n";
  }
  return out;
}

nlohmann::json to_json(const BalanceTable& t) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : t.rows) {
    nlohmann::json j = {{"strategy", r.strategy}, {"applicable", r.applicable}};
    if (!r.applicable) {
      j["why_not"] = r.why_not;
    } else {
      j["score"] = r.score.points;
      j["stars"] = r.score.stars;
      j["passed"] = r.score.passed;
      j["profit_usd"] = r.profit_usd;
      j["slo_attainment"] = r.slo_attainment;
      j["bankrupt"] = r.bankrupt;
      nlohmann::json parts = nlohmann::json::object();
      for (const auto& c : r.score.components) {
        if (c.known) parts[c.id] = {{"points", c.points}, {"detail", c.detail}};
      }
      j["components"] = parts;
    }
    rows.push_back(j);
  }
  return {{"scenario", t.scenario_id}, {"name", t.scenario_name}, {"rows", rows}};
}

std::vector<game::Scenario> balanced_levels(const std::filesystem::path& data_root, const data::Catalog& catalog) {
  std::vector<game::Scenario> levels;
  for (const auto& f : game::list_scenarios(data_root)) {
    auto s = game::load_scenario(f, catalog);
    if (s.kind == game::ScenarioKind::kCampaign || s.kind == game::ScenarioKind::kClassroom) levels.push_back(s);
  }
  std::stable_sort(levels.begin(), levels.end(), [](const auto& a, const auto& b) {
    return std::make_pair(a.kind, a.level.value_or(0)) < std::make_pair(b.kind, b.level.value_or(0));
  });
  return levels;
}

}  // namespace tycoon::advisor
