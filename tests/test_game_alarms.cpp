// Alarms: news that stops the clock, naming its cause when the game knows it.
#include <doctest/doctest.h>

#include <set>

#include "sim/advisor/bots.h"
#include "sim/game/state_json.h"
#include "tests/advisor_test_util.h"

using namespace tycoon;

namespace {

std::vector<game::NewsItem> alarms_of(const game::GameState& s, game::AlarmKind kind) {
  std::vector<game::NewsItem> out;
  for (const auto& n : s.news) {
    if (n.alarm == kind) out.push_back(n);
  }
  return out;
}

std::unique_ptr<game::Game> advised_market(std::uint64_t seed) {
  game::GameOptions o;
  o.seed = seed;
  auto g = std::make_unique<game::Game>(test::advisor_market(), test::catalog(), o);
  g->set_advisor(std::make_shared<advisor::Chien>(test::catalog(), g->scenario(),
                                                  advisor::load_code_change_catalog_from_root(TYCOON_SOURCE_DIR),
                                                  test::fast_advisor_options()));
  return g;
}

}  // namespace

TEST_CASE("a new proposal raises an alarm at the hour it is posted, naming it") {
  auto owned = advised_market(11);
  auto& g = *owned;
  g.advance(3);
  REQUIRE(!g.state().inbox.empty());
  const auto& first = g.state().inbox.front();
  auto alarms = alarms_of(g.state(), game::AlarmKind::kNewProposal);
  REQUIRE(!alarms.empty());
  CHECK(alarms.front().at_hour == first.posted_at_hour);
  CHECK(alarms.front().text.find(first.id) != std::string::npos);
}

TEST_CASE("cutting capacity under load: the SLO alarm names the player's change as the cause") {
  // Eight replicas serve this market at 24% SLO attainment (its SLO is tight); one replica serves
  // an eighth of the load, so attainment falls to about 1% in the next hour: more than halved.
  auto owned = advised_market(11);
  auto& g = *owned;
  g.advance(4);
  REQUIRE(g.apply(game::ScaleReplicas{1, 1, {}}).ok);
  g.advance(2);
  auto alarms = alarms_of(g.state(), game::AlarmKind::kSloDrop);
  REQUIRE(!alarms.empty());
  CHECK(alarms.front().at_hour == 4);
  CHECK(alarms.front().text.find("after you cut capacity at hour 4") != std::string::npos);
}

TEST_CASE("news carries its tone from where the game wrote it, and a save keeps it") {
  // The front ends colour news by its tone, never by its words: an SLO alarm is a warning, a
  // proposal is the advisor's, a refused command a loss, plain news (a command done) is news.
  auto owned = advised_market(11);
  auto& g = *owned;
  g.advance(4);
  REQUIRE(g.apply(game::ScaleReplicas{1, 1, {}}).ok);
  g.advance(2);
  REQUIRE_FALSE(g.apply(game::ScaleReplicas{99, 1, {}}).ok);  // no deployment 99
  auto tone_of = [&](auto pick) {
    for (const auto& n : g.state().news) {
      if (pick(n)) return std::optional<game::NewsTone>(n.tone);
    }
    return std::optional<game::NewsTone>();
  };
  CHECK(tone_of([](const game::NewsItem& n) { return n.alarm == game::AlarmKind::kSloDrop; }) ==
        game::NewsTone::kWarning);
  CHECK(tone_of([](const game::NewsItem& n) { return n.alarm == game::AlarmKind::kNewProposal; }) ==
        game::NewsTone::kAdvice);
  CHECK(tone_of([](const game::NewsItem& n) { return n.text.rfind("Refused", 0) == 0; }) == game::NewsTone::kLoss);
  CHECK(tone_of([](const game::NewsItem& n) { return n.text.find("scaled to 1 replicas") != std::string::npos; }) ==
        game::NewsTone::kInfo);
  const auto back = game::game_state_from_json(game::to_json(g.state()), "test", "");
  REQUIRE(back.news.size() == g.state().news.size());
  for (std::size_t i = 0; i < back.news.size(); ++i) CHECK(back.news[i].tone == g.state().news[i].tone);
}

TEST_CASE("a paid check raises an alarm when its result is ready") {
  auto owned = advised_market(11);
  auto& g = *owned;
  g.advance(3);
  const std::string id = g.state().inbox.front().id;
  REQUIRE(g.apply(game::CheckAdvice{id, game::AdviceCheckKind::kBenchmark}).ok);
  const auto ready = g.state().inbox.front().checks.back().ready_at_hour;
  g.advance(ready - g.state().hour);
  auto alarms = alarms_of(g.state(), game::AlarmKind::kCheckReady);
  REQUIRE(alarms.size() == 1);
  CHECK(alarms.front().at_hour == ready);
  CHECK(alarms.front().text.find(id) != std::string::npos);
}

TEST_CASE("alarms survive a save: the kind is written and read back") {
  auto owned = advised_market(11);
  auto& g = *owned;
  g.advance(3);
  const auto j = game::to_json(g.state());
  const auto back = game::game_state_from_json(j, "test.json", "");
  CHECK(back.news == g.state().news);
}

TEST_CASE("a save whose news carries an unknown alarm kind is refused, naming the field") {
  auto owned = advised_market(11);
  auto& g = *owned;
  g.advance(3);
  auto j = game::to_json(g.state());
  REQUIRE(!j["news"].empty());
  j["news"][0]["alarm"] = "meteor_strike";
  try {
    (void)game::game_state_from_json(j, "bad-save.json", "");
    FAIL("an unknown alarm kind was accepted");
  } catch (const data::LoadError& e) {
    const std::string what = e.what();
    CHECK(what.find("bad-save.json") != std::string::npos);
    CHECK(what.find("/news/0/alarm") != std::string::npos);
  }
}

TEST_CASE(
    "balance of interruptions: a new player's week of level 1 at 16x stops the clock at most 12 times, no alarm nags") {
  // Once, 20 proposals and the same SLO alarm seven times stopped level 1's clock every few
  // hours. A scripted new player (the reference strategy, every proposal benchmarked and decided
  // on its verdict) plays the whole level; the clock stops once per hour with an alarm of a kind
  // that pauses by default (game::kAlarmPausesByDefault; minor claims go to the digest instead).
  constexpr std::size_t kMaxStops = 12;
  auto scenario =
      game::load_scenario(game::find_scenario("campaign-01-thin-margin", TYCOON_SOURCE_DIR), test::catalog());
  REQUIRE(scenario.days == 7);
  game::Game g(scenario, test::catalog());
  auto chien = std::make_shared<advisor::Chien>(test::catalog(), scenario,
                                                advisor::load_code_change_catalog_from_root(TYCOON_SOURCE_DIR));
  advisor::BotOptions bo;
  bo.script = &scenario.reference_strategy->commands;
  advisor::play_bot(g, chien, advisor::BotPolicy::kVerifyThenDecide, bo);
  std::set<std::int64_t> stops;
  for (const auto& n : g.state().news) {
    if (n.alarm && game::kAlarmPausesByDefault[static_cast<std::size_t>(*n.alarm)]) stops.insert(n.at_hour);
  }
  INFO("the clock stopped at " << stops.size() << " hours");
  CHECK(stops.size() <= kMaxStops);
  CHECK(stops.size() >= 3);  // the proposals worth a decision still stop it

  // Hysteresis: a second SLO alarm only after attainment came back to 93% or fell into a worse band.
  const auto& slo = g.state().history[game::Series::kSloAttainment];
  std::optional<std::int64_t> last;
  for (const auto& n : alarms_of(g.state(), game::AlarmKind::kSloDrop)) {
    if (last) {
      bool recovered = false;
      for (auto h = *last + 1; h < n.at_hour; ++h) recovered = recovered || slo[static_cast<std::size_t>(h)] >= 0.93;
      auto band = [](double x) { return x >= 0.9 ? 0 : x >= 0.5 ? 1 : 2; };
      CHECK((recovered || band(slo[static_cast<std::size_t>(n.at_hour)]) > band(slo[static_cast<std::size_t>(*last)])));
    }
    last = n.at_hour;
  }
}
