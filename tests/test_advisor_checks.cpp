// The advisor's profile, proposals and checks on one deployment: where the time goes, what each
// check shows for each kind of proposal, and what accepting does to the game.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>

#include "sim/advisor/advisor.h"
#include "sim/advisor/bots.h"
#include "sim/advisor/code_change_catalog.h"
#include "sim/advisor/deployment_setup.h"
#include "sim/game/advice_json.h"
#include "sim/game/state_json.h"
#include "sim/perf/profile_lookup.h"
#include "sim/serving/simulation.h"
#include "tests/advisor_test_util.h"

using namespace tycoon;
using advisor::CheckKind;

namespace {

// A game at the advisor's first round, with a catalog of just `change_id` (so that it is the
// proposal), and the advisor.
struct Round {
  std::unique_ptr<game::Game> game;
  std::shared_ptr<advisor::Chien> advisor;
  std::string advice_id;
};

// An empty `change_id`: the whole catalog.
// `retarget`: move the change to another op class (to test a trait on the class that matters).
Round first_round(const std::string& change_id, std::uint64_t seed = 7,
                  std::optional<perf::OpClass> retarget = std::nullopt) {
  auto all = advisor::load_code_change_catalog_from_root(TYCOON_SOURCE_DIR);
  advisor::CodeChangeCatalog one;
  if (change_id.empty()) {
    one = all;
  } else {
    one.changes.push_back(*all.find(change_id));
    if (retarget) one.changes.back().op_class = *retarget;
  }
  game::GameOptions o;
  o.seed = seed;
  Round r;
  r.game = std::make_unique<game::Game>(test::advisor_market(1), test::catalog(), o);
  auto opts = test::fast_advisor_options();
  r.advisor = std::make_shared<advisor::Chien>(test::catalog(), r.game->scenario(), one, opts);
  r.game->set_advisor(r.advisor);
  r.game->advance(opts.first_proposal_hour);
  REQUIRE(r.game->state().inbox.size() == 1);
  r.advice_id = r.game->state().inbox[0].id;
  return r;
}

// Pays for a check the way a player does: a CheckAdvice command (charged to cash, logged).
game::AdviceCheck check(Round& r, CheckKind kind) {
  auto res = r.game->apply(game::CheckAdvice{r.advice_id, kind});
  REQUIRE_MESSAGE(res.ok, res.message);
  for (const auto& a : r.game->state().inbox) {
    if (a.id == r.advice_id) return a.checks.back();
  }
  FAIL("advice not in the inbox");
  return {};
}

double share(const advisor::DeploymentProfile& p, perf::OpClass c) { return p.time_share[static_cast<std::size_t>(c)]; }

}  // namespace

TEST_CASE("profile: routed experts dominate GPT-OSS-120B decode on H200, and shares sum to 1") {
  auto r = first_round("moe-sort-small-decode");
  auto profiles = r.advisor->profile_all(r.game->state());
  REQUIRE(profiles.size() == 1);
  double sum = 0;
  for (double s : profiles[0].time_share) sum += s;
  CHECK(sum == doctest::Approx(1.0).epsilon(1e-9));
  // Seed 000 section 7: "the mixture-of-experts step taking about 80% of GPU kernel time".
  CHECK(share(profiles[0], perf::OpClass::kMoeExperts) > 0.5);
}

TEST_CASE("a real win: claimed = true (Amdahl on the profile), the benchmark agrees within its noise") {
  auto r = first_round("moe-sort-small-decode");
  const auto rec = *r.game->state().advisor.find(r.advice_id);  // a copy: later hours may grow the records
  // 1 / (1 - s + s / 1.25) with s the MoE share
  double s = rec.op_share;
  CHECK(rec.claimed_speedup == doctest::Approx(1 / (1 - s + s / 1.25)).epsilon(1e-9));
  CHECK(rec.true_speedup == doctest::Approx(rec.claimed_speedup).epsilon(1e-9));
  auto bench = check(r, CheckKind::kBenchmark);
  // The benchmark runs the simulator at a fixed concurrency (another batch mix than the profile's
  // load) with ±3.5% noise: within 10% of the truth.
  CHECK(bench.measured_speedup == doctest::Approx(rec.true_speedup).epsilon(0.10));
  CHECK(bench.ready_at_hour == r.game->state().hour + 2);
  CHECK(bench.cost_usd > 0);
}

TEST_CASE("fast_mode: the component test says faster, the benchmark and the canary say slower") {
  auto r = first_round("moe-fast-mode");
  const auto& st = r.game->state();
  auto component = check(r, CheckKind::kComponentTest);
  auto bench = check(r, CheckKind::kBenchmark);
  auto canary = check(r, CheckKind::kCanary);
  CHECK(*component.measured_component_speedup > 1.9);  // 2x ± 2% on the test's shapes
  CHECK(component.measured_speedup > 1.3);
  CHECK(bench.measured_speedup < 0.95);
  CHECK(canary.measured_speedup < 0.95);
  CHECK(canary.ready_at_hour == st.hour + 6);
  CHECK(r.game->state().advisor.find(r.advice_id)->true_speedup < 0.9);
}

TEST_CASE("the panel's quotes are what the checks charge (a canary's quote is its setup fee only)") {
  auto r = first_round("moe-fast-mode");
  auto opts = test::fast_advisor_options();
  const auto advice = r.game->state().inbox[0];
  auto quote = [&](CheckKind k) { return advisor::quote_check(opts, test::catalog(), r.game->state(), advice, k); };
  auto q_component = quote(CheckKind::kComponentTest);
  auto q_bench = quote(CheckKind::kBenchmark);
  auto q_canary = quote(CheckKind::kCanary);
  // One H200 on demand at the market's price for benchmark_hours (2): a few dollars.
  const auto& d = r.game->state().company.deployments.front();
  CHECK(q_bench.cost_usd == doctest::Approx(opts.benchmark_hours * d.recipe.tensor_parallel *
                                            advisor::gpu_price_usd_per_hour(test::catalog(), r.game->state(), d.chip)));
  CHECK(q_bench.hours == 2);
  CHECK(q_canary.hours == 6);
  auto component = check(r, CheckKind::kComponentTest);
  auto bench = check(r, CheckKind::kBenchmark);
  auto canary = check(r, CheckKind::kCanary);
  CHECK(component.cost_usd == doctest::Approx(q_component.cost_usd));
  CHECK(bench.cost_usd == doctest::Approx(q_bench.cost_usd));
  // fast_mode is really slower: the canary's slice loses revenue on top of the setup fee.
  CHECK(canary.cost_usd > q_canary.cost_usd);
}

TEST_CASE("scorer gaming: the benchmark on the player's traffic shows no gain, or the refusals") {
  SUBCASE("caching the benchmark") {
    auto r = first_round("borrowed-gpus-benchmark");
    auto bench = check(r, CheckKind::kBenchmark);
    CHECK(r.game->state().advisor.find(r.advice_id)->claimed_speedup > 1.3);
    CHECK(bench.measured_speedup == doctest::Approx(1.0).epsilon(0.04));  // ±3.5% noise around no change
  }
  SUBCASE("rejecting requests") {
    // Its engine-overhead target is a sliver of this profile; put it on the experts.
    auto r = first_round("reject-long-requests", 7, perf::OpClass::kMoeExperts);
    auto bench = check(r, CheckKind::kBenchmark);
    CHECK(bench.rejection_flag);
  }
}

TEST_CASE("accepting a quality-drift change: the code is faster, and reputation falls at once") {
  auto r = first_round("truncated-vocab-sampling");
  auto& g = *r.game;
  const auto rec = *r.game->state().advisor.find(r.advice_id);  // a copy: later hours may grow the records
  auto canary = check(r, CheckKind::kCanary);
  CHECK(canary.quality_flag);
  const double before = g.state().world.segments[0].reputation;
  REQUIRE(g.apply(game::AcceptAdvice{r.advice_id}).ok);
  CHECK(g.state().company.deployments[0].speedup == doctest::Approx(rec.true_speedup).epsilon(1e-12));
  CHECK(g.state().world.segments[0].reputation == doctest::Approx(before * (1 - rec.reputation_hit)).epsilon(1e-12));
  // The hidden effect is saved with the inbox.
  auto saved = game::to_json(g.state());
  CHECK(saved["inbox"][0]["effect"]["reputation_hit"].get<double>() == rec.reputation_hit);
}

TEST_CASE("a drifting change stays an incident while it is live; undoing it lets reputation recover") {
  // Two games at the same hour, the same drifting change accepted in both; one undoes it at once.
  // Reputation tracks SLO attainment times the share of answers that are right (half-life 24 h),
  // so a day later the game that kept it has lost about half of hit x attainment more.
  auto kept = first_round("truncated-vocab-sampling");
  auto undone = first_round("truncated-vocab-sampling");
  const double hit = kept.game->state().advisor.find(kept.advice_id)->reputation_hit;
  REQUIRE(hit > 0.1);
  for (auto* r : {&kept, &undone}) REQUIRE(r->game->apply(game::AcceptAdvice{r->advice_id}).ok);
  const std::int64_t dep = kept.game->state().company.deployments[0].id;
  CHECK(game::live_quality_drift(kept.game->state(), dep) == doctest::Approx(hit).epsilon(1e-12));
  REQUIRE(undone.game->apply(game::RevertAdvice{undone.advice_id}).ok);
  CHECK(game::live_quality_drift(undone.game->state(), dep) == 0.0);
  kept.game->advance(24);
  undone.game->advance(24);
  const double slo = kept.game->state().world.segments[0].last_slo_attainment;
  const double gap =
      undone.game->state().world.segments[0].reputation - kept.game->state().world.segments[0].reputation;
  // Half of hit x attainment after one half-life; allowed 0.3 to 0.65 of it (the two games'
  // hours differ a little: demand follows reputation, and so does the load). The market runs
  // near what the fleet serves, so the game that undid the change, with more reputation, gets
  // more demand and a lower attainment, which narrows the gap: at seed 7, once the drafter was priced (the
  // EAGLE drafter's pass over every verified position, 0.1-1.3% more per step) its last hour
  // met the SLO for 94.4% of requests against 99.9% in the game that kept the change, and the
  // gap was 0.346 of hit x attainment (0.35 was the bound before).
  CHECK(gap > 0.3 * hit * slo);
  CHECK(gap < 0.65 * hit * slo);
}

TEST_CASE("same seed, same proposals; the checks' stream does not change what is proposed") {
  auto a = first_round("", 11);
  auto b = first_round("", 11);
  check(a, CheckKind::kBenchmark);
  a.game->advance(6);
  b.game->advance(6);
  REQUIRE(a.game->state().inbox.size() == 3);  // hours 2, 5 and 8
  REQUIRE(a.game->state().inbox.size() == b.game->state().inbox.size());
  for (std::size_t i = 0; i < a.game->state().inbox.size(); ++i) {
    CHECK(a.game->state().inbox[i].id == b.game->state().inbox[i].id);
    CHECK(a.game->state().inbox[i].title == b.game->state().inbox[i].title);
    CHECK(a.game->state().inbox[i].claimed_speedup == b.game->state().inbox[i].claimed_speedup);
  }
}

TEST_CASE("a change tuned for chat keeps part of its gain on random traffic") {
  auto r = first_round("fused-moe-scatter");
  const auto rec = *r.game->state().advisor.find(r.advice_id);  // a copy: later hours may grow the records
  // 1 + 0.18 x 0.4 = 1.072 on the MoE share instead of 1.18
  double s = rec.op_share;
  CHECK(rec.true_speedup == doctest::Approx(1 / (1 - s + s / 1.072)).epsilon(1e-9));
  CHECK(rec.true_speedup < rec.claimed_speedup);
  CHECK(rec.true_speedup > 1.0);
}

TEST_CASE("a benchmark check's paired ratio is as steady when the engine schedules one step ahead") {
  // The check compares the GPU time per output token of the same requests with and without the
  // change. Scheduling one step ahead (vLLM's --async-scheduling) starts a request arriving
  // mid-step a step later in both runs of a pair, so the ratio must not spread more than the
  // synchronous one: measured in session 35, six seeds give x1.1930-1.1933 (8 users) and
  // x1.1960-1.1970 (32) synchronously, x1.1929-1.1935 and x1.1962-1.1972 asynchronously.
  auto all = advisor::load_code_change_catalog_from_root(TYCOON_SOURCE_DIR);
  const auto* change = all.find("moe-sort-small-decode");
  REQUIRE(change != nullptr);
  game::GameOptions o;
  o.seed = 7;
  game::Game g(test::advisor_market(1), test::catalog(), o);
  g.advance(30);
  const auto& d = g.state().company.deployments[0];
  const auto& cal = perf::calibration_for(test::catalog(), test::catalog().accelerator(d.chip));
  advisor::DeploymentSetup setup(test::catalog(), g.scenario(), d, d.recipe, cal, 2.0);
  auto scale = advisor::unit_op_times();
  scale[static_cast<std::size_t>(change->op_class)] = change->true_op_time_scale(traffic::WorkloadKind::kChat);
  auto gpu_s_per_token = [](const serving::ServingSummary& x) {
    double t = 0;
    for (double v : x.time_by_op_s) t += v;
    return t / static_cast<double>(x.output_tokens);
  };
  constexpr double kSteadySpread = 0.002;  // max - min of six seeds' ratios: 0.1% measured, 0.2% allowed
  for (int users : {8, 32}) {
    for (bool async : {false, true}) {
      double lo = 1e9, hi = 0;
      for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        auto base = setup.benchmark(users, std::max(60, 5 * users), seed, advisor::unit_op_times());
        auto changed = setup.benchmark(users, std::max(60, 5 * users), seed, scale);
        base.scheduler.async_scheduling = async;
        changed.scheduler.async_scheduling = async;
        const double r = gpu_s_per_token(serving::simulate(base, setup.calibration())) /
                         gpu_s_per_token(serving::simulate(changed, setup.calibration()));
        lo = std::min(lo, r);
        hi = std::max(hi, r);
      }
      CAPTURE(users);
      CAPTURE(async);
      CHECK(hi - lo <= kSteadySpread);
      CHECK(lo > 1.19);  // the change's gain shows in every pair
    }
  }
}

TEST_CASE("recipe search: every neighbour on the deployment's traffic, paired seeds, spread reported") {
  auto r = first_round("moe-sort-small-decode");
  const auto& st = r.game->state();
  const auto& d = st.company.deployments[0];
  auto neighbours = advisor::recipe_neighbours(test::catalog(), d);
  // draft tokens, batch budgets, running sequences, prefix caching, precision, engines, and TP vs
  // replicas on the same eight GPUs
  CHECK(neighbours.size() >= 10);
  bool tp = false;
  for (const auto& m : neighbours) {
    if (!m.change.tensor_parallel) continue;
    tp = true;
    REQUIRE(m.replicas);
    CHECK(*m.replicas * *m.change.tensor_parallel == d.gpus_wanted());
  }
  CHECK(tp);
  advisor::RecipeSearchOptions o;
  o.window_s = 20;
  o.repeats = 2;
  advisor::GoodputMemo memo;
  const auto& cal = perf::calibration_for(test::catalog(), test::catalog().accelerator(d.chip));
  auto result = advisor::search_recipes(test::catalog(), r.game->scenario(), d, cal,
                                        advisor::last_rate_per_replica(st, d), 3, o, &memo);
  // The screen: the baseline and every candidate on the first seed; then the finalists (at most
  // o.finalists, those whose screened gain is above 1) and the baseline on the other seeds; then the
  // leader's confirmation (a pair per seed).
  int finalists = 0;
  for (const auto& c : result.evaluated) {
    CHECK((c.seeds == 1 || c.seeds == o.repeats));
    finalists += c.seeds == o.repeats;
    if (c.seeds == o.repeats) CHECK(c.gain_low <= c.gain);
  }
  CHECK(finalists <= o.finalists);
  // Raising max_num_seqs is skipped exactly when the baseline never filled its current limit.
  for (const auto& label : result.skipped) CHECK(label.rfind("max_num_seqs ", 0) == 0);
  CHECK(result.num_runs == 1 + static_cast<int>(result.evaluated.size()) +
                               (finalists > 0 ? (o.repeats - 1) * (finalists + 1) : 0) +
                               (result.leader ? 2 * o.repeats : 0));
  // The outcome on this market is pinned, not skipped when absent (a skip passes silently): seed 3 with
  // two 20 s repeats (InferenceX's client: lengths in [0.8, 1], warm-up first; runtime-visible
  // memory) screens three finalists at x1.26-x1.28 on one seed -- "spec_draft_tokens 1",
  // "max_num_seqs 512", "precision fp8" -- and over the two screening seeds (the bound is gain -
  // 6.31 sd / sqrt(2)) only "precision fp8" keeps a lower bound above 1, by a hair (x1.0003, since
  // fp8 expert GEMMs run on their own measured curve): it leads, and its re-measure on fresh
  // seeds does not hold, so there is no proposal. A change to the search or the simulator that
  // flips any of this shows up here.
  std::vector<std::string> finalist_labels;
  for (const auto& c : result.evaluated) {
    if (c.seeds == o.repeats) finalist_labels.push_back(c.move.label);
  }
  CHECK(finalist_labels == std::vector<std::string>{"spec_draft_tokens 1", "max_num_seqs 512", "precision fp8"});
  for (const auto& c : result.evaluated) {
    if (c.seeds == o.repeats) CHECK((c.gain_low < 1.0) == (c.move.label != "precision fp8"));
  }
  REQUIRE(result.leader);
  CHECK(result.leader->move.label == "precision fp8");
  CHECK_FALSE(result.best);
  CHECK(result.baseline_goodput_per_gpu > 0);
  // The same search again (the next day at the same load) reuses every run and decides the same.
  auto again = advisor::search_recipes(test::catalog(), r.game->scenario(), d, cal,
                                       advisor::last_rate_per_replica(st, d), 3, o, &memo);
  CHECK(again.num_reused == again.num_runs);
  CHECK(again.baseline_goodput_per_gpu == result.baseline_goodput_per_gpu);
  CHECK(again.best.has_value() == result.best.has_value());
  CHECK(again.leader.has_value() == result.leader.has_value());
}

TEST_CASE("recipe search: the same arrivals for every candidate, so a no-op change measures exactly x1") {
  auto r = first_round("moe-sort-small-decode");
  const auto& st = r.game->state();
  const auto& d = st.company.deployments[0];
  const auto& cal = perf::calibration_for(test::catalog(), test::catalog().accelerator(d.chip));
  const double rate = advisor::last_rate_per_replica(st, d);
  // Setting a field to the value it has is a candidate that changes nothing: paired on the same
  // seed, its goodput is the baseline's to the last bit. (Unpaired, one 40 s seed each, this ratio
  // was off by up to tens of percent, and the search reported that noise as gains.)
  advisor::RecipeMove same;
  same.change.max_num_batched_tokens = d.recipe.max_num_batched_tokens;
  CHECK(advisor::paired_recipe_gain(test::catalog(), r.game->scenario(), d, cal, rate, same, 20, 5) == 1.0);
  // What the old search did: the same recipe on two different seeds. The ratios wander by more
  // than the search's 3% bar, so one unpaired run per candidate proposes noise.
  advisor::DeploymentSetup s(test::catalog(), r.game->scenario(), d, d.recipe, cal, rate);
  const auto& slo = r.game->scenario().segments[0].slo;
  auto goodput = [&](std::uint64_t seed) {
    const auto config = s.open_loop(20, seed, advisor::unit_op_times());
    return advisor::goodput_per_gpu(config, serving::simulate(config, s.calibration()), slo);
  };
  double worst = 0;
  for (std::uint64_t seed = 1; seed <= 4; ++seed)
    worst = std::max(worst, std::abs(goodput(seed) / goodput(seed + 100) - 1));
  std::printf("unpaired no-op change, 20 s windows: worst |ratio - 1| over 4 seed pairs = %.3f\n", worst);
  CHECK(worst > advisor::RecipeSearchOptions{}.min_gain);
}

TEST_CASE("a bot's game, checks and decisions included, replays exactly from its command log") {
  game::GameOptions o;
  o.seed = 21;
  auto changes = advisor::load_code_change_catalog_from_root(TYCOON_SOURCE_DIR);
  game::Game g(test::advisor_market(1), test::catalog(), o);
  auto played = advisor::play_bot(
      g, std::make_shared<advisor::Chien>(test::catalog(), g.scenario(), changes, test::fast_advisor_options()),
      advisor::BotPolicy::kVerifyThenDecide);
  int checks = 0;
  for (const auto& c : g.state().log) checks += game::command_name(c.command) == "check_advice";
  REQUIRE(checks >= 3);
  game::Game h(test::advisor_market(1), test::catalog(), o);
  h.set_advisor(std::make_shared<advisor::Chien>(test::catalog(), h.scenario(), changes, test::fast_advisor_options()));
  game::replay(h, g.state().log);
  CHECK(game::to_json(h.state()) == game::to_json(g.state()));
  CHECK(h.state().company.cash_usd == played.final_state.company.cash_usd);
}

TEST_CASE("checks are commands: paid from cash, on the ledger, in the log, and a replay runs them again") {
  auto r = first_round("moe-fast-mode");
  auto& g = *r.game;
  const double cash = g.state().company.cash_usd;
  const double gpu_cost = g.state().ledger.totals().gpu_cost_usd;
  auto bench = check(r, CheckKind::kBenchmark);
  CHECK(g.state().company.cash_usd == doctest::Approx(cash - bench.cost_usd).epsilon(1e-12));
  CHECK(g.state().ledger.totals().gpu_cost_usd == doctest::Approx(gpu_cost + bench.cost_usd).epsilon(1e-12));
  REQUIRE(!g.state().log.empty());
  CHECK(game::command_name(g.state().log.back().command) == "check_advice");
  // An unknown proposal: refused (and logged, so replays match), nothing charged.
  const double after = g.state().company.cash_usd;
  CHECK_FALSE(g.apply(game::CheckAdvice{"Chien-999", CheckKind::kComponentTest}).ok);
  CHECK(g.state().company.cash_usd == after);
  g.advance(3);
  REQUIRE(g.apply(game::RejectAdvice{r.advice_id}).ok);
  g.advance(2);

  // Replay the log on a fresh game with a fresh advisor: the same checks, measured the same.
  game::GameOptions o;
  o.seed = 7;
  game::Game h(test::advisor_market(1), test::catalog(), o);
  auto all = advisor::load_code_change_catalog_from_root(TYCOON_SOURCE_DIR);
  advisor::CodeChangeCatalog one;
  one.changes.push_back(*all.find("moe-fast-mode"));
  h.set_advisor(std::make_shared<advisor::Chien>(test::catalog(), h.scenario(), one, test::fast_advisor_options()));
  h.advance(2);
  for (const auto& c : g.state().log) {
    if (c.at_hour > h.state().hour) h.advance(c.at_hour - h.state().hour);
    h.apply(c.command);
  }
  h.advance(g.state().hour - h.state().hour);
  CHECK(game::to_json(h.state()) == game::to_json(g.state()));
  CHECK(h.state().inbox[0].checks == g.state().inbox[0].checks);
}

TEST_CASE("the game refuses a second check of a kind still running, and one beyond the cash and credit line") {
  // A benchmark takes hours: while it runs, a second benchmark of the same proposal measures the
  // same thing again, so the game refuses it (a canary, another kind, may run beside it).
  auto r = first_round("moe-fast-mode");
  auto& g = *r.game;
  const auto bench = check(r, CheckKind::kBenchmark);
  REQUIRE(bench.ready_at_hour > g.state().hour);
  const double cash = g.state().company.cash_usd;
  const auto second = g.apply(game::CheckAdvice{r.advice_id, CheckKind::kBenchmark});
  CHECK_FALSE(second.ok);
  CHECK(second.message.find("is running") != std::string::npos);
  CHECK(g.state().company.cash_usd == cash);
  CHECK(g.state().news.back().tone == game::NewsTone::kLoss);
  CHECK(g.apply(game::CheckAdvice{r.advice_id, CheckKind::kCanary}).ok);

  // The same round resumed with cash lowered so that cash plus credit is $1 short of the
  // benchmark's quote: refused, nothing charged, and the advisor's random streams as they were
  // (the checks that follow measure what they would have).
  auto probe = first_round("moe-fast-mode");
  const auto& ps = probe.game->state();
  const double quote =
      advisor::quote_check(probe.advisor->options(), test::catalog(), ps, ps.inbox[0], CheckKind::kBenchmark).cost_usd;
  auto short_state = ps;
  short_state.company.cash_usd = quote - 1 - probe.game->scenario().company.credit_line_usd;
  game::GameOptions o;
  o.seed = 7;
  game::Game poor(probe.game->scenario(), short_state, test::catalog(), o);
  poor.set_advisor(probe.advisor);
  REQUIRE(poor.state().inbox.size() == 1);
  const auto advisor_before = game::to_json(poor.state().advisor);
  const double poor_cash = poor.state().company.cash_usd;
  const auto refused = poor.apply(game::CheckAdvice{poor.state().inbox[0].id, CheckKind::kBenchmark});
  CHECK_FALSE(refused.ok);
  CHECK(refused.message.find("more than the cash and credit left") != std::string::npos);
  CHECK(poor.state().company.cash_usd == poor_cash);
  CHECK(game::to_json(poor.state().advisor) == advisor_before);
  // The rule the advisor panel greys the button by is the one the game refused with.
  CHECK(game::check_refusal(poor.scenario(), poor.state(), poor.state().inbox[0], CheckKind::kBenchmark, quote) ==
        refused.message);
}

TEST_CASE("the player sees claims and measurements, never the truth; a running check shows no number") {
  auto r = first_round("moe-fast-mode");
  auto bench = check(r, CheckKind::kBenchmark);
  const auto rec = *r.game->state().advisor.find(r.advice_id);  // a copy: later hours may grow the records
  const auto& advice = r.game->state().inbox[0];
  auto running = advisor::player_view_json(rec, advice, r.game->state().hour);
  CHECK_FALSE(running.contains("truth"));
  CHECK_FALSE(running.contains("effect"));
  CHECK_FALSE(running.contains("true_speedup"));
  REQUIRE(running["checks"].size() == 1);
  CHECK_FALSE(running["checks"][0].contains("measured_speedup"));  // the benchmark takes two game hours
  CHECK(running["checks"][0]["ready_at_hour"] == bench.ready_at_hour);
  CHECK(running["deciding_check"].is_null());  // nothing decides while the only check runs
  auto done = advisor::player_view_json(rec, advice, bench.ready_at_hour);
  CHECK(done["checks"][0]["measured_speedup"].get<double>() == bench.measured_speedup);
  CHECK(done["deciding_check"] == 0);  // game::deciding_check: the newest ready check
  CHECK(game::deciding_check(advice, bench.ready_at_hour - 1) == std::nullopt);
  CHECK(game::deciding_check(advice, bench.ready_at_hour) == 0u);
  CHECK(done["claimed_speedup"].get<double>() == rec.claimed_speedup);
  // Only the debrief, after the fact, reveals what was true.
  CHECK(advisor::to_json(rec, /*reveal_truth=*/true)["truth"]["speedup"].get<double>() == rec.true_speedup);
}

TEST_CASE("debrief: an accepted change's outcome is tracked from the game's own hours") {
  auto r = first_round("moe-fast-mode");
  auto& g = *r.game;
  g.advance(3);
  REQUIRE(g.apply(game::AcceptAdvice{r.advice_id}).ok);
  g.advance(advisor::kOutcomeHours);
  auto d = advisor::make_debrief(g.state());
  REQUIRE(d.rows.size() >= 1);
  const auto& row = d.rows[0];
  CHECK(row.decision == game::AdviceStatus::kAccepted);
  CHECK_FALSE(row.right_call);  // fast_mode is slower on real shapes
  CHECK(d.num_regressions == 1);
  REQUIRE(row.tok_per_gpu_before);
  REQUIRE(row.tok_per_gpu_after);
  // The market's demand exceeds the fleet, so a slower engine serves fewer tokens per GPU.
  CHECK(*row.tok_per_gpu_after < *row.tok_per_gpu_before);
  CHECK(row.value_usd < 0);

  SUBCASE("the debrief's JSON carries its own rule: whether each true change is a real gain, and the rule's words") {
    // The debrief panel colours a true speedup and states the rule from these fields, so the words
    // and the colour follow game::kMaterialGain (1%) and ProposalRecord::good rather than a copy.
    const auto j = advisor::to_json(d);
    const auto& record = g.state().advisor.records.front();
    CHECK(j["proposals"][0]["truth"]["good"] == record.good());
    CHECK_FALSE(record.good());  // fast_mode is slower on real shapes
    CHECK(j["right_call_rule"].get<std::string>().find("a real gain of at least 1%") != std::string::npos);
    // Whether the score judged the call, and whether it was an incident, are the debrief's too.
    CHECK(j["proposals"][0]["judged"] == true);
    CHECK(j["proposals"][0]["truth"]["incident"] == (record.reputation_hit > 0));
  }
  SUBCASE("the rows the debrief marks as judged are the ones the score counts") {
    g.advance(g.state().end_hour - g.state().hour);  // to the end: every proposal's call is final
    const auto rows = advisor::make_debrief(g.state()).rows;
    const auto judged = std::count_if(rows.begin(), rows.end(), [](const auto& x) { return x.judged; });
    REQUIRE(r.advisor->judgement(g.state()).has_value());
    CHECK(judged == r.advisor->judgement(g.state())->proposals);
  }
}
