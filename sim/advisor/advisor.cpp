#include "sim/advisor/advisor.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "sim/advisor/persona.h"
#include "sim/analysis/confidence.h"
#include "sim/core/input_error.h"
#include "sim/game/game.h"
#include "sim/game/rng.h"
#include "sim/game/summary.h"
#include "sim/perf/profile_lookup.h"

namespace tycoon::advisor {

namespace {

std::string pct(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", share * 100);
  return buf;
}

std::string factor(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "x%.3f", x);
  return buf;
}

// Symmetric multiplicative noise: x · (1 + amplitude · u), u uniform in [−1, 1).
double noisy(double x, double amplitude, boost::random::mt19937_64& rng) {
  return x * (1.0 + amplitude * (2.0 * game::uniform01(rng) - 1.0));
}

std::string profile_key(const game::DeploymentState& d, double rate, const game::GameState& state) {
  std::ostringstream os;
  os.precision(6);
  // Loads within ±4% share a profile (as the game's windows do).
  os << d.id << '|' << d.model << '|' << d.chip << '|' << d.segment << '|' << game::to_json(d.recipe).dump() << "|x"
     << d.speedup << "|r" << game::bucket_rate_per_s(rate, 0.08) << "|s" << state.seed;
  return os.str();
}

}  // namespace

Chien::Chien(const data::Catalog& catalog, game::Scenario scenario, CodeChangeCatalog changes, AdvisorOptions options)
    : catalog_(&catalog),
      scenario_(std::move(scenario)),
      changes_(std::move(changes)),
      options_(options),
      calibrations_(catalog) {}

const perf::CalibrationProfile& Chien::calibration(const std::string& chip) { return calibrations_(chip); }

std::optional<DeploymentProfile> Chien::profile(const game::GameState& state, const game::DeploymentState& d) {
  // A disaggregated deployment's two pools are outside what the advisor profiles and searches
  // (one replica shape per deployment): it makes no proposals for one.
  if (d.decode) return std::nullopt;
  double rate = last_rate_per_replica(state, d);
  if (rate <= 0 || d.active_replicas <= 0) return std::nullopt;
  std::string key = profile_key(d, rate, state);
  if (auto it = profile_cache_.find(key); it != profile_cache_.end()) return it->second;
  DeploymentSetup setup(*catalog_, scenario_, d, d.recipe, calibration(d.chip), game::bucket_rate_per_s(rate, 0.08));
  auto run =
      serving::simulate(setup.open_loop(options_.profile_window_s, game::derive_seed(state.seed, key), unit_op_times()),
                        setup.calibration());
  auto p = make_profile(d, setup, run);
  p.offered_requests_per_s_per_replica = rate;
  return profile_cache_.emplace(std::move(key), p).first->second;
}

std::vector<DeploymentProfile> Chien::profile_all(const game::GameState& state) {
  std::vector<DeploymentProfile> out;
  for (const auto& d : state.company.deployments) {
    if (auto p = profile(state, d)) out.push_back(*p);
  }
  return out;
}

std::vector<game::Advice> Chien::propose(const game::GameState& state, game::AdvisorState& memory) {
  if (!memory.seeded) {
    // Per level and seed: the tutorial and level 1 on one seed draw different proposals.
    memory.propose_rng.seed(game::derive_seed(state.seed, "advisor|" + scenario_.id));
    memory.check_rng.seed(game::derive_seed(state.seed, "advisor-checks|" + scenario_.id));
    memory.seeded = true;
  }
  std::vector<game::Advice> out;
  const std::int64_t since = state.hour - options_.first_proposal_hour;
  if (since < 0) return out;
  const bool code_due = since % options_.code_change_interval_hours == 0;
  const bool recipe_due = options_.recipe_search && since % options_.recipe_search_interval_hours == 0;
  if (!code_due && !recipe_due) return out;
  for (const auto& d : state.company.deployments) {
    int pending = 0;
    for (const auto& a : state.inbox) {
      if (a.deployment_id == d.id && a.status == game::AdviceStatus::kPending) ++pending;
    }
    if (pending >= options_.max_pending_per_deployment) continue;
    auto p = profile(state, d);
    if (!p) continue;
    std::vector<game::Advice> made;
    if (code_due) {
      if (auto a = propose_code_change(state, memory, d, *p)) made.push_back(std::move(*a));
    }
    if (recipe_due) {
      if (auto a = propose_recipe(state, memory, d, p->offered_requests_per_s_per_replica))
        made.push_back(std::move(*a));
    }
    for (auto& a : made) {
      mark_minor(state, d, a);
      out.push_back(std::move(a));
    }
  }
  return out;
}

double claim_value_usd(const data::Catalog& catalog, const game::GameState& state, const game::DeploymentState& d,
                       double claimed_speedup) {
  const double rent = d.gpus_wanted() * gpu_price_usd_per_hour(catalog, state, d.chip);
  const double hours = static_cast<double>(std::max<std::int64_t>(0, state.end_hour - state.hour));
  return claimed_speedup > 1.0 ? rent * hours * (1.0 - 1.0 / claimed_speedup) : 0.0;
}

void Chien::mark_minor(const game::GameState& state, const game::DeploymentState& d, game::Advice& a) const {
  const double value = claim_value_usd(*catalog_, state, d, a.claimed_speedup);
  const double check = quote_check(options_, *catalog_, state, a, game::AdviceCheckKind::kBenchmark).cost_usd;
  char buf[240];
  if (a.claimed_speedup < 1.0 + game::kMinorClaim) {
    std::snprintf(buf, sizeof buf,
                  " Minor: a claim under x%.3f is smaller than a benchmark can tell from its own noise: not worth a "
                  "check.",
                  1.0 + game::kMinorClaim);
  } else if (value < check) {
    std::snprintf(buf, sizeof buf,
                  " Minor: even if true it saves about $%.0f of GPU time over the rest of the game, less than a "
                  "benchmark costs ($%.0f): not worth a check.",
                  value, check);
  } else {
    return;
  }
  a.minor = true;
  a.rationale += buf;
}

std::optional<game::Advice> Chien::propose_code_change(const game::GameState& state, game::AdvisorState& memory,
                                                       const game::DeploymentState& d, const DeploymentProfile& p) {
  // Candidates: changes not yet proposed here, on an op class that matters on this traffic.
  // Chosen at random, weighted by the gain claimed: the biggest claims come up most often.
  std::vector<const CodeChange*> candidates;
  std::vector<double> weights;
  double total = 0;
  for (const auto& c : changes_.changes) {
    double share = p.time_share[static_cast<std::size_t>(c.op_class)];
    if (share < options_.min_op_share || memory.proposed.contains({d.id, c.id})) continue;
    OpTimes claimed = unit_op_times();
    claimed[static_cast<std::size_t>(c.op_class)] = c.claimed_op_time_scale();
    double w = amdahl_speedup(p.time_share, claimed) - 1.0;
    if (w < 0.005) continue;
    candidates.push_back(&c);
    weights.push_back(w);
    total += w;
  }
  if (candidates.empty()) return std::nullopt;
  double u = game::uniform01(memory.propose_rng) * total;
  std::size_t pick = 0;
  while (pick + 1 < candidates.size() && u >= weights[pick]) u -= weights[pick++];
  const CodeChange& c = *candidates[pick];
  memory.proposed.insert({d.id, c.id});

  const auto op = static_cast<std::size_t>(c.op_class);
  ProposalRecord r;
  r.advice_id = std::string(kPersonaName) + "-" + std::to_string(memory.next_id++);
  r.deployment_id = d.id;
  r.kind = ProposalKind::kCodeChange;
  r.change_id = c.id;
  r.title = c.title;
  r.posted_at_hour = state.hour;
  r.workload = p.workload;
  r.trait = c.trait;
  r.op_class = c.op_class;
  r.op_share = p.time_share[op];
  r.component_speedup = c.component_speedup;
  OpTimes claimed = unit_op_times();
  claimed[op] = c.claimed_op_time_scale();
  r.claimed_speedup = amdahl_speedup(p.time_share, claimed);
  r.true_op_time_scale[op] = c.true_op_time_scale(p.workload);
  r.true_speedup = amdahl_speedup(p.time_share, r.true_op_time_scale);
  r.reputation_hit = c.reputation_hit;

  game::Advice a;
  a.id = r.advice_id;
  a.deployment_id = d.id;
  a.title = c.title;
  a.rationale = "Profile: " + std::string(perf::to_string(c.op_class)) + " is " + pct(r.op_share) +
                " of step time on your " + std::string(serving::kWorkloadNames[static_cast<std::size_t>(p.workload)]) +
                " traffic. My component test makes it " + factor(c.component_speedup) + " faster; by Amdahl that is " +
                factor(r.claimed_speedup) + " end to end. Check me before you trust it.";
  a.claimed_speedup = r.claimed_speedup;
  a.effect.speedup = r.true_speedup;
  a.effect.reputation_hit = r.reputation_hit;
  memory.records.push_back(std::move(r));
  return a;
}

std::optional<game::Advice> Chien::propose_recipe(const game::GameState& state, game::AdvisorState& memory,
                                                  const game::DeploymentState& d, double rate) {
  // Seeds from the deployment's recipe and load bucket: a search repeated at the same load (the
  // next day's) reuses every run from the memo.
  rate = game::bucket_rate_per_s(rate, scenario_.serving.load_bucket_step);
  char bucket[48];
  std::snprintf(bucket, sizeof bucket, "|%a", rate);
  const std::string search_key = "recipe-search|" + d.model + "|" + d.chip + "|" + d.segment + "|" +
                                 game::to_json(d.recipe).dump() + "|" + std::to_string(d.replicas) + bucket;
  auto result = search_recipes(*catalog_, scenario_, d, calibration(d.chip), rate,
                               game::derive_seed(state.seed, search_key), options_.search, &search_memo_);
  if (!result.best) return std::nullopt;
  const auto& best = *result.best;
  const std::string key = "recipe:" + game::to_json(best.move.change).dump();
  if (memory.proposed.contains({d.id, key})) return std::nullopt;
  memory.proposed.insert({d.id, key});
  ProposalRecord r;
  r.advice_id = std::string(kPersonaName) + "-" + std::to_string(memory.next_id++);
  r.deployment_id = d.id;
  r.kind = ProposalKind::kRecipe;
  r.change_id = best.move.label;
  r.title = "Recipe: " + best.move.label;
  r.posted_at_hour = state.hour;
  r.workload = scenario_.find_segment(d.segment)->workload.kind;
  r.claimed_speedup = best.gain;
  r.claimed_spread = best.gain_stddev;
  r.recipe = best.move.change;
  r.replicas = best.move.replicas;
  // The truth: the same comparison with more and longer seeds than the search could afford.
  r.true_speedup = paired_recipe_gain(*catalog_, scenario_, d, calibration(d.chip), rate, best.move,
                                      options_.truth_window_factor * options_.search.window_s,
                                      game::derive_seed(state.seed, r.advice_id), options_.truth_seeds, &search_memo_);
  game::Advice a;
  a.id = r.advice_id;
  a.deployment_id = d.id;
  a.title = r.title;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%d runs: %zu recipes screened on one seed, the best on %d, each paired with the current recipe on "
                "the same arrivals. Goodput %.0f vs %.0f tok/s/GPU now: x%.3f, +/-%.3f across seeds.",
                result.num_runs, result.evaluated.size(), result.repeats, best.goodput_per_gpu,
                result.baseline_goodput_per_gpu, best.gain, best.gain_stddev);
  a.rationale = buf;
  a.claimed_speedup = best.gain;
  a.effect.recipe = best.move.change;
  a.effect.replicas = best.move.replicas;
  memory.records.push_back(std::move(r));
  return a;
}

double gpu_price_usd_per_hour(const data::Catalog& catalog, const game::GameState& state, const std::string& chip) {
  if (const auto* o = state.world.market.find(chip, Contract::kOnDemand)) return o->price_usd_per_gpu_hour();
  for (const auto& o : state.world.market.offers) {
    if (o.chip == chip) return o.price_usd_per_gpu_hour();
  }
  return econ::catalog_price_usd_per_gpu_hour(catalog.accelerator(chip), Contract::kOnDemand).value_or(3.0);
}

double Chien::gpu_price_usd_per_hour(const game::GameState& state, const std::string& chip) const {
  return advisor::gpu_price_usd_per_hour(*catalog_, state, chip);
}

CheckQuote quote_check(const AdvisorOptions& o, const data::Catalog& catalog, const game::GameState& state,
                       const game::Advice& advice, game::AdviceCheckKind kind, int repetitions) {
  CheckQuote q;
  const game::DeploymentState* d = state.company.find_deployment(advice.deployment_id);
  const bool recipe = !advice.effect.recipe.fields_set().empty() || advice.effect.replicas.has_value();
  switch (kind) {
    case game::AdviceCheckKind::kComponentTest:
      q.cost_usd = o.component_test_usd;
      q.what =
          "the changed kernel alone on fixed shapes: cheap and instant, but a kernel can win there and lose on "
          "your traffic";
      if (recipe) {
        q.available = false;
        q.what = "a recipe change has no component to test";
      }
      break;
    case game::AdviceCheckKind::kBenchmark: {
      const int n =
          repetitions > 0 ? std::min(repetitions, game::kMaxCheckRepetitions) : game::kDefaultBenchmarkRepetitions;
      const auto* prior = pooled_benchmark(advice, state.hour, n);
      const int to_run = prior ? n - prior->repetitions : n;
      // Each paired run (two one-replica runs) takes benchmark_hours / the default count of GPU
      // hours per GPU of a replica, and the runs go one after another.
      const double hours = o.benchmark_hours * to_run / game::kDefaultBenchmarkRepetitions;
      const double gpus = d ? d->recipe.tensor_parallel : 1;
      q.cost_usd = d ? hours * gpus * gpu_price_usd_per_hour(catalog, state, d->chip) : 0;
      q.hours = static_cast<std::int64_t>(std::ceil(hours));
      q.repetitions = n;
      q.what = (prior ? std::to_string(to_run) + " more paired runs, pooled with the " +
                            std::to_string(prior->repetitions) + " already run, "
                      : std::to_string(n) + " paired runs ") +
               "end to end on your traffic shape, with an accuracy eval: GPU hours at on-demand rent. "
               "Repeated runs of one setup differ by up to about 3.5%, so the result comes with an interval; more "
               "runs narrow it";
      break;
    }
    case game::AdviceCheckKind::kCanary:
      q.cost_usd = o.canary_setup_usd;
      q.hours = static_cast<std::int64_t>(std::ceil(o.canary_hours));
      q.repetitions = static_cast<int>(q.hours);
      q.what = "on " + pct(o.canary_share) +
               " of real traffic: the truth, but that slice's customers live with it (lost "
               "revenue if slower, their share of any incident)";
      break;
  }
  if (!d) {
    q.available = false;
    q.what = "the deployment is gone";
  }
  return q;
}

const game::AdviceCheck* pooled_benchmark(const game::Advice& advice, std::int64_t hour, int repetitions) {
  for (auto it = advice.checks.rbegin(); it != advice.checks.rend(); ++it) {
    if (it->kind != game::AdviceCheckKind::kBenchmark || !it->ready(hour)) continue;
    if (it->repetitions >= 2 && it->repetitions < repetitions) return &*it;
    return nullptr;  // the latest ready benchmark has as many runs already: a fresh one
  }
  return nullptr;
}

double Chien::hourly_revenue_usd(const game::GameState& state, std::int64_t deployment_id) const {
  for (auto it = state.deployment_history.rbegin(); it != state.deployment_history.rend(); ++it) {
    if (it->deployment_id == deployment_id) return it->revenue_usd;
  }
  return 0;
}

namespace {

// A standard normal draw from the raw stream: the sum of 12 uniforms less 6 (Irwin-Hall), plain
// arithmetic, so natively and in the browser the same bits give the same number.
double standard_normal(boost::random::mt19937_64& rng) {
  double sum = 0;
  for (int i = 0; i < 12; ++i) sum += game::uniform01(rng);
  return sum - 6.0;
}

}  // namespace

void conclude_check(CheckResult& c, const std::vector<double>& ratios, const CheckResult* prior) {
  // The log ratios' count, mean and sum of squared deviations, run by run (Welford).
  int n = 0;
  double mean = 0, ss = 0;
  if (prior && prior->repetitions >= 2 && prior->measured_speedup > 0 && prior->interval_high > 0) {
    n = prior->repetitions;
    mean = std::log(prior->measured_speedup);
    const double sd =
        (std::log(prior->interval_high) - mean) * std::sqrt(static_cast<double>(n)) / analysis::student_t_975(n - 1);
    ss = static_cast<double>(n - 1) * sd * sd;
  }
  for (double r : ratios) {
    const double x = std::log(std::max(r, 1e-9));
    ++n;
    const double d = x - mean;
    mean += d / n;
    ss += d * (x - mean);
  }
  c.repetitions = n;
  c.measured_speedup = std::exp(mean);
  const double half =
      n > 1 ? analysis::student_t_975(n - 1) * std::sqrt(ss / static_cast<double>(n - 1) / static_cast<double>(n))
            : 0.0;
  c.interval_low = std::exp(mean - half);
  c.interval_high = std::exp(mean + half);
  c.verdict =
      game::check_verdict(c.measured_speedup, c.interval_low, c.interval_high, c.quality_flag, c.rejection_flag);
}

CheckResult Chien::check(const game::GameState& state, game::AdvisorState& memory, const game::Advice& advice,
                         CheckKind kind, int repetitions) {
  const std::string& advice_id = advice.id;
  ProposalRecord* found = memory.find(advice_id);
  if (!found) throw core::InputError("no proposal '" + advice_id + "'");
  ProposalRecord& r = *found;
  const game::DeploymentState* d = state.company.find_deployment(r.deployment_id);
  if (!d) throw core::InputError("the deployment of '" + advice_id + "' is gone");
  CheckResult c;
  c.kind = kind;
  c.requested_at_hour = state.hour;
  c.ready_at_hour = state.hour;
  const bool drifts = r.trait == Trait::kQualityDrift;
  const bool refuses = r.trait == Trait::kScorerGaming && r.reputation_hit > 0;
  const double rate = std::max(last_rate_per_replica(state, *d), 0.05);
  // One paired run of the player's deployment on its traffic shape: the same requests with and
  // without the change (common random numbers), each run on a machine of its own (the hardware's
  // run-to-run jitter). The benchmark (`closed_loop`) keeps a fixed number of users busy, each
  // with a request in the engine (DeploymentSetup::benchmark), and both runs serve the same
  // conversations (traffic::Session::rng): a run's ratio moves by well under 1% before the jitter
  // (it moved 5-8% a run on a Kimi K3 node while the sessions shared one stream and the users
  // paused); a canary hour is open loop at the live load (its spread is larger: a short window's
  // mix of requests).
  // The benchmark keeps as many users busy as the live traffic keeps sequences running (the
  // profile's mean batch): at another concurrency the batches, and so each op class's share of the
  // step, differ from the live traffic's, and the benchmark would measure another workload.
  const auto live = r.kind == ProposalKind::kCodeChange ? profile(state, *d) : std::nullopt;
  const int users = live && live->mean_running_seqs > 0
                        ? std::max(1, static_cast<int>(std::lround(live->mean_running_seqs)))
                        : options_.benchmark_concurrency;
  const std::int64_t requests =
      std::max(options_.benchmark_requests, options_.benchmark_requests_per_user * static_cast<std::int64_t>(users));
  auto paired_ratio = [&](bool closed_loop, std::uint64_t seed) {
    double ratio = 1.0;
    if (r.kind == ProposalKind::kCodeChange) {
      DeploymentSetup setup(*catalog_, scenario_, *d, d->recipe, calibration(d->chip), rate);
      auto config = [&](const OpTimes& times) {
        return closed_loop ? setup.benchmark(users, requests, seed, times)
                           : setup.open_loop(options_.profile_window_s, seed, times);
      };
      auto base = serving::simulate(config(unit_op_times()), setup.calibration());
      auto changed = serving::simulate(config(r.true_op_time_scale), setup.calibration());
      // The GPU time each output token took: the capacity the change frees (below saturation the
      // deployment serves what arrives either way, so tokens per second would show nothing; in
      // the closed loop the replica is always busy, so it equals tokens per second).
      auto gpu_s_per_token = [](const serving::ServingSummary& x) {
        double t = 0;
        for (double v : x.time_by_op_s) t += v;
        return x.output_tokens > 0 ? t / static_cast<double>(x.output_tokens) : 0.0;
      };
      const double b = gpu_s_per_token(base), ch = gpu_s_per_token(changed);
      ratio = b > 0 && ch > 0 ? b / ch : 1.0;
    } else {
      ratio = paired_recipe_gain(*catalog_, scenario_, *d, calibration(d->chip), rate,
                                 RecipeMove{r.recipe, r.replicas, r.change_id}, options_.search.window_s, seed);
    }
    const double jitter_base = 1.0 + options_.run_jitter * standard_normal(memory.check_rng);
    const double jitter_changed = 1.0 + options_.run_jitter * standard_normal(memory.check_rng);
    return ratio * jitter_changed / jitter_base;
  };
  switch (kind) {
    case CheckKind::kComponentTest: {
      c.cost_usd = options_.component_test_usd;
      if (r.kind == ProposalKind::kRecipe) {
        throw core::InputError("'" + advice_id + "' is a recipe change: it has no component to test");
      }
      // The test's fixed shapes: every trait shows its component speedup there, within the test's
      // own tolerance; end to end is Amdahl on the profile, for the kernel's whole range.
      double kernel = noisy(r.component_speedup, options_.component_noise, memory.check_rng);
      c.measured_component_speedup = kernel;
      auto p = profile(state, *d);
      auto amdahl = [&](double k) {
        if (!p) return r.claimed_speedup;
        OpTimes s = unit_op_times();
        s[static_cast<std::size_t>(*r.op_class)] = 1.0 / k;
        return amdahl_speedup(p->time_share, s);
      };
      c.quality_flag = drifts && game::uniform01(memory.check_rng) < options_.component_catches_drift;
      c.measured_speedup = amdahl(kernel);
      c.interval_low = amdahl(kernel * (1.0 - options_.component_noise));
      c.interval_high = amdahl(kernel * (1.0 + options_.component_noise));
      c.repetitions = 1;
      c.verdict =
          game::check_verdict(c.measured_speedup, c.interval_low, c.interval_high, c.quality_flag, c.rejection_flag);
      c.note =
          "the kernel on the component test's fixed shapes; end to end is Amdahl on your profile, which "
          "misses how the change behaves on your real shapes";
      break;
    }
    case CheckKind::kBenchmark: {
      const int n =
          repetitions > 0 ? std::min(repetitions, game::kMaxCheckRepetitions) : game::kDefaultBenchmarkRepetitions;
      const auto q = quote_check(options_, *catalog_, state, advice, kind, n);
      c.cost_usd = q.cost_usd;
      c.ready_at_hour = state.hour + q.hours;
      // More runs for a benchmark already run: only the runs it lacks, pooled with its own.
      const auto* prior = pooled_benchmark(advice, state.hour, n);
      std::vector<double> ratios;
      for (int i = prior ? prior->repetitions : 0; i < n; ++i) ratios.push_back(paired_ratio(true, memory.check_rng()));
      c.quality_flag = drifts && game::uniform01(memory.check_rng) < options_.benchmark_catches_drift;
      c.rejection_flag = refuses;
      conclude_check(c, ratios, prior);
      c.note = std::to_string(n) +
               (prior ? " paired runs (" + std::to_string(n - prior->repetitions) + " new, pooled with the " +
                            std::to_string(prior->repetitions) + " of the last benchmark)"
                      : std::string(" paired runs")) +
               " on your traffic shape (the same requests with and without the change), with an "
               "accuracy eval; each run on its own machine, so the interval holds the hardware's run-to-run noise";
      break;
    }
    case CheckKind::kCanary: {
      const int hours = static_cast<int>(std::ceil(options_.canary_hours));
      c.ready_at_hour = state.hour + hours;
      // One paired hour of the live traffic at a time: the slice against the rest.
      std::vector<double> ratios;
      for (int i = 0; i < hours; ++i) ratios.push_back(paired_ratio(false, memory.check_rng()));
      c.quality_flag = drifts;
      c.rejection_flag = refuses;
      conclude_check(c, ratios);
      // The slice's customers bear what the change really does for the canary's hours.
      double slice_usd = options_.canary_share * options_.canary_hours * hourly_revenue_usd(state, d->id);
      c.cost_usd = options_.canary_setup_usd + slice_usd * std::max(0.0, 1.0 - r.true_speedup);
      // The slice's customers saw the drift or the refusals: their share of the incident.
      c.reputation_hit = options_.canary_share * r.reputation_hit;
      c.note = "canary on " + pct(options_.canary_share) + " of real traffic, one paired hour at a time";
      break;
    }
  }
  memory.check_spend_usd += c.cost_usd;
  r.checks.push_back(c);
  return c;
}

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
  if (r.op_class) {
    j["op_class"] = perf::to_string(*r.op_class);
    j["op_share"] = r.op_share;
    j["claimed_component_speedup"] = r.component_speedup;
  }
  if (r.kind == ProposalKind::kRecipe) {
    j["recipe"] = game::to_json(r.recipe);
    if (r.replicas) j["replicas"] = *r.replicas;
    j["claimed_spread"] = r.claimed_spread;
  }
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& c : a.checks) checks.push_back(to_json(c, now_hour));
  j["checks"] = checks;
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
  if (r.op_class) {
    j["op_class"] = perf::to_string(*r.op_class);
    j["op_share"] = r.op_share;
    j["component_speedup"] = r.component_speedup;
  }
  if (r.kind == ProposalKind::kRecipe) {
    j["recipe"] = game::to_json(r.recipe);
    if (r.replicas) j["replicas"] = *r.replicas;
    j["claimed_spread"] = r.claimed_spread;
  }
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& c : r.checks) checks.push_back(to_json(c));
  j["checks"] = checks;
  if (reveal_truth) {
    j["truth"] = {{"speedup", r.true_speedup},
                  {"reputation_hit", r.reputation_hit},
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
          {"quality_incidents", d.num_incidents},
          {"regressions", d.num_regressions},
          {"checks_usd", d.checks_usd},
          {"estimated_value_usd", d.value_usd}};
}

nlohmann::json Chien::debrief_json(const game::GameState& state) const { return to_json(make_debrief(state)); }

std::optional<game::AdviceJudgement> Chien::judgement(const game::GameState& state) const {
  game::AdviceJudgement j;
  for (const auto& row : make_debrief(state).rows) {
    const bool too_late = row.decision == game::AdviceStatus::kPending &&
                          row.record.posted_at_hour + game::kJudgedAfterHours > state.end_hour;
    if (too_late) continue;
    if (row.minor) {
      // Not judged, unless it was accepted and did harm: a bad change taken on a minor claim.
      if (row.decision == game::AdviceStatus::kAccepted && !row.record.good()) {
        ++j.proposals;
        ++j.bad_accepted;
      }
      continue;
    }
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
