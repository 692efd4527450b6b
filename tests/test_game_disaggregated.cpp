// Disaggregated deployments in the game (a sandbox-level option): a decode pool of its
// own chip, replicas, recipe and KV link; its GPUs claimed, allocated and paid for; its hours
// served by the disaggregated simulation; saved and loaded; refused with the reason where it
// cannot run.
#include <doctest/doctest.h>

#include <memory>
#include <vector>

#include "sim/advisor/advisor.h"
#include "sim/game/fleet.h"
#include "sim/game/save.h"
#include "sim/game/state_json.h"
#include "sim/perf/profile_lookup.h"
#include "tests/game_test_util.h"

using namespace tycoon;

namespace {

using test::contains;

// One GPT-OSS-120B chat segment, H200 and B200 on demand, flat demand, whole-hour windows.
nlohmann::json split_scenario_json(bool allow = true) {
  auto j = test::flat_scenario_json(4.0);
  j["id"] = "test-split";
  j["market"] = nlohmann::json::parse(R"([
    {"chip": "h200", "contract": "on_demand", "available_gpus": 16, "lead_time_hours": 0},
    {"chip": "b200", "contract": "on_demand", "available_gpus": 16, "lead_time_hours": 0}
  ])");
  if (allow) j["allow_disaggregated"] = true;
  return j;
}

// Every configuration the game asks the simulator for, answered by the fixed-capacity stand-in
// (10 requests/s per prefill replica).
struct Recorder {
  std::shared_ptr<std::vector<serving::ServingConfig>> configs =
      std::make_shared<std::vector<serving::ServingConfig>>();
  std::shared_ptr<std::vector<std::string>> calibration_chips = std::make_shared<std::vector<std::string>>();
  serving::ServingSummary operator()(const serving::ServingConfig& c, const perf::CalibrationProfile& cal) const {
    configs->push_back(c);
    calibration_chips->push_back(cal.chip);
    return test::FixedCapacityBackend{10}(c, cal);
  }
};

game::Game split_game(const Recorder& rec, bool allow = true) {
  game::GameOptions o;
  o.windows = std::make_shared<game::ServingWindows>(rec);
  return game::Game(test::scenario_from(split_scenario_json(allow)), test::catalog(), o);
}

game::Deploy split_deploy(int prefill, int decode, serving::KvLinkKind link = serving::KvLinkKind::kInfiniband,
                          const std::string& decode_chip = "b200") {
  game::Deploy d{"gpt-oss-120b", "h200", std::string("chat"), prefill, {}, {}};
  d.decode = game::DecodePoolSpec{decode_chip, decode, {}, link};
  return d;
}

}  // namespace

TEST_CASE("a decode pool is refused where the scenario does not offer disaggregated serving") {
  Recorder rec;
  auto g = split_game(rec, /*allow=*/false);
  REQUIRE(g.apply(game::RentGpus{"h200", Contract::kOnDemand, 1}).ok);
  REQUIRE(g.apply(game::RentGpus{"b200", Contract::kOnDemand, 2}).ok);
  auto r = g.apply(split_deploy(1, 2));
  CHECK_FALSE(r.ok);
  CHECK(contains(r.message, "no disaggregated serving"));
  // Nothing changed: no deployment, its id not used up.
  CHECK(g.state().company.deployments.empty());
  CHECK(g.state().company.next_deployment_id == 1);
  // The same deployment aggregated is fine.
  CHECK(g.apply(game::Deploy{"gpt-oss-120b", "h200", std::string("chat"), 1, {}, {}}).ok);
}

TEST_CASE("a disaggregated deployment claims GPUs on both chips and is refused when either lacks them") {
  Recorder rec;
  auto g = split_game(rec);
  REQUIRE(g.apply(game::RentGpus{"h200", Contract::kOnDemand, 1}).ok);
  REQUIRE(g.apply(game::RentGpus{"b200", Contract::kOnDemand, 1}).ok);
  // Two B200 decode replicas of one GPU each, one rented: refused, naming the decode pool.
  auto r = g.apply(split_deploy(1, 2));
  CHECK_FALSE(r.ok);
  CHECK(contains(r.message, "decode pool's 2 replicas"));
  CHECK(contains(r.message, "2 x b200"));
  REQUIRE(g.apply(game::RentGpus{"b200", Contract::kOnDemand, 1}).ok);
  r = g.apply(split_deploy(1, 2));
  INFO(r.message);
  REQUIRE(r.ok);
  const auto& d = g.state().company.deployments.front();
  REQUIRE(d.decode);
  CHECK(d.decode->chip == "b200");
  CHECK(d.decode->replicas == 2);
  // The decode pool runs the prefill pool's engine on the B200's starting recipe.
  CHECK(d.decode->recipe.engine == d.recipe.engine);
  // 1 H200 + 2 B200 wanted: no GPU of either chip is left unclaimed.
  CHECK(d.gpus_wanted() == 3);
  CHECK(game::unclaimed_gpus(g.state().company, "h200", std::nullopt) == 0);
  CHECK(game::unclaimed_gpus(g.state().company, "b200", std::nullopt) == 0);
  // A second aggregated deployment on B200 finds none.
  CHECK_FALSE(g.apply(game::Deploy{"gpt-oss-120b", "b200", std::string("chat"), 1, {}, {}}).ok);
}

TEST_CASE("NVLink joins only pools of one chip inside one NVLink domain; both pools run one engine") {
  Recorder rec;
  auto g = split_game(rec);
  REQUIRE(g.apply(game::RentGpus{"h200", Contract::kOnDemand, 12}).ok);
  REQUIRE(g.apply(game::RentGpus{"b200", Contract::kOnDemand, 2}).ok);
  // H200 to B200 over NVLink: different chips, no shared NVLink domain.
  auto r = g.apply(split_deploy(1, 2, serving::KvLinkKind::kNvlink));
  CHECK_FALSE(r.ok);
  CHECK(contains(r.message, "different chips"));
  // H200 to H200 over NVLink, 4 + 8 GPUs: more than the 8 of one HGX H200 NVLink domain.
  r = g.apply(split_deploy(4, 8, serving::KvLinkKind::kNvlink, "h200"));
  CHECK_FALSE(r.ok);
  CHECK(contains(r.message, "NVLink domain"));
  // 2 + 6 GPUs fit in one domain.
  r = g.apply(split_deploy(2, 6, serving::KvLinkKind::kNvlink, "h200"));
  INFO(r.message);
  CHECK(r.ok);
  // Scaling it past the domain is refused for the same reason, and changes nothing.
  auto scaled = g.apply(game::ScaleReplicas{1, 2, 7});
  CHECK_FALSE(scaled.ok);
  CHECK(contains(scaled.message, "NVLink domain"));
  CHECK(g.state().company.deployments.front().decode->replicas == 6);
  // A decode pool on another engine than the prefill pool's.
  auto other = split_deploy(1, 1, serving::KvLinkKind::kInfiniband, "b200");
  other.decode->recipe.engine = "sglang";
  r = g.apply(other);
  CHECK_FALSE(r.ok);
  CHECK(contains(r.message, "one engine"));
}

TEST_CASE("an hour of a disaggregated deployment runs the disaggregated simulation with both pools") {
  Recorder rec;
  auto j = split_scenario_json();
  j["serving"]["full_hour"] = false;  // sample windows, as real scenarios run
  game::GameOptions o;
  o.windows = std::make_shared<game::ServingWindows>(rec);
  game::Game g(test::scenario_from(j), test::catalog(), o);
  REQUIRE(g.apply(game::RentGpus{"h200", Contract::kOnDemand, 2}).ok);
  REQUIRE(g.apply(game::RentGpus{"b200", Contract::kOnDemand, 4}).ok);
  REQUIRE(g.apply(split_deploy(2, 4)).ok);
  g.advance(1);
  REQUIRE(rec.configs->size() == 1);
  const auto& c = rec.configs->front();
  REQUIRE(c.disaggregated);
  // 2 prefill and 4 decode replicas are simulated as their smallest slice in proportion: 1 and 2
  // (gcd 2), at half the deployment's 4 requests/s.
  CHECK(c.replicas == 1);
  CHECK(c.disaggregated->decode.replicas == 2);
  CHECK(c.arrival.rate_per_s == doctest::Approx(2.0).epsilon(0.06));  // within the load bucket's step
  CHECK(c.deployment.hardware->id == "h200");
  CHECK(c.disaggregated->decode.deployment.hardware->id == "b200");
  // The decode pool brings the B200's calibration (levels fitted to its published serving
  // results); the prefill pool runs on the H200's measured one.
  REQUIRE(c.disaggregated->decode.calibration);
  CHECK(c.disaggregated->decode.calibration->provenance == perf::Provenance::kFittedToPublished);
  CHECK(c.disaggregated->decode.calibration->source ==
        perf::calibration_for(test::catalog(), test::catalog().accelerator("b200")).source);
  CHECK(rec.calibration_chips->front() == "h200");
  // InfiniBand: the chip cards' scale-out bandwidth, the slower of the two.
  CHECK(c.disaggregated->link.kind == serving::KvLinkKind::kInfiniband);
  CHECK(c.disaggregated->link.bandwidth_bytes_per_s ==
        std::min(test::catalog().accelerator("h200").scale_out_bandwidth_bytes_per_s,
                 test::catalog().accelerator("b200").scale_out_bandwidth_bytes_per_s));
  // The scenario's queue limits apply in both pools.
  CHECK(c.disaggregated->decode.scheduler.queue_timeout_s == c.scheduler.queue_timeout_s);
  // All six GPUs serve, and the hour's rent pays for both chips.
  const auto& s = g.state();
  CHECK(s.company.deployments.front().active_replicas == 2);
  CHECK(s.company.deployments.front().decode->active_replicas == 4);
  REQUIRE(s.deployment_history.size() == 1);
  CHECK(s.deployment_history.front().gpus_serving == 6);
  const double rent = 2 * s.world.market.find("h200", Contract::kOnDemand)->price_usd_per_gpu_hour() +
                      4 * s.world.market.find("b200", Contract::kOnDemand)->price_usd_per_gpu_hour();
  CHECK(s.history[game::Series::kGpuCostUsd].back() == doctest::Approx(rent));
  CHECK(s.history[game::Series::kRequestsCompleted].back() > 0);
}

TEST_CASE("a decode pool without GPUs serves nothing; its replicas come back with GPUs") {
  Recorder rec;
  auto g = split_game(rec);
  REQUIRE(g.apply(game::RentGpus{"h200", Contract::kOnDemand, 1}).ok);
  REQUIRE(g.apply(game::RentGpus{"b200", Contract::kOnDemand, 2}).ok);
  REQUIRE(g.apply(split_deploy(1, 2)).ok);
  REQUIRE(g.apply(game::ReleaseGpus{2, 2}).ok);  // every B200
  g.advance(1);
  const auto& s = g.state();
  CHECK(s.company.deployments.front().active_replicas == 1);
  CHECK(s.company.deployments.front().decode->active_replicas == 0);
  CHECK_FALSE(s.company.deployments.front().serving());
  // No window simulated: the segment's requests all failed.
  CHECK(rec.configs->empty());
  CHECK(s.history[game::Series::kRequestsCompleted].back() == 0);
  CHECK(s.history[game::Series::kRequestsOffered].back() > 0);
  // One B200 back: one decode replica of two.
  REQUIRE(g.apply(game::RentGpus{"b200", Contract::kOnDemand, 1}).ok);
  g.advance(1);
  CHECK(g.state().company.deployments.front().decode->active_replicas == 1);
  REQUIRE(rec.configs->size() == 1);
  CHECK(rec.configs->front().disaggregated->decode.replicas == 1);
}

TEST_CASE("the decode pool scales on its own; an aggregated deployment has none to scale") {
  Recorder rec;
  auto g = split_game(rec);
  REQUIRE(g.apply(game::RentGpus{"h200", Contract::kOnDemand, 2}).ok);
  REQUIRE(g.apply(game::RentGpus{"b200", Contract::kOnDemand, 3}).ok);
  REQUIRE(g.apply(split_deploy(1, 2)).ok);
  REQUIRE(g.apply(game::Deploy{"gpt-oss-120b", "h200", std::string("chat"), 1, {}, {}}).ok);
  CHECK(g.apply(game::ScaleReplicas{1, 1, 3}).ok);
  CHECK(g.state().company.deployments.front().decode->replicas == 3);
  auto r = g.apply(game::ScaleReplicas{1, 1, 4});  // a fourth B200 is not rented
  CHECK_FALSE(r.ok);
  CHECK(contains(r.message, "b200"));
  r = g.apply(game::ScaleReplicas{2, 1, 1});
  CHECK_FALSE(r.ok);
  CHECK(contains(r.message, "no decode pool"));
}

TEST_CASE("a disaggregated deploy round-trips through the command log; an aggregated one has no decode key") {
  auto split = split_deploy(1, 2, serving::KvLinkKind::kEthernet);
  split.decode->recipe.tensor_parallel = 2;
  const auto j = game::to_json(game::Command{split});
  CHECK(j.at("decode").at("link") == "ethernet");
  auto log = game::parse_command_log("{\"at_hour\": 3, " + j.dump().substr(1) + "\n", "log.jsonl");
  REQUIRE(log.size() == 1);
  const auto* back = std::get_if<game::Deploy>(&log.front().command);
  REQUIRE(back);
  REQUIRE(back->decode);
  CHECK(*back->decode == *split.decode);
  // Aggregated logs are written as before.
  CHECK_FALSE(game::to_json(game::Command{game::Deploy{"gpt-oss-120b", "h200", {}, 1, {}, {}}}).contains("decode"));
  // A bad link is an error naming the field.
  CHECK_THROWS_WITH_AS(game::parse_command_log(R"({"at_hour": 0, "type": "deploy", "model": "gpt-oss-120b", )"
                                               R"("chip": "h200", "decode": {"chip": "b200", "link": "pigeon"}})",
                                               "log.jsonl"),
                       doctest::Contains("/decode/link"), data::LoadError);
}

TEST_CASE("a saved disaggregated game loads and continues exactly; a tampered decode pool is refused") {
  Recorder rec;
  auto g = split_game(rec);
  REQUIRE(g.apply(game::RentGpus{"h200", Contract::kOnDemand, 1}).ok);
  REQUIRE(g.apply(game::RentGpus{"b200", Contract::kOnDemand, 2}).ok);
  REQUIRE(g.apply(split_deploy(1, 2)).ok);
  g.advance(3);
  const std::string text = game::save_text(g);
  auto saved = game::load_save_text(text, "game.save", test::catalog());
  CHECK(saved.state.company.deployments == g.state().company.deployments);
  REQUIRE(saved.state.company.deployments.front().decode);
  game::GameOptions o;
  o.windows = std::make_shared<game::ServingWindows>(Recorder{});
  game::Game resumed(std::move(saved.scenario), std::move(saved.state), test::catalog(), o);
  CHECK(game::save_text(resumed) == text);
  g.run_to_end();
  resumed.run_to_end();
  CHECK(game::save_text(resumed) == game::save_text(g));

  // NVLink from H200 to B200, with the checksum recomputed: refused at the decode pool's pointer.
  auto j = nlohmann::json::parse(text);
  auto& dj = j.at("payload").at("state").at("company").at("deployments").at(0).at("decode");
  REQUIRE(dj.at("link") == "infiniband");
  dj["link"] = "nvlink";
  j["checksum"] = game::checksum_of(j["payload"].dump());
  std::string error;
  try {
    game::load_save_text(j.dump(), "game.save", test::catalog());
  } catch (const game::SaveError& e) {
    error = e.what();
  }
  INFO(error);
  CHECK(contains(error, "/company/deployments/0/decode"));
  CHECK(contains(error, "different chips"));
}

TEST_CASE("the advisor makes no proposals for a disaggregated deployment") {
  Recorder rec;
  auto g = split_game(rec);
  REQUIRE(g.apply(game::RentGpus{"h200", Contract::kOnDemand, 1}).ok);
  REQUIRE(g.apply(game::RentGpus{"b200", Contract::kOnDemand, 2}).ok);
  REQUIRE(g.apply(split_deploy(1, 2)).ok);
  advisor::Chien chien(test::catalog(), g.scenario(), advisor::CodeChangeCatalog{}, advisor::AdvisorOptions{});
  g.advance(1);
  // No profile, which every proposal starts from.
  CHECK(chien.profile_all(g.state()).empty());
  // An aggregated deployment of the same model beside it has one.
  REQUIRE(g.apply(game::RentGpus{"h200", Contract::kOnDemand, 1}).ok);
  REQUIRE(g.apply(game::Deploy{"gpt-oss-120b", "h200", std::string("chat"), 1, {}, {}}).ok);
  g.advance(1);
  const auto profiles = chien.profile_all(g.state());
  REQUIRE(profiles.size() == 1);
  CHECK(profiles.front().deployment_id == 2);
}
