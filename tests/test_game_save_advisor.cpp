// One source of truth: the advisor's memory is part of the GameState, so a game saved
// and loaded at any hour — advisor attached, proposals checked and decided — ends byte for byte
// like the uninterrupted game. And the hidden truths it holds reach no client view and no
// readable line of a save.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>

#include "sim/advisor/advisor.h"
#include "sim/advisor/code_change_catalog.h"
#include "sim/game/rng.h"
#include "sim/game/save.h"
#include "sim/game/state_json.h"
#include "tests/advisor_test_util.h"
#include "tests/test_common.h"

using namespace tycoon;

namespace {

using test::contains;

std::shared_ptr<advisor::Chien> chien_for(const game::Game& g) {
  return std::make_shared<advisor::Chien>(test::catalog(), g.scenario(),
                                          advisor::load_code_change_catalog_from_root(TYCOON_SOURCE_DIR),
                                          test::fast_advisor_options());
}

// A player who checks every proposal with a benchmark and decides once it is ready (accepts a
// measured gain of 2% or more with no flag): decisions and checks depend on the advisor's records
// and check stream, which is what a save used to lose.
void play_hour(game::Game& g) {
  std::vector<std::string> pending;
  for (const auto& a : g.state().inbox) {
    if (a.status == game::AdviceStatus::kPending) pending.push_back(a.id);
  }
  for (const auto& id : pending) {
    const game::Advice* a = nullptr;
    for (const auto& x : g.state().inbox) {
      if (x.id == id) a = &x;
    }
    if (a->checks.empty()) {
      if (!g.apply(game::CheckAdvice{id, game::AdviceCheckKind::kBenchmark}).ok) g.apply(game::RejectAdvice{id});
      continue;
    }
    const auto c = a->checks.back();
    if (!c.ready(g.state().hour)) continue;
    if (c.measured_speedup < 1.02 || c.quality_flag || c.rejection_flag || !g.apply(game::AcceptAdvice{id}).ok) {
      g.apply(game::RejectAdvice{id});
    }
  }
  g.step();
}

std::unique_ptr<game::Game> new_game(std::uint64_t seed) {
  game::GameOptions o;
  o.seed = seed;
  auto g = std::make_unique<game::Game>(test::advisor_market(1), test::catalog(), o);
  g->set_advisor(chien_for(*g));
  return g;
}

struct Ending {
  std::string save;     // the final save file's bytes
  std::string summary;  // tycoon run --json's summary with the advisor's debrief
};

// The serving-window cache's counters (hits, windows simulated) describe this process's cache,
// which a loaded game starts empty: they are not the game's and are left out of the comparison.
nlohmann::json without_cache_counters(nlohmann::json summary) {
  summary.erase("serving_window_cache_hits");
  summary.erase("serving_windows_simulated");
  return summary;
}

Ending ending(const game::Game& g) {
  return {game::save_text(g), without_cache_counters(advisor::run_summary_json(g, true, 0)).dump()};
}

}  // namespace

TEST_CASE("save and load at a random hour, advisor attached, ends byte for byte like the uninterrupted game") {
  // Three seeds; each picks its own save hour (after the advisor's first proposals at hour 2 and
  // before the end at 24) from a stream of its own, so the cut lands while proposals wait, checks
  // run and decisions are pending.
  for (std::uint64_t seed : {11ull, 12ull, 13ull}) {
    CAPTURE(seed);
    boost::random::mt19937_64 pick(game::derive_seed(seed, "test-save-hour"));
    const std::int64_t cut = 3 + static_cast<std::int64_t>(pick() % 19);  // hours 3..21
    CAPTURE(cut);

    auto straight_game = new_game(seed);
    auto& straight = *straight_game;
    while (!straight.finished()) play_hour(straight);

    auto first_game = new_game(seed);
    auto& first = *first_game;
    while (first.state().hour < cut) play_hour(first);
    const std::string text = game::save_text(first);
    // The cut is where it matters: the advisor has posted, and its memory is in the save.
    REQUIRE_FALSE(first.state().inbox.empty());
    REQUIRE(first.state().advisor.next_id > 1);
    auto data = game::load_save_text(text, "cut.save", test::catalog());
    game::Game resumed(std::move(data.scenario), std::move(data.state), test::catalog());
    resumed.set_advisor(chien_for(resumed));  // a fresh advisor: everything it remembers came from the save
    while (!resumed.finished()) play_hour(resumed);

    const auto a = ending(straight), b = ending(resumed);
    REQUIRE(straight.state().advisor.records.size() >= 2);  // the test covers more than one proposal
    CHECK(a.summary == b.summary);
    CHECK(a.save == b.save);
    // Proposal ids stay unique across the cut (the bug: a second "Chien-1" after loading).
    std::set<std::string> ids;
    for (const auto& x : resumed.state().inbox) CHECK(ids.insert(x.id).second);
  }
}

TEST_CASE("the advisor's hidden truths reach neither a client view nor a readable line of the save") {
  auto owned = new_game(21);
  auto& g = *owned;
  while (g.state().hour < 8) play_hour(g);
  REQUIRE(g.state().advisor.records.size() >= 1);
  const auto& rec = g.state().advisor.records.front();

  const std::string view = game::player_view_json(g.state()).dump();
  CHECK_FALSE(contains(view, "\"advisor\""));
  CHECK_FALSE(contains(view, "true_speedup"));
  CHECK_FALSE(contains(view, "propose_rng"));

  const std::string text = game::save_text(g);
  CHECK_FALSE(contains(text, "true_speedup"));
  CHECK_FALSE(contains(text, "\"trait\""));
  CHECK_FALSE(contains(text, "check_rng"));
  // The true effect of the first proposal is nowhere readable (a check's own reputation share is
  // public, 0 unless a canary hit customers: only a record's non-zero share would be the truth).
  CHECK_FALSE(contains(text, "\"speedup\": " + nlohmann::json(rec.true_speedup).dump()));
  if (rec.reputation_hit > 0) CHECK_FALSE(contains(text, nlohmann::json(rec.reputation_hit).dump()));
  // ... yet it is all there: the loaded state has the same records, truth included.
  auto data = game::load_save_text(text, "g.save", test::catalog());
  CHECK(data.state.advisor.records == g.state().advisor.records);
  CHECK(data.state.advisor.next_id == g.state().advisor.next_id);
  CHECK(data.state.advisor.proposed == g.state().advisor.proposed);
  CHECK(data.state.inbox.front().effect.speedup == g.state().inbox.front().effect.speedup);
}

TEST_CASE("an accepted change's true effect and a check not yet ready are sealed in the save, as in the view") {
  // Accept the first code change and order a benchmark of the next proposal: the deployment now
  // runs with the change's true speedup, and the benchmark's results are stored the hour it is
  // bought but shown only from its ready hour. Neither may be readable in the save's text (a
  // browser export, a class hand-in) any more than in player_view_json.
  auto owned = new_game(21);
  auto& g = *owned;
  while (g.state().inbox.size() < 2 && g.state().hour < 48) g.step();
  REQUIRE(g.state().inbox.size() >= 2);
  const auto accepted = g.state().inbox[0].id, checked = g.state().inbox[1].id;
  REQUIRE(g.apply(game::AcceptAdvice{accepted}).ok);
  REQUIRE(g.apply(game::CheckAdvice{checked, game::AdviceCheckKind::kBenchmark, 0}).ok);
  const auto& inbox = g.state().inbox;
  const auto it = std::find_if(inbox.begin(), inbox.end(), [&](const auto& a) { return a.id == checked; });
  REQUIRE(it != inbox.end());
  const auto* check = &it->checks.back();
  REQUIRE(check->ready_at_hour > g.state().hour);  // not ready: its results are the truth to come

  const std::string text = game::save_text(g);
  const std::string view = game::player_view_json(g.state()).dump();
  const std::string measured = "\"measured_speedup\": " + nlohmann::json(check->measured_speedup).dump();
  for (const std::string& shown : {text, view}) {
    CHECK_FALSE(contains(shown, measured));
    CHECK_FALSE(contains(shown, "\"verdict\""));
  }
  const auto state = nlohmann::json::parse(text)["payload"]["state"];
  for (const auto& d : state["company"]["deployments"]) CHECK_FALSE(d.contains("speedup"));
  // ... and all of it comes back on loading: the same state, so the same game from here on.
  auto data = game::load_save_text(text, "g.save", test::catalog());
  CHECK(data.state.company.deployments == g.state().company.deployments);
  CHECK(game::to_json(data.state) == game::to_json(g.state()));
}

TEST_CASE("a sealed text unseals only with its own seed, and a damaged seal is a corrupted save") {
  const std::string text = R"({"advisor": {"x": 1}})";
  const auto sealed = game::seal(text, 42);
  CHECK(sealed.size() == 2 * text.size());  // hex: two digits a byte
  CHECK_FALSE(contains(sealed, "advisor"));
  CHECK(game::unseal(sealed, 42) == text);
  CHECK(game::unseal(sealed, 43) != text);
  CHECK_FALSE(game::unseal("abc", 42).has_value());  // odd length
  CHECK_FALSE(game::unseal("zz", 42).has_value());   // not hex

  auto owned = new_game(21);
  auto& g = *owned;
  while (g.state().hour < 4) play_hour(g);
  auto j = nlohmann::json::parse(game::save_text(g));
  j["payload"]["sealed"] = game::seal(R"({"advisor": {}, "effects": []})", g.state().seed);
  j["checksum"] = game::checksum_of(j["payload"].dump());
  std::string msg;
  try {
    game::load_save_text(j.dump(), "g.save", test::catalog());
  } catch (const game::SaveError& e) {
    msg = e.what();
  }
  CHECK(contains(msg, "/payload/sealed: one effect per inbox item expected"));
}
