// A command log plus the scenario and seed replays a game exactly; logs are strict JSONL.
#include <doctest/doctest.h>

#include <filesystem>
#include <memory>

#include "sim/data/json_reader.h"
#include "sim/game/command.h"
#include "sim/game/game.h"
#include "sim/game/save.h"
#include "sim/game/state_json.h"
#include "sim/game/summary.h"
#include "tests/game_test_util.h"

using namespace tycoon;

namespace {

using test::contains;

// A short game touching every kind of command.
void play(game::Game& g) {
  g.apply(game::RentGpus{"h200", Contract::kOnDemand, 2});
  g.apply(game::Deploy{"gpt-oss-120b", "h200", {}, 2, {}, {}});
  g.advance(3);
  g.apply(game::RentGpus{"h200", Contract::kSpot, 2});
  g.apply(game::ScaleReplicas{1, 4, {}});
  g.apply(game::Advance{2});
  game::ChangeRecipe c{1, {}};
  c.recipe.spec_draft_tokens = 3;
  g.apply(c);
  g.apply(game::SetPrices{"gpt-oss-120b", 0.2, {}, 0.7});
  g.advance(4);
  g.apply(game::ReleaseGpus{2, 1});
  g.apply(game::RentGpus{"b200", Contract::kOnDemand, 1});  // refused: not on the market
  g.apply(game::Undeploy{1});
  g.run_to_end();
}

}  // namespace

TEST_CASE("every command survives a JSONL round trip") {
  std::vector<game::LoggedCommand> log = {
      {0, game::RentGpus{"h200", Contract::kReserved, 4}},
      {0, game::ReleaseGpus{3, 2}},
      {1, game::ReleaseGpus{3, std::nullopt}},
      {1, game::Deploy{"gpt-oss-120b", "h200", std::string("chat"), 2, {}, {}}},
      {2, game::Undeploy{1}},
      {2, game::ScaleReplicas{2, 5, {}}},
      {3, game::SetPrices{"gpt-oss-120b", 0.1, std::nullopt, 0.5}},
      {3, game::AcceptAdvice{"a-1"}},
      {3, game::RejectAdvice{"a-2"}},
      {4, game::Advance{24}},
  };
  game::ChangeRecipe c{2, {}};
  c.recipe.precision = Precision::kFp8;
  c.recipe.prefix_caching = false;
  c.recipe.router = serving::RouterKind::kPrefixAffinity;
  log.push_back({5, c});
  auto text = game::to_jsonl(log);
  auto back = game::parse_command_log(text, "log.jsonl");
  REQUIRE(back.size() == log.size());
  CHECK(game::to_jsonl(back) == text);
  for (std::size_t i = 0; i < log.size(); ++i) CHECK(back[i].command.index() == log[i].command.index());
}

TEST_CASE("command logs are strict: errors name the line and the JSON pointer") {
  auto error = [](const std::string& text) {
    try {
      game::parse_command_log(text, "log.jsonl");
    } catch (const data::LoadError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(contains(error("{\"at_hour\": 0, \"type\": \"rent_gpu\", \"chip\": \"h200\"}"), "log.jsonl:1: /type"));
  CHECK(contains(error("# comment\n\n{\"at_hour\": 0, \"type\": \"advance\", \"hours\": 2, \"extra\": 1}"),
                 "log.jsonl:3: /extra: unknown key"));
  CHECK(contains(error("{\"at_hour\": 5, \"type\": \"advance\", \"hours\": 1}\n{\"at_hour\": 4, \"type\": "
                       "\"advance\", \"hours\": 1}"),
                 "goes back in time"));
  CHECK(contains(error("{\"at_hour\": 0, \"type\": \"rent_gpus\", \"chip\": \"h200\", \"contract\": \"lease\", "
                       "\"num_gpus\": 1}"),
                 "/contract"));
  CHECK(contains(error("{not json"), "log.jsonl:1"));
}

TEST_CASE("a folder given as a command log is refused, not played as an empty log") {
  // `run --commands DIR` once read a folder as an empty file and played the game
  // with no command at all, reporting nothing wrong.
  const auto dir = std::filesystem::temp_directory_path() / "tycoon-test-log-folder";
  std::filesystem::create_directories(dir);
  std::string msg = "no error";
  try {
    game::read_command_log(dir);
  } catch (const data::LoadError& e) {
    msg = e.what();
  }
  CHECK(contains(msg, dir.string()));
  CHECK(contains(msg, "is a folder, not a command log"));
  std::filesystem::remove(dir);
}

TEST_CASE("replaying a game's log on a fresh game reproduces it exactly") {
  auto make = [] {
    auto j = test::flat_scenario_json(3.0);
    j["market"][2]["interruptions_per_hour"] = 0.2;  // spot draws exercise the market stream
    j["segments"][0]["demand_noise"] = 0.1;          // and noise the demand stream
    j["segments"][0]["demand"]["diurnal_amplitude"] = 0.3;
    game::GameOptions o;
    o.windows = test::fixed_capacity_windows(2.0);
    return game::Game(test::scenario_from(j), test::catalog(), o);
  };
  auto original = make();
  play(original);
  auto replayed = make();
  auto refused = game::replay(replayed, original.state().log);
  CHECK(game::to_json(replayed.state()) == game::to_json(original.state()));
  CHECK(replayed.state().log.size() == original.state().log.size());
  // The replay reports exactly the commands the original game refused (each left a "Refused"
  // news item), with their place in the log; play() sends at least one on purpose (renting a
  // chip that is not on the market).
  std::vector<std::string> refused_news;
  for (const auto& n : original.state().news) {
    if (n.text.rfind("Refused ", 0) == 0) refused_news.push_back(n.text);
  }
  REQUIRE(refused.size() == refused_news.size());
  bool b200_reported = false;
  for (std::size_t i = 0; i < refused.size(); ++i) {
    INFO(refused[i].message);
    CHECK(refused[i].index < original.state().log.size());
    CHECK(contains(refused_news[i], refused[i].message.substr(refused[i].message.find(": ") + 2)));
    b200_reported =
        b200_reported || (contains(refused[i].message, "rent_gpus") && contains(refused[i].message, "b200"));
  }
  CHECK(b200_reported);

  SUBCASE("through a JSONL file") {
    auto again = make();
    game::replay(again, game::parse_command_log(game::to_jsonl(original.state().log), "log.jsonl"));
    CHECK(game::to_json(again.state()).dump() == game::to_json(original.state()).dump());
  }
  SUBCASE("another seed gives another world") {
    auto j = test::flat_scenario_json(3.0);
    j["segments"][0]["demand_noise"] = 0.1;
    game::GameOptions o;
    o.windows = test::fixed_capacity_windows(2.0);
    o.seed = 99;
    game::Game other(test::scenario_from(j), test::catalog(), o);
    game::replay(other, original.state().log);
    CHECK(other.state().history[game::Series::kRequestsOffered] !=
          original.state().history[game::Series::kRequestsOffered]);
  }
}

TEST_CASE("a log played in parts, the game saved and loaded between them, ends like one replay") {
  // replay_until stops before a cut hour; the save's game continues with the rest of the log. The
  // cuts fall between commands, on an hour with commands (5: the spot rental and the scale-up),
  // and the log has a command past the game's end (refused in both).
  auto make = [] {
    auto j = test::flat_scenario_json(3.0);
    j["market"][2]["interruptions_per_hour"] = 0.2;
    j["segments"][0]["demand_noise"] = 0.1;
    game::GameOptions o;
    o.windows = test::fixed_capacity_windows(2.0);
    return std::make_unique<game::Game>(test::scenario_from(j), test::catalog(), o);
  };
  auto original = make();
  play(*original);
  auto log = original->state().log;
  log.push_back({500, game::SetPrices{"gpt-oss-120b", 0.3, {}, {}}});  // after the 48-hour game
  auto straight = make();
  const auto refused_straight = game::replay(*straight, log);

  auto part = make();
  std::size_t next = 0;
  std::vector<game::RefusedCommand> refused;
  for (std::int64_t cut : {2, 5, 30}) {
    auto r = game::replay_until(*part, log, next, cut);
    refused.insert(refused.end(), r.begin(), r.end());
    CHECK(part->state().hour == cut);
    // Every command before the cut is played, none at or after it.
    CHECK((next == log.size() || log[next].at_hour >= cut));
    CHECK((next == 0 || log[next - 1].at_hour < cut));
    auto saved = game::load_save_text(game::save_text(*part), "cut.save", test::catalog());
    game::GameOptions o;
    o.windows = test::fixed_capacity_windows(2.0);
    part = std::make_unique<game::Game>(std::move(saved.scenario), std::move(saved.state), test::catalog(), o);
  }
  auto r = game::replay(*part, log, next);
  refused.insert(refused.end(), r.begin(), r.end());
  CHECK(game::save_text(*part) == game::save_text(*straight));
  REQUIRE(refused.size() == refused_straight.size());
  for (std::size_t i = 0; i < refused.size(); ++i) {
    CHECK(refused[i].index == refused_straight[i].index);
    CHECK(refused[i].message == refused_straight[i].message);
  }
  CHECK(contains(refused.back().message, "the game ended"));
}

TEST_CASE("with the serving simulator, the same seed and commands give the same bytes") {
  // One day of the tutorial-sized market on the discrete-event simulator, twice, with separate
  // window caches: the summaries (wall time aside) and the states are identical.
  auto make = [] {
    auto j = test::flat_scenario_json(1.0);
    j["days"] = 1;
    j["serving"] = {{"window_s", 60}, {"warmup_s", 20}};
    j["segments"][0]["demand"]["diurnal_amplitude"] = 0.3;
    j["segments"][0]["demand_noise"] = 0.05;
    j["market"][2]["interruptions_per_hour"] = 0.05;
    return game::Game(test::scenario_from(j), test::catalog());
  };
  auto a = make();
  a.apply(game::RentGpus{"h200", Contract::kSpot, 2});
  a.apply(game::Deploy{"gpt-oss-120b", "h200", {}, 2, {}, {}});
  a.run_to_end();
  auto b = make();
  game::replay(b, a.state().log);
  CHECK(game::to_json(game::summarize(a)).dump() == game::to_json(game::summarize(b)).dump());
  CHECK(game::to_json(a.state()).dump() == game::to_json(b.state()).dump());
  CHECK(a.state().service.requests_completed > 0);
}

TEST_CASE("every command of a replayed log is applied or refused with a reason, and counted") {
  auto make = [] {
    game::GameOptions o;
    o.windows = test::fixed_capacity_windows(2.0);
    auto j = test::flat_scenario_json(3.0);
    j["days"] = 3;  // hour 72 is its end
    return game::Game(test::scenario_from(j), test::catalog(), o);
  };
  const std::vector<game::LoggedCommand> log = {
      {0, game::RentGpus{"h200", Contract::kOnDemand, 1}},
      {10, game::SetPrices{"gpt-oss-120b", 0.3, {}, {}}},
      {48, game::SetPrices{"gpt-oss-120b", 0.4, {}, {}}},
      {100, game::SetPrices{"gpt-oss-120b", 0.5, {}, {}}},  // after the end
  };

  SUBCASE("a command after the game's end is refused, not dropped silently") {
    auto g = make();
    auto refused = game::replay(g, log);
    REQUIRE(refused.size() == 1);
    CHECK(refused[0].index == 3);
    CHECK(contains(refused[0].message, "set_prices: the game ended at hour 72"));
  }
  SUBCASE("a resumed game replays only the commands from its hour on") {
    // Resuming at hour 48 with the log from hour 0 used to re-apply the hour-0 and hour-10
    // commands at hour 48 (renting a second GPU, setting the old price).
    auto g = make();
    g.advance(48);
    const auto log_before = g.state().log.size();
    auto refused = game::replay(g, log);
    REQUIRE(refused.size() == 3);
    CHECK(refused[0].index == 0);
    CHECK(contains(refused[0].message, "rent_gpus: hour 0 is before the game's hour 48 (already played"));
    CHECK(refused[1].index == 1);
    CHECK(refused[2].index == 3);
    CHECK(g.state().company.contracts.empty());     // the hour-0 rental was not re-applied
    CHECK(g.state().log.size() == log_before + 1);  // only the hour-48 price was applied
    CHECK(g.state().company.prices.at("gpt-oss-120b").input_usd_per_mtok == 0.4);
  }
}
