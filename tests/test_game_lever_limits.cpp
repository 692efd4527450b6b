// The ranges and choices the game accepts for what a player types or picks (sim/game/lever_limits.h),
// a deployment's pools (game::pools_of) and the load a what-if runs at (game::offered_rate_now):
// each written once in sim/, shown by the front ends.
#include <doctest/doctest.h>

#include <algorithm>

#include "sim/core/input_error.h"
#include "sim/game/fleet.h"
#include "sim/game/game.h"
#include "sim/game/lever_limits.h"
#include "sim/game/load_share.h"
#include "sim/game/rng.h"
#include "sim/game/scoring.h"
#include "sim/game/slo.h"
#include "sim/game/standing.h"
#include "tests/game_test_util.h"

using namespace tycoon;

namespace {

constexpr double kRateTol = 1e-12;  // the same stored double, read back

const data::Accelerator& chip(const char* id) {
  const auto* a = test::catalog().find_accelerator(id);
  REQUIRE(a != nullptr);
  return *a;
}

}  // namespace

TEST_CASE("GPUs per replica: powers of two within the scale-up domain, two domains over scale-out, at most 64") {
  // The H200's NVLink domain is 8 GPUs and it lists InfiniBand scale-out: 16 spans two nodes (the
  // catalog's Kimi K3 recipe on H200 runs TP16).
  CHECK(game::tensor_parallel_choices(chip("h200")) == std::vector<int>{1, 2, 4, 8, 16});
  // An accelerator without scale-out stops at its domain.
  data::Accelerator lone = chip("h200");
  lone.scale_out_bandwidth_bytes_per_s = 0;
  CHECK(game::tensor_parallel_choices(lone) == std::vector<int>{1, 2, 4, 8});
  lone.scale_up.domain_size = 4;
  CHECK(game::tensor_parallel_choices(lone) == std::vector<int>{1, 2, 4});
  // A rack-sized domain (NVL72) stops at kMaxTensorParallel.
  lone.scale_up.domain_size = 72;
  CHECK(game::tensor_parallel_choices(lone).back() == game::kMaxTensorParallel);
}

TEST_CASE("a recipe whose tensor-parallel size is not a choice on its chip is refused, naming the choices") {
  game::RecipeSettings r;
  r.tensor_parallel = 3;
  const auto why = game::recipe_limits_refusal(r, &chip("h200"));
  REQUIRE(why);
  CHECK(*why == "tensor_parallel 3 is not one of 1, 2, 4, 8, 16 on " + chip("h200").name);
  r.tensor_parallel = 16;
  CHECK_FALSE(game::recipe_limits_refusal(r, &chip("h200")));
  // Without a chip only the batch limits and drafts are checked.
  r.tensor_parallel = 3;
  CHECK_FALSE(game::recipe_limits_refusal(r));
}

TEST_CASE("expert parallelism: the powers of two that divide the tensor-parallel size") {
  CHECK(game::expert_parallel_choices(1) == std::vector<int>{1});
  CHECK(game::expert_parallel_choices(8) == std::vector<int>{1, 2, 4, 8});
  // Every choice survives a change to that TP (apply_overrides keeps EP only where it divides TP).
  for (int ep : game::expert_parallel_choices(8)) {
    game::RecipeSettings r;
    r.tensor_parallel = 8;
    r.expert_parallel = ep;
    CHECK(game::clamp_to_limits(r).expert_parallel == ep);
  }
}

TEST_CASE("draft tokens: the full range on an engine with speculative decoding, only 0 on one without or unknown") {
  data::Engine with;
  with.supports_spec_decode = true;
  data::Engine without;
  without.supports_spec_decode = false;
  CHECK(game::spec_draft_tokens_range(&with).max == game::kSpecDraftTokensRange.max);
  CHECK(game::spec_draft_tokens_range(&without).min == 0);
  CHECK(game::spec_draft_tokens_range(&without).max == 0);
  CHECK(game::spec_draft_tokens_range(nullptr).max == 0);  // an unknown engine runs no drafts
}

TEST_CASE("a price outside $0..$1,000 per million tokens is refused by SetPrices, and nothing changes") {
  auto g = test::flat_game(2.0, 2);  // 2 requests/s on two one-GPU H200 replicas
  const auto& [model, before] = *g.state().company.prices.begin();
  const auto prices_before = before;
  game::SetPrices typo{model, std::nullopt, std::nullopt, 15000.0};  // $15 typed with three extra zeros
  CHECK(game::price_refusal(typo) == "output_usd_per_mtok $15000.00 is outside $0.00..$1000.00 per million tokens");
  const auto r = g.apply(typo);
  CHECK_FALSE(r.ok);
  CHECK(g.state().company.prices.at(model) == prices_before);
  // The range's top is accepted.
  CHECK(g.apply(game::SetPrices{model, std::nullopt, std::nullopt, game::kPriceUsdPerMtokRange.max}).ok);
}

TEST_CASE("a deployment's pools: replicas x GPUs per replica on its chip, and its decode pool's on its own") {
  game::RecipeSettings r;
  r.tensor_parallel = 4;
  CHECK(game::pools_of("h200", 3, r, std::nullopt) == std::vector<game::PoolGpus>{{"h200", 12}});
  game::DecodePoolState decode;
  decode.chip = "b200";
  decode.recipe.tensor_parallel = 2;
  decode.replicas = 5;
  game::DeploymentState d;
  d.chip = "h200";
  d.recipe = r;
  d.replicas = 3;
  d.decode = decode;
  CHECK(d.pools() == std::vector<game::PoolGpus>{{"h200", 12}, {"b200", 10}});
  CHECK(d.gpus_wanted() == 22);
  CHECK(d.gpus_wanted("b200") == 10);
}

TEST_CASE("the load right now: last hour's offered rate, else the scenario's base demand; a deployment's share") {
  auto g = test::flat_game(2.0, 2);  // 2 requests/s on two one-GPU H200 replicas
  const auto& seg = g.scenario().segments.front();
  // Before the first hour: the base demand.
  CHECK(game::offered_rate_now(g.scenario(), g.state(), seg.id) ==
        doctest::Approx(seg.demand.base_requests_per_s).epsilon(kRateTol));
  CHECK(game::offered_rate_now(g.scenario(), g.state(), "no-such-segment") == 0.0);
  g.advance(1);
  const auto& st = g.state().world.segments.front();
  REQUIRE(st.last_offered_requests_per_s > 0);
  CHECK(game::offered_rate_now(g.scenario(), g.state(), seg.id) ==
        doctest::Approx(st.last_offered_requests_per_s).epsilon(kRateTol));
  for (const auto& d : g.state().company.deployments) {
    if (d.segment != seg.id) continue;
    CHECK(game::deployment_rate_now(g.scenario(), test::catalog(), g.state(), d) ==
          doctest::Approx(st.last_offered_requests_per_s * game::load_share(test::catalog(), g.state().company, d))
              .epsilon(kRateTol));
  }
}

TEST_CASE("an SLO attainment reads against the level's goal: met, short by up to 20 points, or failing") {
  // Without an SLO goal the level asks for 90% (the score's service component measures the same).
  auto scenario = test::scenario_from(test::flat_scenario_json());
  scenario.goals.clear();
  CHECK(game::slo_target(scenario) == 0.9);
  CHECK(game::slo_standing(0.9, scenario) == game::SloStanding::kMet);
  CHECK(game::slo_standing(0.75, scenario) == game::SloStanding::kShort);
  CHECK(game::slo_standing(0.69, scenario) == game::SloStanding::kFailing);
  // A level whose goal is 70% counts 75% as met (campaign level 3's goal).
  game::Goal g;
  g.kind = game::GoalKind::kSloAttainment;
  g.target = 0.7;
  scenario.goals.push_back(g);
  CHECK(game::slo_standing(0.75, scenario) == game::SloStanding::kMet);
  CHECK(game::slo_standing(0.55, scenario) == game::SloStanding::kShort);
}

TEST_CASE("a game takes seeds up to 9e15 (under 2^53, so a seed survives JavaScript) and refuses larger ones") {
  game::GameOptions o;
  o.seed = game::kMaxGameSeed;
  o.windows = test::fixed_capacity_windows();
  CHECK_NOTHROW(game::Game(test::scenario_from(test::flat_scenario_json()), test::catalog(), o));
  o.seed = game::kMaxGameSeed + 1;
  CHECK_THROWS_WITH_AS(game::Game(test::scenario_from(test::flat_scenario_json()), test::catalog(), o),
                       "seed 9000000000000001 is over 9000000000000000, the largest a game takes", core::InputError);
  CHECK(game::kMaxGameSeed < (std::uint64_t{1} << 53));
}

TEST_CASE("a campaign level opens once the highest level below it is passed; the first is always open") {
  // Levels 1, 2 and 4 load (3 failed to load and is left out): level 4 waits for level 2.
  const std::vector<std::pair<int, std::string>> campaign = {{2, "two"}, {1, "one"}, {4, "four"}};
  CHECK_FALSE(game::level_to_pass_before(1, campaign).has_value());
  CHECK(game::level_to_pass_before(2, campaign) == "one");
  CHECK(game::level_to_pass_before(4, campaign) == "two");
  // Passing takes kStarsToUnlockNextLevel stars: every goal met and a score of at least 55.
  CHECK_FALSE(game::unlocks_next_level(1));
  CHECK(game::unlocks_next_level(2));
  // A player with level 1 at two stars and level 2 at one star: 1 and 2 are open, 4 is not.
  const std::map<std::string, int> best = {{"one", 2}, {"two", 1}};
  CHECK(game::campaign_level_open(1, campaign, {}));
  CHECK_FALSE(game::campaign_level_open(2, campaign, {}));
  CHECK(game::campaign_level_open(2, campaign, best));
  CHECK_FALSE(game::campaign_level_open(4, campaign, best));
  CHECK(game::campaign_level_open(4, campaign, {{"two", 3}}));
}

TEST_CASE("the engines a recipe can name: production engines that run on the chip's vendor") {
  // The calibration runner's torch-reference engine is no serving engine a business deploys, and an
  // NVIDIA-only engine is no choice on an AMD chip: each choice passes recipe_refusal's two rules.
  for (const char* id : {"h200", "mi300x"}) {
    CAPTURE(id);
    const auto choices = game::engine_choices(test::catalog(), &chip(id));
    CHECK_FALSE(choices.empty());
    for (const data::Engine* e : choices) {
      CHECK(e->serves_production);
      CHECK(e->runs_on(chip(id).vendor));
    }
    const auto* torch_ref = test::catalog().find_engine("torch-reference");
    REQUIRE(torch_ref != nullptr);
    CHECK(std::find(choices.begin(), choices.end(), torch_ref) == choices.end());
  }
}

TEST_CASE("the deploy form's command: the fields that differ, and applying them gives the form's recipe") {
  game::RecipeSettings base;
  base.tensor_parallel = 2;
  base.expert_parallel = 2;
  game::RecipeSettings form = base;
  form.precision = Precision::kFp8;
  form.tensor_parallel = 4;
  form.spec_draft_tokens = 3;
  form.spec_acceptance_length = 2.4;
  form.max_num_seqs = 128;
  form.prefix_caching = false;
  const auto o = game::overrides_between(base, form);
  // Only what changed is in the command (so a locked lever the form left alone is not touched).
  CHECK(game::recipe_fields_set(o) == std::vector<std::string_view>{"precision", "tensor_parallel", "spec_draft_tokens",
                                                                    "spec_acceptance_length", "max_num_seqs",
                                                                    "prefix_caching"});
  CHECK(game::apply_overrides(base, o) == form);
  CHECK(game::recipe_fields_set(game::overrides_between(form, form)).empty());
}

TEST_CASE("a deployment that served nothing last hour is labelled by why: made this hour, or without GPUs") {
  // Made at hour 5: the hour's simulation has not run with it yet, so it serves from the next.
  game::DeploymentState d;
  d.created_at_hour = 5;
  CHECK(game::idle_label(d, 5) == "next hour");
  // An hour on and still idle: none of its replicas got GPUs.
  CHECK(game::idle_label(d, 6) == "no GPUs");
}

TEST_CASE("a game's length scales the goals on what it accumulates, not those on rates or survival") {
  // A week's level played for one day (a short class): a day's worth of profit, tokens and cash
  // above the start; the same margin, SLO and survival.
  auto s = test::scenario_from(test::flat_scenario_json());
  s.days = 7;
  s.company.starting_cash_usd = 10'000;
  s.goals = {{game::GoalKind::kProfitUsd, 700, 100},     {game::GoalKind::kOutputTokens, 7e9, 100},
             {game::GoalKind::kCashUsd, 10'700, 100},    {game::GoalKind::kGrossMargin, 0.3, 100},
             {game::GoalKind::kSloAttainment, 0.9, 100}, {game::GoalKind::kSurvive, 0, 100}};
  game::set_days(s, 1);
  CHECK(s.days == 1);
  CHECK(s.goals[0].target == doctest::Approx(100));
  CHECK(s.goals[1].target == doctest::Approx(1e9));
  CHECK(s.goals[2].target == doctest::Approx(10'100));
  CHECK(s.goals[3].target == 0.3);
  CHECK(s.goals[4].target == 0.9);
  // Back to the week: the goals as they were (a resumed save lengthened again).
  game::set_days(s, 7);
  CHECK(s.goals[0].target == doctest::Approx(700));
  CHECK(s.goals[2].target == doctest::Approx(10'700));
}

TEST_CASE("money stands by one rule on every screen: cents are even, a margin at zero is a loss") {
  CHECK(game::money_standing(12.0) == game::MoneyStanding::kGain);
  CHECK(game::money_standing(0.3) == game::MoneyStanding::kEven);  // within kSameProfitUsd
  CHECK(game::money_standing(-0.3) == game::MoneyStanding::kEven);
  CHECK(game::money_standing(-4.0) == game::MoneyStanding::kLoss);
  CHECK(game::margin_standing(0.12) == game::MoneyStanding::kGain);
  CHECK(game::margin_standing(0.0) == game::MoneyStanding::kLoss);
  CHECK(game::margin_standing(std::nullopt) == game::MoneyStanding::kEven);  // no revenue, no margin
  CHECK(game::cash_standing(-1.0) == game::MoneyStanding::kLoss);            // on the credit line
  CHECK(game::cash_standing(0.0) == game::MoneyStanding::kGain);
}

TEST_CASE("only a game of an open level as its file sets it counts toward the campaign") {
  auto level = test::scenario_from(test::flat_scenario_json());
  level.days = 7;
  constexpr bool kOpen = true;
  CHECK(game::counts_for_progress(level, level, kOpen));
  // A level still locked (reached through Class setup or a code) unlocks nothing, however played.
  CHECK_FALSE(game::counts_for_progress(level, level, !kOpen));
  auto coded = level;  // started from a class code on the start screen: another seed
  coded.seed = level.seed + 1;
  CHECK_FALSE(game::counts_for_progress(coded, level, kOpen));
  auto short_class = level;  // a one-day class of the level (its goals scaled to the day)
  game::set_days(short_class, 1);
  CHECK_FALSE(game::counts_for_progress(short_class, level, kOpen));
  auto locked = level;  // a class that locks more levers
  locked.locked_levers.push_back("set_prices");
  CHECK_FALSE(game::counts_for_progress(locked, level, kOpen));
  auto richer = level;  // an imported copy under the level's id with more starting cash
  richer.company.starting_cash_usd += 1000;
  CHECK_FALSE(game::counts_for_progress(richer, level, kOpen));
}
