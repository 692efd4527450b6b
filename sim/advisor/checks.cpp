// The checks Chien sells on its proposals (component test, end-to-end benchmark, canary): what
// each costs before it is paid for, how it runs, and how its paired runs become an estimate with
// an interval and a verdict.
#include "sim/advisor/advisor.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/advisor/wording.h"
#include "sim/analysis/confidence.h"
#include "sim/core/input_error.h"
#include "sim/game/rng.h"

namespace tycoon::advisor {

namespace {

// Symmetric multiplicative noise: x · (1 + amplitude · u), u uniform in [−1, 1).
double noisy(double x, double amplitude, boost::random::mt19937_64& rng) {
  return x * (1.0 + amplitude * (2.0 * game::uniform01(rng) - 1.0));
}

// A standard normal draw from the raw stream: the sum of 12 uniforms less 6 (Irwin-Hall), plain
// arithmetic, so natively and in the browser the same bits give the same number.
double standard_normal(boost::random::mt19937_64& rng) {
  double sum = 0;
  for (int i = 0; i < 12; ++i) sum += game::uniform01(rng);
  return sum - 6.0;
}

// A canary's paired hours in all: `repetitions`, or the options' default (0), at most the game's
// cap and at least 2 (one hour has no spread to make an interval of).
int canary_hours(const AdvisorOptions& o, int repetitions) {
  const int n = repetitions > 0 ? repetitions : static_cast<int>(std::ceil(o.canary_hours));
  return std::clamp(n, 2, game::kMaxCheckRepetitions);
}

}  // namespace

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
  const bool recipe = !game::recipe_fields_set(advice.effect.recipe).empty() || advice.effect.replicas.has_value();
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
      const auto* prior = pooled_check(advice, kind, state.hour, n);
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
    case game::AdviceCheckKind::kCanary: {
      const int n = canary_hours(o, repetitions);
      const auto* prior = pooled_check(advice, kind, state.hour, n);
      const int to_run = prior ? n - prior->repetitions : n;
      q.cost_usd = o.canary_setup_usd;
      q.hours = to_run;
      q.repetitions = n;
      q.what = (prior ? std::to_string(to_run) + " more hours, pooled with the " + std::to_string(prior->repetitions) +
                            " already run, "
                      : std::to_string(n) + " hours ") +
               "on " + pct(o.canary_share) +
               " of real traffic: the truth, but that slice's customers live with it (lost "
               "revenue if slower, their share of any incident). Each hour's traffic differs, so the result comes "
               "with an interval; more hours narrow it";
      break;
    }
  }
  if (!d) {
    q.available = false;
    q.what = "the deployment is gone";
  }
  return q;
}

const game::AdviceCheck* pooled_check(const game::Advice& advice, game::AdviceCheckKind kind, std::int64_t hour,
                                      int repetitions) {
  if (kind == game::AdviceCheckKind::kComponentTest) return nullptr;
  for (auto it = advice.checks.rbegin(); it != advice.checks.rend(); ++it) {
    if (it->kind != kind || !it->ready(hour)) continue;
    if (it->repetitions >= 2 && it->repetitions < repetitions) return &*it;
    return nullptr;  // the latest ready check of this kind has as many already: a fresh one
  }
  return nullptr;
}

double Chien::hourly_revenue_usd(const game::GameState& state, std::int64_t deployment_id) const {
  for (auto it = state.deployment_history.rbegin(); it != state.deployment_history.rend(); ++it) {
    if (it->deployment_id == deployment_id) return it->revenue_usd;
  }
  return 0;
}

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
  const double rate = std::max(last_rate_per_replica(state, *d), kMinOpenLoopRate);
  // One paired run of the player's deployment on its traffic shape: the same requests with and
  // without the change (common random numbers), each run on a machine of its own (the hardware's
  // run-to-run jitter). The benchmark keeps a fixed number of users busy, each with a request in
  // the engine (DeploymentSetup::benchmark), and both runs serve the same conversations
  // (traffic::Session::rng): a run's ratio moves by well under 1% before the jitter (it moved 5-8%
  // a run on a Kimi K3 node while the sessions shared one stream and the users paused).
  // Both keep as many sequences running as the live traffic does (the profile's mean batch): at
  // another concurrency the batches, and so each op class's share of the step, differ from the
  // live traffic's, and the check would measure another workload.
  //   benchmark  a synthetic run of `requests` requests (at least 5 a user);
  //   canary     one hour of the slice's live traffic: as many requests as one replica completes
  //              in the game's window at the live load (every turn counts; a short window's mix,
  //              so a larger spread), on a canary replica kept as busy as the live ones (the
  //              operator matches its requests in flight to theirs, as a load-aware router does):
  //              what it serves per GPU-second there is the capacity the change frees. Fed a
  //              fixed share of open-loop arrivals instead, a replica that is never idle serves
  //              what arrives in the same GPU time with or without the change, and the gain hides
  //              in smaller batches (a x1.09 change measured x1.01-x1.03 an hour on a B200 node).
  //              The slice's customers are `canary_share` of the deployment's.
  const auto live = r.kind == ProposalKind::kCodeChange ? profile(state, *d) : std::nullopt;
  const int users = live && live->mean_running_seqs > 0
                        ? std::max(1, static_cast<int>(std::lround(live->mean_running_seqs)))
                        : options_.benchmark_concurrency;
  const std::int64_t requests =
      std::max(options_.benchmark_requests, options_.benchmark_requests_per_user * static_cast<std::int64_t>(users));
  auto paired_ratio = [&](bool canary, std::uint64_t seed) {
    double ratio = 1.0;
    if (r.kind == ProposalKind::kCodeChange) {
      DeploymentSetup setup(*catalog_, scenario_, *d, d->recipe, calibration(d->chip), rate);
      const std::int64_t n = canary ? std::max<std::int64_t>(users, live ? live->window_requests : 0) : requests;
      auto base = serving::simulate(setup.benchmark(users, n, seed, unit_op_times()), setup.calibration());
      auto changed = serving::simulate(setup.benchmark(users, n, seed, r.true_op_time_scale), setup.calibration());
      // The GPU time each output token took: the capacity the change frees (the replica is always
      // busy at its concurrency, so it is the inverse of tokens per second).
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
      const auto* prior = pooled_check(advice, kind, state.hour, n);
      std::vector<double> ratios;
      for (int i = prior ? prior->repetitions : 0; i < n; ++i)
        ratios.push_back(paired_ratio(false, memory.check_rng()));
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
      // The hours the quote promised: after a canary already run, a rollout again and the hours it
      // lacks, pooled with its own.
      const auto q = quote_check(options_, *catalog_, state, advice, kind, repetitions);
      const int n = q.repetitions;
      const int hours = static_cast<int>(q.hours);
      const auto* prior = pooled_check(advice, kind, state.hour, n);
      c.ready_at_hour = state.hour + hours;
      // One paired hour at a time: the canary replica against a live one at the same concurrency.
      std::vector<double> ratios;
      for (int i = 0; i < hours; ++i) ratios.push_back(paired_ratio(true, memory.check_rng()));
      c.quality_flag = drifts;
      c.rejection_flag = refuses;
      conclude_check(c, ratios, prior);
      // The slice's customers bear what the change really does for the canary's hours.
      double slice_usd = options_.canary_share * hours * hourly_revenue_usd(state, d->id);
      c.cost_usd = q.cost_usd + slice_usd * std::max(0.0, 1.0 - r.true_speedup);
      // The slice's customers saw the drift or the refusals: their share of the incident.
      c.reputation_hit = options_.canary_share * r.reputation_hit;
      c.note = "canary on " + pct(options_.canary_share) + " of real traffic, one paired hour at a time" +
               (prior ? ": " + std::to_string(n) + " hours (" + std::to_string(hours) + " new, pooled with the " +
                            std::to_string(prior->repetitions) + " of the last canary)"
                      : ", " + std::to_string(n) + " hours");
      break;
    }
  }
  memory.check_spend_usd += c.cost_usd;
  r.checks.push_back(c);
  return c;
}

}  // namespace tycoon::advisor
