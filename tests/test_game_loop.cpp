// The hourly loop: money, service and the world's moves, checked to the cent against a serving
// stand-in with a fixed capacity (FixedCapacityBackend) so that every number has a closed form;
// and the cache of serving windows, on the real serving simulator.
#include <doctest/doctest.h>

#include "sim/game/game.h"
#include "sim/game/serving_window.h"
#include "sim/game/summary.h"
#include "sim/perf/profile_lookup.h"
#include "tests/game_test_util.h"

using namespace tycoon;

namespace {
constexpr double kMoneyTol = 1e-9;  // relative; sums of a few hundred exact terms
}

TEST_CASE("an hour bills tokens at the company's prices and pays rent and fixed costs") {
  // 2 requests/s of 1000 in + 500 out on 4 H200 replicas (capacity 10/s each): every request is
  // served. Per hour: 7200 requests, 7.2M input and 3.6M output tokens.
  // Revenue at the card price 0.15 / 0.60: 7.2 × 0.15 + 3.6 × 0.60 = 3.24 USD.
  // Rent: 4 GPUs × 3.50 = 14 USD. Fixed: 240 / 24 = 10 USD.
  auto g = test::flat_game(2.0, 4);
  g.step();
  const auto& h = g.state().history;
  CHECK(h[game::Series::kRequestsOffered][0] == doctest::Approx(7200));
  CHECK(h[game::Series::kRequestsCompleted][0] == doctest::Approx(7200));
  CHECK(h[game::Series::kOutputTokens][0] == doctest::Approx(3.6e6));
  CHECK(h[game::Series::kRevenueUsd][0] == doctest::Approx(3.24).epsilon(kMoneyTol));
  CHECK(h[game::Series::kGpuCostUsd][0] == doctest::Approx(14.0).epsilon(kMoneyTol));
  CHECK(h[game::Series::kFixedCostUsd][0] == doctest::Approx(10.0).epsilon(kMoneyTol));
  CHECK(g.state().company.cash_usd == doctest::Approx(10000 + 3.24 - 14 - 10).epsilon(kMoneyTol));

  SUBCASE("the whole two-day game adds up") {
    g.run_to_end();
    auto s = game::summarize(g);
    CHECK(s.hours == 48);
    CHECK(s.revenue_usd == doctest::Approx(48 * 3.24).epsilon(kMoneyTol));
    CHECK(s.gpu_cost_usd == doctest::Approx(48 * 14.0).epsilon(kMoneyTol));
    CHECK(s.cash_usd == doctest::Approx(10000 + 48 * (3.24 - 14 - 10)).epsilon(kMoneyTol));
    // Gross margin (155.52 - 672) / 155.52 = -3.32: renting 4 GPUs for 2 requests/s loses money.
    CHECK(*s.gross_margin == doctest::Approx((3.24 - 14) / 3.24).epsilon(kMoneyTol));
    CHECK(s.slo_attainment == doctest::Approx(1.0));
    CHECK_FALSE(s.bankrupt);
  }
}

TEST_CASE("beyond capacity, requests fail and SLO attainment and reputation fall") {
  // 20 requests/s on one replica that serves 10/s: half fail each hour.
  auto g = test::flat_game(20.0, 1);
  g.step();
  const auto& h = g.state().history;
  CHECK(h[game::Series::kRequestsFailed][0] == doctest::Approx(36000));
  CHECK(h[game::Series::kSloAttainment][0] == doctest::Approx(0.5));
  // Reputation moves from 1 toward 0.5 with a 24-hour half-life: 1 - 0.5 (1 - 2^(-1/24)).
  CHECK(g.state().world.segments[0].reputation == doctest::Approx(1 - 0.5 * (1 - std::exp2(-1.0 / 24))));
}

TEST_CASE("no deployment: every request fails and only fixed costs are paid") {
  auto g = test::flat_game(2.0, 0);
  g.advance(3);
  auto s = game::summarize(g);
  CHECK(s.revenue_usd == 0.0);
  CHECK(s.gpu_cost_usd == 0.0);
  CHECK(s.fixed_cost_usd == doctest::Approx(30.0));
  CHECK(s.requests_failed == doctest::Approx(3 * 7200));
  CHECK_FALSE(s.gross_margin.has_value());
}

TEST_CASE("cash below the credit line is bankruptcy: the game ends and refuses commands") {
  auto j = test::flat_scenario_json(2.0);
  j["company"]["starting_cash_usd"] = 100;
  j["company"]["credit_line_usd"] = 50;
  j["start"] = {{"contracts", {{{"chip", "h200"}, {"contract", "on_demand"}, {"num_gpus", 8}}}}};
  game::GameOptions o;
  o.windows = test::fixed_capacity_windows();
  game::Game g(test::scenario_from(j), test::catalog(), o);
  // Each hour costs 8 × 3.50 + 10 = 38 USD with no revenue: cash 100 → 62 → 24 → -14 → -52 < -50.
  g.run_to_end();
  CHECK(g.state().company.bankrupt);
  CHECK(g.state().company.bankrupt_at_hour == 4);
  CHECK(g.state().hour == 4);
  CHECK(g.finished());
  CHECK_FALSE(g.apply(game::SetPrices{"gpt-oss-120b", 1.0, {}, {}}).ok);
  auto s = game::summarize(g);
  CHECK(s.bankrupt);
  CHECK(s.score.stars == 0);
}

TEST_CASE("reserved GPUs arrive after their lead time and are paid only from then on") {
  auto g = test::flat_game(2.0, 0);
  auto r = g.apply(game::RentGpus{"h200", Contract::kReserved, 2});
  REQUIRE(r.ok);
  REQUIRE(g.apply(game::Deploy{"gpt-oss-120b", "h200", {}, 2, {}, {}}).ok);
  g.advance(24);
  // Lead time 24 h: nothing served or paid yet.
  CHECK(g.state().ledger.totals().gpu_cost_usd == 0.0);
  CHECK(g.state().service.requests_completed == 0.0);
  g.step();
  // Hour 24: 2 GPUs at the catalog's reserved 1.60 USD.
  CHECK(g.state().history[game::Series::kGpuCostUsd][24] == doctest::Approx(3.2));
  CHECK(g.state().history[game::Series::kRequestsCompleted][24] == doctest::Approx(7200));
}

TEST_CASE("scheduled events move GPU prices, demand and competitors' prices") {
  auto j = test::flat_scenario_json(2.0);
  j["start"] = {{"contracts", {{{"chip", "h200"}, {"contract", "on_demand"}, {"num_gpus", 1}}}},
                {"deployments", {{{"model", "gpt-oss-120b"}, {"chip", "h200"}, {"replicas", 1}}}}};
  j["segments"][0]["demand"]["price_elasticity"] = 2.0;
  j["events"] = {{{"at_hour", 2},
                  {"kind", "gpu_price"},
                  {"chip", "h200"},
                  {"contract", "on_demand"},
                  {"multiplier", 2.0},
                  {"news", "H200 shortage"}},
                 {{"at_hour", 3}, {"kind", "demand"}, {"segment", "chat"}, {"multiplier", 0.5}},
                 {{"at_hour", 4}, {"kind", "reference_price"}, {"model", "gpt-oss-120b"}, {"multiplier", 0.5}}};
  game::GameOptions o;
  o.windows = test::fixed_capacity_windows();
  game::Game g(test::scenario_from(j), test::catalog(), o);
  g.advance(5);
  const auto& h = g.state().history;
  CHECK(h[game::Series::kGpuCostUsd][1] == doctest::Approx(3.5));
  CHECK(h[game::Series::kGpuCostUsd][2] == doctest::Approx(7.0));  // on-demand floats with the market
  CHECK(h[game::Series::kRequestsOffered][2] == doctest::Approx(7200));
  CHECK(h[game::Series::kRequestsOffered][3] == doctest::Approx(3600));
  // Competitors halve their price: ours is now twice theirs, elasticity 2 → demand × 2^-2.
  CHECK(h[game::Series::kRequestsOffered][4] == doctest::Approx(900));
  bool saw_news = false;
  for (const auto& n : g.state().news) saw_news = saw_news || n.text == "H200 shortage";
  CHECK(saw_news);
}

TEST_CASE("a reclaimed spot contract pays for the part of the hour it ran and takes its replicas") {
  auto j = test::flat_scenario_json(2.0);
  j["market"][2]["interruptions_per_hour"] = 1.0;  // certain to be reclaimed in its first hour
  j["start"] = {{"contracts",
                 {{{"chip", "h200"}, {"contract", "on_demand"}, {"num_gpus", 1}},
                  {{"chip", "h200"}, {"contract", "spot"}, {"num_gpus", 1}}}},
                {"deployments", {{{"model", "gpt-oss-120b"}, {"chip", "h200"}, {"replicas", 2}}}}};
  game::GameOptions o;
  o.windows = test::fixed_capacity_windows(1.5);  // 2 replicas serve 3/s > 2/s; one alone 1.5/s
  game::Game g(test::scenario_from(j), test::catalog(), o);
  g.step();
  const auto& s = g.state();
  REQUIRE(s.company.contracts.size() == 1);
  CHECK(s.company.contracts[0].contract == Contract::kOnDemand);
  CHECK(s.service.spot_interruptions == 1);
  REQUIRE(s.deployment_history.size() == 1);
  CHECK(s.deployment_history[0].interrupted);
  // Rent: on-demand 3.50 + spot 1.45 × (the fraction of the hour before the interruption) < 4.95.
  double rent = s.history[game::Series::kGpuCostUsd][0];
  CHECK(rent > 3.5);
  CHECK(rent < 3.5 + 1.45);
  // Some requests failed: the ones in flight and the overflow once one replica was left.
  CHECK(s.history[game::Series::kRequestsFailed][0] > 0);
  g.step();
  CHECK(g.state().company.deployments[0].active_replicas == 1);
}

TEST_CASE("a higher price loses elastic customers but earns more per token") {
  auto j = test::flat_scenario_json(2.0);
  j["segments"][0]["demand"]["price_elasticity"] = 1.0;
  j["start"] = {{"contracts", {{{"chip", "h200"}, {"contract", "on_demand"}, {"num_gpus", 1}}}},
                {"deployments", {{{"model", "gpt-oss-120b"}, {"chip", "h200"}, {"replicas", 1}}}}};
  game::GameOptions o;
  o.windows = test::fixed_capacity_windows();
  game::Game g(test::scenario_from(j), test::catalog(), o);
  REQUIRE(g.apply(game::SetPrices{"gpt-oss-120b", 0.30, 0.03, 1.20}).ok);
  g.step();
  // Twice the market price with elasticity 1 halves demand: 3600 requests; revenue per request
  // doubles, so revenue is unchanged at 3.24 USD (unit elasticity).
  CHECK(g.state().history[game::Series::kRequestsOffered][0] == doctest::Approx(3600));
  CHECK(g.state().history[game::Series::kRevenueUsd][0] == doctest::Approx(3.24));
}

TEST_CASE("serving windows are cached by configuration and load bucket, and scaled to the exact load") {
  // A real GPT-OSS-120B-on-H200 window (the serving simulator), 2 replicas. Loads of 4.0 and
  // 3.9 requests/s per deployment fall in the same 10% bucket (2 and 1.95 per replica: log base
  // 1.1 of them is 7.27 and 7.01, both rounding to (1.1)^7 = 1.949): one window, reused, with
  // requests and tokens scaled by the exact load.
  const auto& cat = test::catalog();
  auto settings = game::default_recipe(cat, cat.model("gpt-oss-120b"), cat.accelerator("h200"));
  settings.spec_draft_tokens = 0;
  serving::PlanRequest request;
  request.model = &cat.model("gpt-oss-120b");
  request.pool.chip = "h200";
  request.pool.recipe = game::serving_overrides(cat, "gpt-oss-120b", "h200", settings, 1.0);
  request.pool.replicas = 2;
  game::WindowSpec spec;
  spec.plan = serving::resolve_plan(cat, request, serving::catalog_calibrations(cat));
  spec.workload.kind = serving::WorkloadKind::kRandom;
  spec.workload.input_tokens = 1000;
  spec.workload.output_tokens = 200;
  spec.settings.window_s = 60;
  spec.settings.warmup_s = 10;
  spec.settings.load_bucket_step = 0.1;
  spec.rate_per_s = 4.0;

  game::ServingWindows windows;
  auto a = windows.serve_hour(spec);
  CHECK(windows.windows_simulated() == 1);
  CHECK(windows.cache_hits() == 0);
  auto again = windows.serve_hour(spec);
  CHECK(windows.windows_simulated() == 1);
  CHECK(windows.cache_hits() == 1);
  CHECK(again.tokens.output_tokens == a.tokens.output_tokens);  // a pure memo

  spec.rate_per_s = 3.9;  // same bucket: reused, scaled by 3.9 / 4.0
  auto b = windows.serve_hour(spec);
  CHECK(windows.windows_simulated() == 1);
  CHECK(b.tokens.output_tokens == doctest::Approx(a.tokens.output_tokens * 3.9 / 4.0).epsilon(1e-12));
  CHECK(b.requests_offered == doctest::Approx(a.requests_offered * 3.9 / 4.0).epsilon(1e-12));

  spec.rate_per_s = 8.0;  // another bucket: a new window
  windows.serve_hour(spec);
  CHECK(windows.windows_simulated() == 2);
  spec.rate_per_s = 4.0;
  auto other = spec;  // another recipe: a new window
  request.pool.recipe.max_num_seqs = settings.max_num_seqs / 2;
  other.plan = serving::resolve_plan(cat, request, serving::catalog_calibrations(cat));
  windows.serve_hour(other);
  CHECK(windows.windows_simulated() == 3);

  // A fresh cache gives the same hour: results never depend on what was cached before.
  game::ServingWindows fresh;
  spec.rate_per_s = 3.9;
  CHECK(fresh.serve_hour(spec).tokens.output_tokens == b.tokens.output_tokens);
  // The hour served about its offered load: 4 req/s x 3600 s x 180 output tokens (the random
  // shape draws each answer uniform on [0.8 x 200, 200]: 180 on average), nearly all completed at
  // this light load (tolerance: Poisson sampling of a 70 s window).
  const double mean_output = 200 * (1 + serving::WorkloadSpec{}.output_range_ratio) / 2;
  CHECK(a.requests_offered == doctest::Approx(4.0 * 3600).epsilon(0.1));
  CHECK(a.tokens.output_tokens == doctest::Approx(4.0 * 3600 * mean_output).epsilon(0.15));
}
