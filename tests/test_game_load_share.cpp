// How a segment's load is split over its deployments (game::capacity_weights, which the game's
// hour and the previews' game::load_share both use): by the router's capacity weight, replicas × GPUs per replica × HBM
// bandwidth × engine efficiency × speedup, so on one chip and engine the shares are in proportion to GPUs × speedup.
#include <doctest/doctest.h>

#include "game_test_util.h"
#include "sim/game/load_share.h"

using namespace tycoon;

namespace {

constexpr double kShareTol = 1e-12;  // ratios of products of the same catalog numbers

game::DeploymentState deployment(std::int64_t id, const char* segment, int active, int wanted) {
  game::DeploymentState d;
  d.id = id;
  d.model = "gpt-oss-120b";
  d.segment = segment;
  d.chip = "h200";
  d.replicas = wanted;
  d.active_replicas = active;
  return d;
}

}  // namespace

TEST_CASE("a deployment's share of its segment's load is its capacity weight over the segment's") {
  game::Company c;
  c.deployments = {deployment(1, "chat", 1, 1), deployment(2, "chat", 3, 3), deployment(3, "batch", 8, 8)};
  // Same chip and engine: 1 and 3 replicas of one GPU share 1:3; the other segment's 8 do not count.
  CHECK(game::load_share(test::catalog(), c, c.deployments[0]) == doctest::Approx(0.25).epsilon(kShareTol));
  CHECK(game::load_share(test::catalog(), c, c.deployments[1]) == doctest::Approx(0.75).epsilon(kShareTol));
  CHECK(game::load_share(test::catalog(), c, c.deployments[2]) == doctest::Approx(1.0).epsilon(kShareTol));

  SUBCASE("accepted speedups count: 1 replica at x2 against 3 at x1 is 2:3") {
    c.deployments[0].speedup = 2.0;
    CHECK(game::load_share(test::catalog(), c, c.deployments[0]) == doctest::Approx(0.4).epsilon(kShareTol));
  }
  SUBCASE("GPUs per replica count: 1 replica of 2 GPUs against 3 of 1 is 2:3") {
    c.deployments[0].recipe.tensor_parallel = 2;
    CHECK(game::load_share(test::catalog(), c, c.deployments[0]) == doctest::Approx(0.4).epsilon(kShareTol));
  }
  SUBCASE("a deployment waiting for GPUs takes no load yet, and is previewed at the replicas it wants") {
    c.deployments[1].active_replicas = 0;
    // The hour as the game plays it: only serving deployments share the load.
    CHECK(game::load_share(test::catalog(), c, c.deployments[0]) == doctest::Approx(1.0).epsilon(kShareTol));
    // Its own preview: its 3 wanted replicas against the 1 serving.
    CHECK(game::load_share(test::catalog(), c, c.deployments[1]) == doctest::Approx(0.75).epsilon(kShareTol));
  }
  SUBCASE("active replicas, not wanted ones, while it has some: 1 of 3 wanted running is 1:1") {
    c.deployments[1].active_replicas = 1;
    CHECK(game::load_share(test::catalog(), c, c.deployments[0]) == doctest::Approx(0.5).epsilon(kShareTol));
  }
  SUBCASE("a chip the catalog lacks weighs nothing; with no weight at all the share is whole") {
    c.deployments[1].chip = "no-such-chip";
    CHECK(game::load_share(test::catalog(), c, c.deployments[0]) == doctest::Approx(1.0).epsilon(kShareTol));
    CHECK(game::load_share(test::catalog(), c, c.deployments[1]) == 0.0);
    c.deployments[0].chip = "no-such-chip";
    CHECK(game::load_share(test::catalog(), c, c.deployments[0]) == 1.0);
  }
}

TEST_CASE("a deployment about to be made joins those serving at the replicas it wants") {
  // The deploy form's preview: 1 new replica beside 3 serving on the same chip and engine takes 1/4.
  game::Company c;
  c.deployments = {deployment(1, "chat", 3, 3)};
  game::DeploymentState fresh = deployment(0, "chat", 0, 1);
  CHECK(game::load_share(test::catalog(), c, fresh) == doctest::Approx(0.25).epsilon(kShareTol));
  // Alone in its segment it takes the whole load.
  fresh.segment = "batch";
  CHECK(game::load_share(test::catalog(), c, fresh) == doctest::Approx(1.0).epsilon(kShareTol));
}

TEST_CASE("the replicas a look at a deployment now simulates: those with GPUs, else the ones it wants") {
  // One rule for load_share's weight and the traffic and profiler panels' simulations.
  game::DeploymentState d = deployment(1, "chat", 2, 3);
  CHECK(d.replicas_now() == 2);  // serving on 2 of the 3 it wants
  CHECK(d.decode_replicas_now() == 0);
  d.active_replicas = 0;
  CHECK(d.replicas_now() == 3);  // waiting for GPUs: previewed at what it wants
  SUBCASE("split: both pools must have GPUs to serve, else both are previewed at what they want") {
    d.active_replicas = 2;
    d.decode = game::DecodePoolState{"h200", {}, 4, serving::KvLinkKind::kInfiniband, 1};
    CHECK(d.replicas_now() == 2);
    CHECK(d.decode_replicas_now() == 1);
    d.decode->active_replicas = 0;
    CHECK(d.replicas_now() == 3);
    CHECK(d.decode_replicas_now() == 4);
  }
}
