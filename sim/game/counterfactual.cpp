#include "sim/game/counterfactual.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "sim/game/scoring.h"
#include "sim/game/summary.h"

namespace tycoon::game {

std::size_t step_scripted(Game& game, const std::vector<LoggedCommand>& commands, bool take_good_advice) {
  if (game.finished()) return 0;
  const std::int64_t h = game.state().hour;
  std::size_t refused = 0;
  for (const auto& c : commands) {
    if (c.at_hour == h && !game.apply(c.command).ok) ++refused;
  }
  if (take_good_advice) {
    std::vector<std::pair<std::string, bool>> calls;  // copied first: deciding changes the inbox
    for (const auto& a : game.state().inbox) {
      if (a.status != AdviceStatus::kPending) continue;
      const auto* r = game.state().advisor.find(a.id);
      calls.emplace_back(a.id, r && r->good() && !a.minor);
    }
    for (const auto& [id, good] : calls) {
      if (!good || !game.apply(AcceptAdvice{id}).ok) game.apply(RejectAdvice{id});
    }
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
  f.slo_attainment = slo_attainment(s);
  f.gpu_hours_rented = s.service.gpu_hours_rented;
  f.gpu_hours_serving = s.service.gpu_hours_serving;
  f.bankrupt = s.company.bankrupt;
  for (const auto& a : s.inbox) {
    for (const auto& c : a.checks) {
      f.checks_usd += c.cost_usd;
      if (c.kind == AdviceCheckKind::kBenchmark) f.benchmark_checks_usd += c.cost_usd;
    }
  }
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
                                               const data::Catalog& catalog, std::shared_ptr<ServingWindows> windows,
                                               const Advisor* advisor) {
  GameOptions o;
  o.seed = state.seed;
  o.days = static_cast<int>(state.end_hour / 24);
  o.windows = windows ? windows : std::make_shared<ServingWindows>();
  std::vector<ScriptedPlay> plays;
  plays.push_back({"do_nothing",
                   "Had you done nothing",
                   "The level as it starts, left alone: no command at all, no advice taken.",
                   std::make_unique<Game>(scenario, catalog, o),
                   {},
                   0});
  if (scenario.reference_strategy) {
    plays.push_back({"reference", "The reference strategy", scenario.reference_strategy->description,
                     std::make_unique<Game>(scenario, catalog, o), scenario.reference_strategy->commands, 0});
    if (advisor) {
      auto& ref = plays.back();
      ref.game->set_advisor(advisor->clone());
      ref.take_good_advice = true;
      ref.description +=
          " It takes the advisor's good proposals the hour they are posted and rejects the rest, "
          "as a player who knew the truth would.";
    }
  }
  return plays;
}

Counterfactuals collect(const std::vector<ScriptedPlay>& plays) {
  Counterfactuals c;
  for (const auto& p : plays) {
    if (p.id == "do_nothing") c.do_nothing = p.result();
    if (p.id == "reference") c.reference = p.result();
  }
  // Each run scored as a player's game is, once both profits are known.
  for (const auto& p : plays) {
    if (!p.game->finished()) continue;
    auto* run = p.id == "do_nothing" ? &c.do_nothing : p.id == "reference" && c.reference ? &*c.reference : nullptr;
    if (!run) continue;
    const auto& g = *p.game;
    run->score = score(g.scenario(), g.state(), evaluate_goals(g.scenario(), g.state()), score_inputs(g, &c));
  }
  return c;
}

Counterfactuals run_counterfactuals(const Scenario& scenario, const GameState& state, const data::Catalog& catalog,
                                    std::shared_ptr<ServingWindows> windows, const Advisor* advisor) {
  auto plays = counterfactual_plays(scenario, state, catalog, std::move(windows), advisor);
  for (auto& p : plays) {
    while (!p.game->finished()) p.step();
  }
  return collect(plays);
}

namespace {

// Two scores this close are the same (they show alike at one decimal).
constexpr double kMatchedScorePoints = 0.05;

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
  // Token counts written for people (never e-notation).
  auto tokens = [](double t) {
    char b[48];
    if (t >= 1e9) {
      std::snprintf(b, sizeof b, "%.2f billion", t / 1e9);
    } else if (t >= 1e6) {
      std::snprintf(b, sizeof b, "%.1f million", t / 1e6);
    } else {
      std::snprintf(b, sizeof b, "%.0f", t);
    }
    return std::string(b);
  };
  std::snprintf(buf, sizeof buf, "you served %s output tokens (SLO %.0f%%), the reference %s (SLO %.0f%%)",
                tokens(you.output_tokens).c_str(), 100 * you.slo_attainment, tokens(ref.output_tokens).c_str(),
                100 * ref.slo_attainment);
  out.push_back({"customers_served", "Customers served", served, buf});
  // GPU bill: idle hours at your average rate, then the rest.
  const double idle = (you.idle_gpu_hours() - ref.idle_gpu_hours()) * you.gpu_usd_per_hour();
  std::snprintf(buf, sizeof buf, "%.0f GPU-hours rented but not serving (the reference: %.0f), at %s per GPU-hour",
                you.idle_gpu_hours(), ref.idle_gpu_hours(), money(you.gpu_usd_per_hour()).c_str());
  out.push_back({"idle_gpu_hours", "Idle GPU-hours", idle, buf});
  const double gpu_checks = you.benchmark_checks_usd - ref.benchmark_checks_usd;
  const double gpu_rest = (you.gpu_cost_usd - ref.gpu_cost_usd) - idle - gpu_checks;
  std::snprintf(buf, sizeof buf, "%.0f GPU-hours serving for %s in all (the reference: %.0f for %s)",
                you.gpu_hours_serving, money(you.gpu_cost_usd).c_str(), ref.gpu_hours_serving,
                money(ref.gpu_cost_usd).c_str());
  out.push_back({"gpu_spend", "GPUs in use", gpu_rest, buf});
  const double checks = you.checks_usd - ref.checks_usd;
  std::snprintf(buf, sizeof buf, "%s paid for component tests, benchmarks and canaries of advice",
                money(you.checks_usd).c_str());
  out.push_back({"checks", "Checks of advice", checks, buf});
  const double fixed_you = you.fixed_cost_usd - (you.checks_usd - you.benchmark_checks_usd);
  const double fixed_ref = ref.fixed_cost_usd - (ref.checks_usd - ref.benchmark_checks_usd);
  std::snprintf(buf, sizeof buf, "%s against the reference's %s", money(fixed_you).c_str(), money(fixed_ref).c_str());
  out.push_back({"fixed_costs", "Fixed costs", fixed_you - fixed_ref, buf});
  return out;
}

namespace {

// The score's part where `ref` is furthest ahead of `you` (null when it is ahead in none).
const ScoreComponent* largest_shortfall(const Score& you, const Score& ref, double* points_behind) {
  const ScoreComponent* worst = nullptr;
  double most = 0;
  for (const auto& c : you.components) {
    if (!c.known) continue;
    for (const auto& r : ref.components) {
      if (r.id != c.id || !r.known || r.points - c.points <= most) continue;
      most = r.points - c.points;
      worst = &c;
    }
  }
  if (points_behind) *points_behind = most;
  return worst;
}

}  // namespace

std::string reference_comparison(const Score& you, double your_profit_usd, const CounterfactualRun& reference) {
  const double more = reference.figures.profit_usd - your_profit_usd;  // what the reference earned over you
  char buf[320];
  if (!reference.score || !reference.score->final || !you.final) {
    if (profit_difference_sign(more) > 0) return "The reference earned " + money(more) + " more";
    if (profit_difference_sign(more) < 0) return "You earned " + money(-more) + " more than the reference";
    return "You earned what the reference earned";
  }
  const double ref = reference.score->points, d = you.points - ref;
  std::string profit;
  if (profit_difference_sign(more) > 0) {
    profit = "it earned " + money(more) + " more";
  } else if (profit_difference_sign(more) < 0) {
    profit = "you earned " + money(-more) + " more";
  } else {
    profit = "the same profit";
  }
  if (std::abs(d) < kMatchedScorePoints) {
    std::snprintf(buf, sizeof buf, "You matched the reference's score (%.1f points; %s)", ref, profit.c_str());
    return buf;
  }
  if (d > 0) {
    std::snprintf(buf, sizeof buf, "You beat the reference: %.1f points to its %.1f (%s)", you.points, ref,
                  profit_difference_sign(more) > 0 ? ("though " + profit).c_str() : profit.c_str());
    return buf;
  }
  std::snprintf(buf, sizeof buf, "The reference scored %.1f points to your %.1f", ref, you.points);
  std::string out = buf;
  if (profit_difference_sign(more) > 0) return out + ": " + profit;
  double behind = 0;
  const auto* part = largest_shortfall(you, *reference.score, &behind);
  out += ": " + profit;
  if (you.played_share < 1) {
    std::snprintf(buf, sizeof buf, ", but played %.0f%% of the game", 100 * you.played_share);
    return out + buf;
  }
  if (part) {
    std::string name = part->name;
    if (!name.empty()) name[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(name[0])));
    std::snprintf(buf, sizeof buf, ", but it scored %.1f more on %s; yours: %s", behind, name.c_str(),
                  part->detail.c_str());
    out += buf;
  }
  return out;
}

std::vector<std::string> what_to_try(const std::vector<GapItem>& gap, const Score& you,
                                     const CounterfactualRun& reference) {
  std::vector<std::string> out;
  const auto& ref = reference.figures;
  double total = 0;
  for (const auto& g : gap) total += g.usd;
  const bool scored = reference.score && reference.score->final && you.final;
  if (scored ? you.points > reference.score->points - kMatchedScorePoints : total <= 0) {
    out.push_back(
        "You matched or beat the reference strategy's score on the same customers: try a harder level, or this one "
        "with fewer GPUs.");
    return out;
  }
  if (you.played_share < 1) {
    out.push_back("Play to the end: a game handed in unfinished scores only the share of it played.");
    return out;
  }
  if (scored && total <= 0) {
    // More money than the reference but a lower score: the part of the score it won.
    const auto* part = largest_shortfall(you, *reference.score, nullptr);
    const std::string id = part ? part->id : "";
    if (id == "service") {
      out.push_back(
          "Service: you out-earned the reference but served fewer requests within the SLO; the score weighs "
          "both. Capacity at the peak (a replica more, or a price step up when the queue grows) keeps customers "
          "served.");
    } else if (id == "solvency") {
      out.push_back("Solvency: stay solvent to the end; a bankruptcy costs the share of the game left.");
    } else if (id == "judgement") {
      out.push_back(
          "Advice calls: check the proposals whose claims would matter before deciding, and take the real gains.");
    } else {
      out.push_back("Profit: the reference's score counts profit over doing nothing; see the table above.");
    }
    return out;
  }
  // Items worth a sentence: at least 5% of the reference's profit (or $50).
  const double floor = std::max(50.0, 0.05 * std::abs(ref.profit_usd));
  std::vector<const GapItem*> big;
  for (const auto& g : gap) {
    if (g.usd >= floor) big.push_back(&g);
  }
  std::sort(big.begin(), big.end(), [](const GapItem* a, const GapItem* b) { return a->usd > b->usd; });
  for (const auto* g : big) {
    if (out.size() == 3) break;
    if (g->id == "pricing") {
      out.push_back(
          "Pricing: the Pricing tab's profit-versus-price curve shows where your price sits against your capacity; "
          "with customers turned away, a higher price costs only those you could not serve.");
    } else if (g->id == "customers_served") {
      out.push_back(
          "Customers served: more served tokens from the same GPUs (a faster recipe: the Profiler and Pareto "
          "tabs), or more replicas before the peak, if the extra revenue beats their rent.");
    } else if (g->id == "idle_gpu_hours") {
      out.push_back("Idle GPU-hours: GPUs rented but not serving still cost rent; release them, or deploy on them.");
    } else if (g->id == "gpu_spend") {
      out.push_back(
          "GPUs in use: cheaper GPUs for the same tokens (another chip, a reserved or spot contract, fewer "
          "replicas off-peak).");
    } else if (g->id == "checks") {
      out.push_back(
          "Checks: a benchmark is cheap next to a wrong call, but a component test or canary on every "
          "proposal adds up; check the ones whose claims would matter.");
    } else if (g->id == "fixed_costs") {
      out.push_back("Fixed costs: these run every day; a game that ends sooner in profit pays fewer of them.");
    }
  }
  if (out.empty())
    out.push_back("Close to the reference: small changes now (a price step, one replica) decide the rest.");
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
          {"checks_usd", f.checks_usd},
          {"bankrupt", f.bankrupt}};
}

namespace {
nlohmann::json run_json(const CounterfactualRun& r) {
  nlohmann::json j = {{"id", r.id},
                      {"name", r.name},
                      {"description", r.description},
                      {"commands_refused", r.commands_refused},
                      {"figures", to_json(r.figures)}};
  if (r.score) {
    j["score"] = r.score->points;
    j["stars"] = r.score->stars;
  }
  return j;
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

std::optional<Counterfactuals> end_of_run_counterfactuals(const Game& game, const data::Catalog& catalog, bool wanted) {
  if (!wanted || !game.finished()) return std::nullopt;
  return run_counterfactuals(game.scenario(), game.state(), catalog, nullptr, game.advisor());
}

}  // namespace tycoon::game
