// Commands: what each does at an hour boundary and why it is refused (with the numbers).
#include <doctest/doctest.h>

#include "sim/game/game.h"
#include "tests/game_test_util.h"

using namespace tycoon;

namespace {

using test::contains;

// An advisor stand-in that posts one fixed proposal after the first hour.
struct OneProposal : game::Advisor {
  std::vector<game::Advice> propose(const game::GameState& s, game::AdvisorState&) override {
    if (s.hour != 1) return {};
    game::Advice a;
    a.id = "fuse-moe-1";
    a.deployment_id = 1;
    a.title = "Fuse the MoE scatter";
    a.claimed_speedup = 1.1;
    a.effect.speedup = 1.1;
    a.effect.recipe.spec_draft_tokens = 3;
    return {a};
  }
  std::shared_ptr<game::Advisor> clone() const override { return std::make_shared<OneProposal>(*this); }
};

}  // namespace

TEST_CASE("renting: availability, lead time and contract ids") {
  auto g = test::flat_game(2.0, 0);
  auto r = g.apply(game::RentGpus{"h200", Contract::kOnDemand, 10});
  CHECK(r.ok);
  CHECK(contains(r.message, "Contract 1"));
  SUBCASE("the offer has 16 GPUs: 10 more cannot be had") {
    auto more = g.apply(game::RentGpus{"h200", Contract::kOnDemand, 10});
    CHECK_FALSE(more.ok);
    CHECK(contains(more.message, "only 6 more"));
  }
  SUBCASE("a chip the market does not offer") {
    CHECK_FALSE(g.apply(game::RentGpus{"b200", Contract::kOnDemand, 1}).ok);
  }
  SUBCASE("refused commands are logged too, so replays match") {
    g.apply(game::RentGpus{"b200", Contract::kOnDemand, 1});
    CHECK(g.state().log.size() == 2);
  }
}

TEST_CASE("deploying checks the memory plan and reports it with the numbers") {
  auto j = test::flat_scenario_json(2.0);
  j["segments"].push_back({{"id", "frontier"},
                           {"model", "kimi-k3"},
                           {"workload", {{"kind", "chat"}, {"input_tokens", 1000}, {"output_tokens", 500}}},
                           {"demand", {{"base_requests_per_s", 0.1}}},
                           {"slo", {{"ttft_s", 2.0}, {"tpot_s", 0.1}}}});
  game::GameOptions o;
  o.windows = test::fixed_capacity_windows();
  game::Game g(test::scenario_from(j), test::catalog(), o);
  REQUIRE(g.apply(game::RentGpus{"h200", Contract::kOnDemand, 8}).ok);
  game::Deploy d{"kimi-k3", "h200", {}, 1, {}, {}};
  d.recipe.tensor_parallel = 2;
  auto r = g.apply(d);
  INFO(r.message);
  // 2.8 trillion parameters do not fit on two 141 GB GPUs whatever the precision.
  CHECK_FALSE(r.ok);
  CHECK(contains(r.message, "Does not fit in"));
  CHECK(contains(r.message, "GB"));
  CHECK(g.state().company.deployments.empty());
}

TEST_CASE("deploying needs unclaimed GPUs of the chip") {
  auto g = test::flat_game(2.0, 0);
  REQUIRE(g.apply(game::RentGpus{"h200", Contract::kOnDemand, 3}).ok);
  auto r = g.apply(game::Deploy{"gpt-oss-120b", "h200", {}, 4, {}, {}});
  CHECK_FALSE(r.ok);
  CHECK(contains(r.message, "need 4 x h200"));
  CHECK(contains(r.message, "3 unclaimed"));
  REQUIRE(g.apply(game::Deploy{"gpt-oss-120b", "h200", {}, 3, {}, {}}).ok);
  SUBCASE("scaling beyond the fleet is refused; within it, accepted") {
    CHECK_FALSE(g.apply(game::ScaleReplicas{1, 4, {}}).ok);
    CHECK(g.apply(game::ScaleReplicas{1, 2, {}}).ok);
    CHECK(g.state().company.deployments[0].replicas == 2);
  }
  SUBCASE("a recipe needing more GPUs per replica is refused") {
    game::ChangeRecipe c{1, {}};
    c.recipe.tensor_parallel = 2;
    auto rc = g.apply(c);
    CHECK_FALSE(rc.ok);
    CHECK(contains(rc.message, "needs 6 x h200"));
  }
  SUBCASE("changing the draft tokens keeps the rest of the recipe") {
    game::ChangeRecipe c{1, {}};
    c.recipe.spec_draft_tokens = 3;
    REQUIRE(g.apply(c).ok);
    const auto& rec = g.state().company.deployments[0].recipe;
    CHECK(rec.spec_draft_tokens == 3);
    CHECK(rec.precision == Precision::kFp4);  // the catalog recipe's
  }
  SUBCASE("undeploy frees the GPUs, which stay rented") {
    REQUIRE(g.apply(game::Undeploy{1}).ok);
    CHECK(g.state().company.deployments.empty());
    CHECK(g.state().company.contracts.size() == 1);
  }
}

TEST_CASE("releasing a reserved contract early pays the rest of its commitment") {
  auto g = test::flat_game(2.0, 0);
  REQUIRE(g.apply(game::RentGpus{"h200", Contract::kReserved, 4}).ok);
  g.advance(30);  // ready at 24, term 30 days from then: ends at hour 24 + 720 = 744
  double cash = g.state().company.cash_usd;
  auto r = g.apply(game::ReleaseGpus{1, 1});
  REQUIRE(r.ok);
  // One GPU × 1.60 USD × (744 - 30) hours = 1142.40 USD.
  CHECK(g.state().company.cash_usd == doctest::Approx(cash - 1142.40));
  CHECK(g.state().company.contracts[0].num_gpus == 3);
  CHECK(contains(r.message, "714 committed hours"));
}

TEST_CASE("an educator's locks refuse commands, recipe fields and contract types") {
  auto j = test::flat_scenario_json(2.0);
  j["locked_levers"] = {"set_prices", "recipe.spec_draft_tokens", "contract.spot"};
  j["start"] = {{"contracts", {{{"chip", "h200"}, {"contract", "on_demand"}, {"num_gpus", 2}}}},
                {"deployments", {{{"model", "gpt-oss-120b"}, {"chip", "h200"}, {"replicas", 1}}}}};
  game::GameOptions o;
  o.windows = test::fixed_capacity_windows();
  game::Game g(test::scenario_from(j), test::catalog(), o);
  auto p = g.apply(game::SetPrices{"gpt-oss-120b", 0.1, {}, {}});
  CHECK_FALSE(p.ok);
  CHECK(contains(p.message, "locked"));
  game::ChangeRecipe c{1, {}};
  c.recipe.spec_draft_tokens = 3;
  CHECK_FALSE(g.apply(c).ok);
  CHECK_FALSE(g.apply(game::RentGpus{"h200", Contract::kSpot, 1}).ok);
  // Unlocked levers still work.
  CHECK(g.apply(game::RentGpus{"h200", Contract::kOnDemand, 1}).ok);
  c.recipe = {};
  c.recipe.max_num_seqs = 64;
  CHECK(g.apply(c).ok);
  SUBCASE("a scenario naming an unknown lever does not load") {
    j["locked_levers"] = {"set_price"};
    CHECK_THROWS_AS(test::scenario_from(j), data::LoadError);
  }
}

TEST_CASE("prices are set per model and token type") {
  auto g = test::flat_game(2.0, 0);
  REQUIRE(g.apply(game::SetPrices{"gpt-oss-120b", {}, {}, 0.75}).ok);
  const auto& p = g.state().company.prices.at("gpt-oss-120b");
  CHECK(p.output_usd_per_mtok == 0.75);
  CHECK(p.input_usd_per_mtok == 0.15);  // unchanged: the card price
  CHECK_FALSE(g.apply(game::SetPrices{"kimi-k3", 1.0, {}, {}}).ok);
}

TEST_CASE("advice: the inbox is the advisor's extension point; accepting applies its effect") {
  auto g = test::flat_game(2.0, 2);
  g.set_advisor(std::make_shared<OneProposal>());
  CHECK_FALSE(g.apply(game::AcceptAdvice{"fuse-moe-1"}).ok);  // nothing proposed yet
  g.step();
  REQUIRE(g.state().inbox.size() == 1);
  CHECK(g.state().inbox[0].status == game::AdviceStatus::kPending);
  REQUIRE(g.apply(game::AcceptAdvice{"fuse-moe-1"}).ok);
  const auto& d = g.state().company.deployments[0];
  CHECK(d.speedup == doctest::Approx(1.1));
  CHECK(d.recipe.spec_draft_tokens == 3);
  CHECK(g.state().inbox[0].status == game::AdviceStatus::kAccepted);
  CHECK_FALSE(g.apply(game::RejectAdvice{"fuse-moe-1"}).ok);  // already decided
}

TEST_CASE("a model with several segments needs the segment named") {
  auto j = test::flat_scenario_json(2.0);
  auto second = j["segments"][0];
  second["id"] = "batch";
  j["segments"].push_back(second);
  game::GameOptions o;
  o.windows = test::fixed_capacity_windows();
  game::Game g(test::scenario_from(j), test::catalog(), o);
  REQUIRE(g.apply(game::RentGpus{"h200", Contract::kOnDemand, 2}).ok);
  auto r = g.apply(game::Deploy{"gpt-oss-120b", "h200", {}, 1, {}, {}});
  CHECK_FALSE(r.ok);
  CHECK(contains(r.message, "chat, batch"));
  CHECK(g.apply(game::Deploy{"gpt-oss-120b", "h200", std::string("batch"), 1, {}, {}}).ok);
}
