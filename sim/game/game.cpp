#include "sim/game/game.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "sim/core/input_error.h"
#include "sim/econ/demand.h"
#include "sim/game/command_applier.h"
#include "sim/game/load_share.h"
#include "sim/game/market.h"
#include "sim/game/plan.h"
#include "sim/game/rng.h"
#include "sim/game/slo.h"
#include "sim/perf/profile_lookup.h"
#include "sim/serving/disaggregated.h"

namespace tycoon::game {

void set_days(Scenario& scenario, int days) {
  // Goals on what a game accumulates (profit, output tokens, cash above the start) scale with its
  // length: a one-day class of a week's level is judged on a day's worth, not failed by the week's.
  if (scenario.days > 0 && days != scenario.days) {
    const double share = static_cast<double>(days) / static_cast<double>(scenario.days);
    for (auto& g : scenario.goals) {
      if (g.kind == GoalKind::kProfitUsd || g.kind == GoalKind::kOutputTokens) {
        g.target *= share;
      } else if (g.kind == GoalKind::kCashUsd) {
        const double start = scenario.company.starting_cash_usd;
        g.target = start + (g.target - start) * share;
      }
    }
  }
  scenario.days = days;
  if (scenario.reference_strategy) {
    auto& cs = scenario.reference_strategy->commands;
    const std::int64_t end = scenario.end_hour();
    cs.erase(std::remove_if(cs.begin(), cs.end(), [&](const LoggedCommand& c) { return c.at_hour >= end; }), cs.end());
  }
}

Game::Game(Scenario scenario, const data::Catalog& catalog, GameOptions options)
    : scenario_(std::move(scenario)), catalog_(&catalog), calibrations_(catalog), windows_(std::move(options.windows)) {
  if (options.seed) {
    if (*options.seed > kMaxGameSeed) {
      throw core::InputError("seed " + std::to_string(*options.seed) + " is over " + std::to_string(kMaxGameSeed) +
                             ", the largest a game takes");
    }
    scenario_.seed = *options.seed;
  }
  if (options.days) set_days(scenario_, *options.days);
  if (options.history_days) scenario_.history_days = *options.history_days;
  if (!windows_) windows_ = std::make_shared<ServingWindows>();
  auto& s = state_;
  s.scenario_id = scenario_.id;
  s.seed = scenario_.seed;
  s.end_hour = scenario_.end_hour();
  s.company.cash_usd = scenario_.company.starting_cash_usd;
  s.company.prices = scenario_.starting_prices;
  for (const auto& o : scenario_.offers) s.world.market.offers.push_back(o.offer);
  for (const auto& seg : scenario_.segments) {
    s.world.segments.push_back(
        SegmentState{seg.id, scenario_.company.starting_reputation, 1.0, 0, 1.0, seg.cached_input_share});
  }
  for (const auto& [model, p] : scenario_.reference_prices) s.world.reference_price_multiplier[model] = 1.0;
  s.rng.demand.seed(derive_seed(s.seed, "demand"));
  s.rng.market.seed(derive_seed(s.seed, "market"));

  for (std::size_t i = 0; i < scenario_.start_contracts.size(); ++i) {
    const auto& c = scenario_.start_contracts[i];
    const auto* offer = s.world.market.find(c.chip, c.contract);
    if (!offer) {
      throw data::LoadError(scenario_.file, "/start/contracts/" + std::to_string(i),
                            "no market offer for " + c.chip + " " + std::string(to_string(c.contract)));
    }
    sign_contract(s.company, *offer, c.num_gpus, 0, 0);
  }
  CommandApplier setup{*this, /*enforce_locks=*/false};
  for (std::size_t i = 0; i < scenario_.start_deployments.size(); ++i) {
    const auto& d = scenario_.start_deployments[i];
    auto r = setup.apply(Deploy{d.model, d.chip, d.segment, d.replicas, d.recipe, {}});
    if (!r.ok) throw data::LoadError(scenario_.file, "/start/deployments/" + std::to_string(i), r.message);
    s.company.deployments.back().speedup = d.speedup;
  }
  if (!scenario_.briefing.empty()) news(scenario_.briefing);
  apply_due_events();
  // The tutorial's first step (or the first not already done by the scenario's start).
  while (s.world.tutorial_step < scenario_.tutorial_steps.size() &&
         step_done(scenario_.tutorial_steps[s.world.tutorial_step], s)) {
    ++s.world.tutorial_step;
  }
  announce_tutorial_step();
  if (scenario_.history_days > 0) s.past = make_past(scenario_, catalog, windows_);
}

namespace {
// The past company's cash: enough that no run of days can bankrupt it (the chart shows its trade;
// bankruptcy would end the past early). Its cash line is shifted to end at the starting cash.
constexpr double kPastCashUsd = 1e12;
}  // namespace

PastHistory make_past(const Scenario& scenario, const data::Catalog& catalog, std::shared_ptr<ServingWindows> windows) {
  PastHistory out;
  if (scenario.history_days <= 0) return out;
  Scenario past = scenario;
  past.history_days = 0;
  past.days = scenario.history_days;
  past.seed = derive_seed(scenario.seed, "history");
  past.events.clear();
  past.hints.clear();
  past.tutorial_steps.clear();
  past.briefing.clear();
  past.reference_strategy.reset();
  past.company.starting_cash_usd = kPastCashUsd;
  GameOptions options;
  options.windows = std::move(windows);
  Game g(std::move(past), catalog, std::move(options));
  const auto& st = g.state();
  if (!scenario.segments.empty()) {
    out.priced_model = scenario.segments.front().model;
  } else if (!scenario.starting_prices.empty()) {
    out.priced_model = scenario.starting_prices.begin()->first;
  }
  for (const auto& o : scenario.offers) {
    if (o.offer.contract == Contract::kOnDemand) {
      out.rent_chip = o.offer.chip;
      break;
    }
  }
  while (!g.finished()) {
    // The hour's prices are the ones in effect while it is simulated.
    if (!out.priced_model.empty()) {
      auto p = st.company.prices.find(out.priced_model);
      out.output_price_usd_per_mtok.push_back(p == st.company.prices.end() ? 0 : p->second.output_usd_per_mtok);
      out.market_output_price_usd_per_mtok.push_back(
          market_prices_now(scenario, st, out.priced_model).output_usd_per_mtok);
    }
    if (!out.rent_chip.empty()) {
      const auto* o = st.world.market.find(out.rent_chip, Contract::kOnDemand);
      out.rent_usd_per_gpu_hour.push_back(o ? o->price_usd_per_gpu_hour() : 0);
    }
    g.step();
  }
  out.series = st.history;
  auto& cash = out.series.series[static_cast<std::size_t>(Series::kCashUsd)];
  if (!cash.empty()) {
    const double shift = scenario.company.starting_cash_usd - cash.back();
    for (double& c : cash) c += shift;
  }
  return out;
}

bool tutorial_holds_clock(const Scenario& scenario, const GameState& state) {
  const auto& steps = scenario.tutorial_steps;
  return !state.finished && state.world.tutorial_step < steps.size() && steps[state.world.tutorial_step].holds_clock();
}

Game::Game(Scenario scenario, GameState state, const data::Catalog& catalog, GameOptions options)
    : scenario_(std::move(scenario)),
      catalog_(&catalog),
      state_(std::move(state)),
      calibrations_(catalog),
      windows_(std::move(options.windows)) {
  if (!windows_) windows_ = std::make_shared<ServingWindows>();
}

std::unique_ptr<Game> Game::fork() const {
  std::unique_ptr<Game> g(new Game(*this));
  g->windows_ = std::make_shared<ServingWindows>(*windows_);
  if (advisor_) g->advisor_ = advisor_->clone();
  return g;
}

nlohmann::json Game::revealed_debrief() const {
  if (!state_.finished || !advisor_) return nullptr;
  return advisor_->debrief_json(state_);
}

std::optional<AdviceJudgement> Game::revealed_judgement() const {
  if (!state_.finished) return std::nullopt;
  if (!advisor_) return AdviceJudgement{};
  return advisor_->judgement(state_).value_or(AdviceJudgement{});
}

void Game::news(std::string text, NewsTone tone) {
  state_.news.push_back({state_.hour, std::move(text), std::nullopt, std::nullopt, tone});
}

const perf::CalibrationProfile& Game::calibration(const std::string& chip) { return calibrations_(chip); }

double Game::acceptance_for(const DeploymentState& d) const { return game::acceptance_for(*catalog_, scenario_, d); }

econ::TokenPrices market_prices_now(const Scenario& scenario, const GameState& state, const std::string& model) {
  const auto it = scenario.reference_prices.find(model);
  if (it == scenario.reference_prices.end()) return {};
  const auto m = state.world.reference_price_multiplier.find(model);
  return econ::scaled(it->second, m != state.world.reference_price_multiplier.end() ? m->second : 1.0);
}

RequestPrices request_prices(const Scenario& scenario, const GameState& state, std::size_t segment_index,
                             const econ::TokenPrices& prices) {
  const auto& seg = scenario.segments.at(segment_index);
  const auto& seg_state = state.world.segments.at(segment_index);
  const auto reference = market_prices_now(scenario, state, seg.model);
  const double isl = static_cast<double>(seg.workload.input_tokens);
  const double osl = static_cast<double>(seg.workload.output_tokens);
  return {econ::price_per_request_usd(prices, isl, seg_state.billed_cached_share, osl),
          econ::price_per_request_usd(reference, isl, seg.cached_input_share, osl)};
}

void Game::apply_due_events() {
  auto& w = state_.world;
  while (w.next_hint < scenario_.hints.size() && scenario_.hints[w.next_hint].at_hour <= state_.hour) {
    news(scenario_.hints[w.next_hint++].text);
  }
  while (w.next_event < scenario_.events.size() && scenario_.events[w.next_event].at_hour <= state_.hour) {
    const auto& e = scenario_.events[w.next_event++];
    std::visit(
        [&](const auto& p) {
          using T = std::decay_t<decltype(p)>;
          if constexpr (std::is_same_v<T, GpuPriceEvent>) {
            if (auto* o = w.market.find(p.chip, p.contract)) o->price_multiplier = p.multiplier;
          } else if constexpr (std::is_same_v<T, GpuAvailabilityEvent>) {
            if (auto* o = w.market.find(p.chip, p.contract)) o->available_gpus = p.available_gpus;
          } else if constexpr (std::is_same_v<T, SpotRiskEvent>) {
            if (auto* o = w.market.find(p.chip, Contract::kSpot)) o->interruptions_per_hour = p.interruptions_per_hour;
          } else if constexpr (std::is_same_v<T, DemandEvent>) {
            for (auto& seg : w.segments) {
              if (seg.id == p.segment) seg.demand_multiplier = p.multiplier;
            }
          } else if constexpr (std::is_same_v<T, ReferencePriceEvent>) {
            w.reference_price_multiplier[p.model] = p.multiplier;
          }
        },
        e.payload);
    if (!e.news.empty()) news(e.news);
  }
}

void Game::advance(std::int64_t hours) {
  for (std::int64_t i = 0; i < hours && !state_.finished; ++i) step();
}

void Game::run_to_end() {
  while (!state_.finished) step();
}

void Game::step() {
  if (state_.finished) return;
  step_hour();
  update_tutorial();
}

void Game::update_tutorial() {
  auto& w = state_.world;
  const auto& steps = scenario_.tutorial_steps;
  const std::size_t before = w.tutorial_step;
  while (w.tutorial_step < steps.size() && step_done(steps[w.tutorial_step], state_)) {
    // A step already done when it comes up (the first proposal arrived while you set prices) is
    // passed with a word, never silently.
    if (w.tutorial_step > before) {
      news("Tutorial, step " + std::to_string(w.tutorial_step + 1) + " of " + std::to_string(steps.size()) +
           " is already done: " + steps[w.tutorial_step].text);
    }
    ++w.tutorial_step;
  }
  if (w.tutorial_step != before) announce_tutorial_step();
}

void Game::announce_tutorial_step() {
  const auto& steps = scenario_.tutorial_steps;
  const std::size_t i = state_.world.tutorial_step;
  if (steps.empty()) return;
  if (i >= steps.size()) {
    news("Tutorial complete: you did every step. Play on to the end and read the debrief.");
    return;
  }
  alarm(AlarmKind::kTutorialStep,
        "Tutorial, step " + std::to_string(i + 1) + " of " + std::to_string(steps.size()) + ": " + steps[i].text);
}

// One game hour, phase by phase. The phases run in this order and draw from the random streams in
// this order (spot interruptions from `market`, then each segment's demand noise), so the split
// leaves every result byte for byte as it was.
void Game::step_hour() {
  const std::int64_t h = state_.hour;
  end_reserved_terms(h);
  const auto allocation = assign_replicas(h);
  const SpotReclaims interrupted = draw_spot_interruptions(h);
  HourTotals totals;
  for (std::size_t si = 0; si < scenario_.segments.size(); ++si) serve_segment(si, h, allocation, interrupted, totals);
  pay_costs(h, interrupted, totals);
  record_hour(h, totals);
  if (close_hour()) return;
  apply_due_events();
  announce_ready_checks();
  advisor_tick();
}

void Game::end_reserved_terms(std::int64_t h) {
  std::erase_if(state_.company.contracts, [&](const GpuContract& c) {
    bool expired = c.contract == Contract::kReserved && h >= c.term_ends_at_hour;
    if (expired)
      news("Reserved contract " + std::to_string(c.id) + " (" + std::to_string(c.num_gpus) + " x " + c.chip +
           ") ended its term");
    return expired;
  });
}

std::vector<DeploymentAllocation> Game::assign_replicas(std::int64_t h) {
  auto& company = state_.company;
  auto allocation = allocate_gpus(company, h);
  for (std::size_t i = 0; i < company.deployments.size(); ++i) {
    auto& d = company.deployments[i];
    d.active_replicas = allocation[i].active_replicas;
    if (d.decode) d.decode->active_replicas = allocation[i].decode_active_replicas;
  }
  return allocation;
}

Game::SpotReclaims Game::draw_spot_interruptions(std::int64_t h) {
  auto& s = state_;
  SpotReclaims interrupted;
  for (const auto& c : s.company.contracts) {
    if (c.contract != Contract::kSpot || !c.ready(h)) continue;
    const auto* offer = s.world.market.find(c.chip, Contract::kSpot);
    double p = offer ? offer->interruptions_per_hour : 0.0;
    double u = uniform01(s.rng.market);
    double at = uniform01(s.rng.market);
    if (u < p) interrupted[c.id] = at;
  }
  return interrupted;
}

void Game::pay_costs(std::int64_t h, const SpotReclaims& interrupted, HourTotals& totals) {
  auto& s = state_;
  auto& company = s.company;
  // Rent at each contract's price now (contract_price_usd_per_gpu_hour); a reclaimed spot
  // contract pays for the part of the hour it ran.
  for (const auto& c : company.contracts) {
    if (!c.ready(h)) continue;
    const double price = contract_price_usd_per_gpu_hour(c, s.world.market);
    double hours = 1.0;
    if (auto it = interrupted.find(c.id); it != interrupted.end()) hours = it->second;
    double usd = econ::rent_usd(c.num_gpus, price, hours);
    s.ledger.add_gpu_cost(c.contract, usd);
    totals.gpu_cost_usd += usd;
    totals.gpus_rented += c.num_gpus;
  }
  for (const auto& [id, at] : interrupted) {
    auto it = std::find_if(company.contracts.begin(), company.contracts.end(), [&, id = id](const GpuContract& c) {
      return c.id == id;
    });  // clang < 16: no capture of a binding
    news("Spot contract " + std::to_string(id) + " (" + std::to_string(it->num_gpus) + " x " + it->chip +
         ") was reclaimed by the provider");
    company.contracts.erase(it);
    ++s.service.spot_interruptions;
  }
  totals.fixed_cost_usd = scenario_.company.fixed_cost_usd_per_day / 24.0;
  s.ledger.add_fixed_cost(totals.fixed_cost_usd);
  company.cash_usd += totals.revenue_usd - totals.gpu_cost_usd - totals.fixed_cost_usd;
}

void Game::record_hour(std::int64_t h, const HourTotals& t) {
  auto& s = state_;
  s.service.requests_offered += t.requests_offered;
  s.service.requests_completed += t.requests_completed;
  s.service.requests_failed += t.requests_failed;
  s.service.requests_within_slo += t.requests_within_slo;
  s.service.tokens += t.tokens;
  s.service.gpu_hours_rented += t.gpus_rented;
  s.service.gpu_hours_serving += t.gpus_serving;

  double reputation = 0;
  for (const auto& seg : s.world.segments) reputation += seg.reputation;
  reputation /= static_cast<double>(std::max<std::size_t>(1, s.world.segments.size()));
  std::array<double, kNumSeries> row{};
  auto set = [&](Series k, double v) { row[static_cast<std::size_t>(k)] = v; };
  set(Series::kCashUsd, s.company.cash_usd);
  set(Series::kRevenueUsd, t.revenue_usd);
  set(Series::kGpuCostUsd, t.gpu_cost_usd);
  set(Series::kFixedCostUsd, t.fixed_cost_usd);
  set(Series::kProfitUsd, t.revenue_usd - t.gpu_cost_usd - t.fixed_cost_usd);
  set(Series::kInputTokens, t.tokens.input_tokens);
  set(Series::kCachedInputTokens, t.tokens.cached_input_tokens);
  set(Series::kOutputTokens, t.tokens.output_tokens);
  set(Series::kRequestsOffered, t.requests_offered);
  set(Series::kRequestsCompleted, t.requests_completed);
  set(Series::kRequestsFailed, t.requests_failed);
  set(Series::kSloAttainment, slo_attainment(t.requests_within_slo, t.requests_offered));
  set(Series::kReputation, reputation);
  set(Series::kGpusRented, t.gpus_rented);
  set(Series::kGpusServing, t.gpus_serving);
  std::optional<double> prev_slo, prev_reputation;
  if (s.history.num_hours() > 0) {
    prev_slo = s.history[Series::kSloAttainment][s.history.num_hours() - 1];
    prev_reputation = s.history[Series::kReputation][s.history.num_hours() - 1];
  }
  s.history.push(row);
  raise_alarms(h, row, prev_slo ? &*prev_slo : nullptr, prev_reputation ? &*prev_reputation : nullptr);
}

bool Game::close_hour() {
  auto& s = state_;
  s.hour += 1;
  if (s.company.cash_usd < -scenario_.company.credit_line_usd) {
    s.company.bankrupt = true;
    s.company.bankrupt_at_hour = s.hour;
    s.finished = true;
    news("Bankrupt: cash fell below the credit line at hour " + std::to_string(s.hour), NewsTone::kLoss);
    return true;
  }
  if (s.hour >= s.end_hour) {
    s.finished = true;
    news("The scenario is over");
    return true;
  }
  return false;
}

void Game::announce_ready_checks() {
  for (const auto& a : state_.inbox) {
    for (const auto& c : a.checks) {
      if (c.ready_at_hour != state_.hour) continue;
      char buf[200];
      std::snprintf(buf, sizeof buf, "The %s of %s is ready: x%.3f (95%% interval x%.3f to x%.3f): ",
                    c.kind == AdviceCheckKind::kComponentTest ? "component test"
                    : c.kind == AdviceCheckKind::kBenchmark   ? "benchmark"
                                                              : "canary",
                    a.id.c_str(), c.measured_speedup, c.interval_low, c.interval_high);
      alarm(AlarmKind::kCheckReady, buf + describe_verdict(c.verdict) + ". Decide on it in the Advisor tab.");
    }
  }
}

void Game::advisor_tick() {
  if (!advisor_) return;
  auto& s = state_;
  std::string titles, minor;
  for (auto& a : advisor_->propose(s, s.advisor)) {
    a.posted_at_hour = s.hour;
    a.status = AdviceStatus::kPending;
    std::string& list = a.minor ? minor : titles;
    list += (list.empty() ? "" : "; ") + a.id + ": " + a.title + " (claims x" +
            std::to_string(a.claimed_speedup).substr(0, 5) + ")";
    s.inbox.push_back(std::move(a));
  }
  if (!titles.empty()) {
    alarm(AlarmKind::kNewProposal,
          "New advice from the advisor: " + titles + ". A claim is not a measurement: check it before you accept.");
  }
  // Minor claims go to the digest: worth less than a check even if true, they stop no clock.
  if (!minor.empty()) news("Advisor's digest (minor, not worth a check): " + minor + ".");
}

namespace {

// Applies log[next...] whose hour is before `limit_hour`, advancing the clock to each one's hour
// first; `next` moves past them. Refusals are appended to `refused` with their index in `log`.
void apply_log_before(Game& game, const std::vector<LoggedCommand>& log, std::size_t& next, std::int64_t limit_hour,
                      std::vector<RefusedCommand>& refused) {
  const std::int64_t from_hour = game.state().hour;  // a resumed game: the save's hour
  for (; next < log.size() && log[next].at_hour < limit_hour; ++next) {
    const auto& c = log[next];
    auto refuse = [&](const std::string& why) {
      refused.push_back({next, c.at_hour, std::string(command_name(c.command)) + ": " + why});
    };
    if (c.at_hour < from_hour) {
      refuse("hour " + std::to_string(c.at_hour) + " is before the game's hour " + std::to_string(from_hour) +
             " (already played: only later commands are replayed)");
      continue;
    }
    if (!game.finished() && c.at_hour > game.state().hour) game.advance(c.at_hour - game.state().hour);
    if (game.finished()) {
      refuse("the game ended at hour " + std::to_string(game.state().hour));
      continue;
    }
    auto r = game.apply(c.command);
    if (!r.ok) refuse(r.message);
  }
}

}  // namespace

std::vector<RefusedCommand> replay(Game& game, const std::vector<LoggedCommand>& log, std::size_t next) {
  std::vector<RefusedCommand> refused;
  apply_log_before(game, log, next, std::numeric_limits<std::int64_t>::max(), refused);
  game.run_to_end();
  return refused;
}

std::vector<RefusedCommand> replay_until(Game& game, const std::vector<LoggedCommand>& log, std::size_t& next,
                                         std::int64_t hour) {
  std::vector<RefusedCommand> refused;
  apply_log_before(game, log, next, hour, refused);
  if (!game.finished() && game.state().hour < hour) game.advance(hour - game.state().hour);
  return refused;
}

}  // namespace tycoon::game
