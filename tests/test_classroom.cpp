// The classroom kit (sim/classroom/): a class file an instructor writes, submissions students
// export, and the report that replays every submission, rejects what does not hold up and ranks
// the rest. The whole class at once: twenty simulated students with different strategies,
// two submissions tampered with, eighteen ranked and two rejected with their reasons.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>

#include "sim/advisor/advisor.h"
#include "sim/advisor/bots.h"
#include "sim/classroom/class_code.h"
#include "sim/classroom/class_report.h"
#include "sim/classroom/class_spec.h"
#include "sim/classroom/submission.h"
#include "sim/data/json_reader.h"
#include "sim/game/rng.h"
#include "sim/game/save.h"
#include "tests/game_test_util.h"

using namespace tycoon;
namespace fs = std::filesystem;

namespace {

// The class of the big test: the prices-only classroom scenario cut to two days, so twenty
// students, their replays and the two benchmarks stay within seconds.
constexpr int kClassDays = 2;
constexpr std::uint64_t kClassSeed = 4242;
constexpr int kNumStudents = 20;
constexpr int kNumRandomPlayers = kNumStudents - 3;  // besides do-nothing, the reference and the naive script
// The score separates strategies: different strategies never tie exactly, and the class spans at
// least this many of the 100 points (a score that gave everyone full marks would span none).
constexpr double kMinScoreSpreadPoints = 50;

game::Scenario prices_only() {
  return game::load_scenario(game::find_scenario("classroom-prices-only", TYCOON_SOURCE_DIR), test::catalog());
}

fs::path fresh_dir(const std::string& name) {
  auto dir = fs::temp_directory_path() / ("tycoon-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write_class_file(const fs::path& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

// A student who sets prices at random: every `period` hours, a multiple of the market's list price
// drawn from [0.6, 1.6] for all three token types. Some also try to rent GPUs, which the class
// (the scenario's locks) refuses: refused commands are part of the log and replay the same way.
std::vector<game::LoggedCommand> random_price_player(const game::Scenario& s, std::uint64_t seed, bool tries_fleet) {
  boost::random::mt19937_64 rng(seed);
  boost::random::uniform_real_distribution<double> factor(0.6, 1.6);
  boost::random::uniform_int_distribution<int> period_pick(0, 2);
  const int period = std::array{6, 12, 24}[period_pick(rng)];
  const auto& model = s.segments.front().model;
  const auto& list = s.reference_prices.at(model);
  std::vector<game::LoggedCommand> out;
  for (std::int64_t h = 0; h < kClassDays * 24; h += period) {
    const double f = factor(rng);
    out.push_back({h, game::SetPrices{model, list.input_usd_per_mtok * f, list.cached_input_usd_per_mtok * f,
                                      list.output_usd_per_mtok * f}});
    if (tries_fleet && h == 0) out.push_back({h, game::RentGpus{"h200", Contract::kOnDemand, 2}});
  }
  return out;
}

struct Student {
  std::string name;
  std::vector<game::LoggedCommand> commands;
};

std::vector<Student> twenty_students(const classroom::ClassWorld& world) {
  std::vector<Student> out;
  out.push_back({"Dana Nothing", {}});
  auto ref = world.scenario.reference_strategy->commands;
  out.push_back({"Rhea Reference", ref});
  out.push_back({"Nate Naive", game::read_command_log(fs::path(TYCOON_SOURCE_DIR) / "scenarios" / "strategies" /
                                                      world.scenario.id / "naive.jsonl")});
  for (int i = 0; i < kNumRandomPlayers; ++i) {
    out.push_back({"Random " + std::to_string(i + 1), random_price_player(world.scenario, 1000 + i, i % 5 == 0)});
  }
  return out;
}

nlohmann::json submit(const classroom::ClassWorld& world, const game::Counterfactuals& cf, const Student& s) {
  auto g = classroom::play_class_game(world, test::catalog(), s.commands);
  return classroom::make_submission(world, *g, cf, s.name);
}

// The counterfactuals of a class (the same for every student: same scenario, seed and length).
game::Counterfactuals class_counterfactuals(const classroom::ClassWorld& world) {
  auto probe = world.new_game(test::catalog());
  return game::run_counterfactuals(probe->scenario(), probe->state(), test::catalog(), world.options.windows,
                                   probe->advisor());
}

}  // namespace

TEST_CASE("class: a class file is written and read back, strictly") {
  const auto scenario = prices_only();
  classroom::ClassChoices c;
  c.class_id = "econ-101";
  c.title = "Econ 101: pricing";
  c.seed = kClassSeed;
  c.days = kClassDays;
  c.locked_levers = {"view_panel", "check_advice", "view_panel"};
  const auto spec = classroom::make_class(scenario, c);
  // Locks are sorted and deduplicated; the scenario locks accept_advice, so the advisor is off.
  CHECK(spec.locked_levers == std::vector<std::string>{"check_advice", "view_panel"});
  CHECK_FALSE(spec.advisor);
  CHECK(spec.scenario == "classroom-prices-only");
  CHECK(spec.scenario_hash == game::checksum_of(game::to_json(scenario).dump()));
  // Every field read back as written. Each is away from its default (advisor on, history days
  // set), so a field that the writer and the reader both dropped would show here as a default.
  classroom::ClassSpec full = spec;
  full.locked_levers = {"view_panel"};
  full.advisor = true;
  full.history_days = 3;
  const nlohmann::json expected = {{"format", "inference-tycoon-class"},
                                   {"version", 1},
                                   {"class_id", "econ-101"},
                                   {"title", "Econ 101: pricing"},
                                   {"scenario", "classroom-prices-only"},
                                   {"scenario_hash", spec.scenario_hash},
                                   {"seed", kClassSeed},
                                   {"days", kClassDays},
                                   {"locked_levers", {"view_panel"}},
                                   {"advisor", true},
                                   {"history_days", 3}};
  CHECK(classroom::to_json(full) == expected);
  const auto back = classroom::class_from_json(expected, "econ-101.json");
  CHECK(back.class_id == "econ-101");
  CHECK(back.title == "Econ 101: pricing");
  CHECK(back.scenario == "classroom-prices-only");
  CHECK(back.scenario_hash == spec.scenario_hash);
  CHECK(back.seed == kClassSeed);
  CHECK(back.days == kClassDays);
  CHECK(back.locked_levers == std::vector<std::string>{"view_panel"});
  CHECK(back.advisor);
  CHECK(back.history_days == std::optional<int>(3));

  auto expect_error = [&](nlohmann::json j, const std::string& pointer, const std::string& reason_part) {
    try {
      classroom::class_from_json(j, "econ-101.json");
      FAIL("loaded a bad class file; expected an error at " << pointer);
    } catch (const data::LoadError& e) {
      CHECK(e.file() == "econ-101.json");
      CHECK(e.pointer() == pointer);
      CHECK_MESSAGE(e.reason().find(reason_part) != std::string::npos, std::string(e.what()));
    }
  };
  auto j = classroom::to_json(spec);
  SUBCASE("an unknown key") {
    j["colour"] = "red";
    expect_error(j, "/colour", "unknown");
  }
  SUBCASE("an unknown lever") {
    j["locked_levers"] = {"set_prices", "teleport"};
    expect_error(j, "/locked_levers/1", "unknown lever 'teleport'");
  }
  SUBCASE("an id that cannot name a file") {
    j["class_id"] = "../econ";
    expect_error(j, "/class_id", "a-z");
  }
  SUBCASE("a game longer than a class") {
    j["days"] = classroom::kMaxClassDays + 1;
    expect_error(j, "/days", "at most");
  }
  SUBCASE("a negative seed") {
    j["seed"] = -1;
    expect_error(j, "/seed", "whole number");
  }
  SUBCASE("not a class file") {
    j["format"] = "inference-tycoon-save";
    expect_error(j, "/format", "not a class file");
  }
  SUBCASE("the advisor on while the class locks accepting advice") {
    j["advisor"] = true;
    j["locked_levers"] = {"accept_advice"};
    expect_error(j, "/advisor", "locks accept_advice");
  }
  SUBCASE("choices refused when the class is made") {
    classroom::ClassChoices bad = c;
    bad.advisor = true;  // the scenario locks accept_advice
    CHECK_THROWS_WITH_AS(classroom::make_class(scenario, bad), doctest::Contains("accept_advice"),
                         std::invalid_argument);
    bad = c;
    bad.locked_levers = {"recipe.nonsense"};
    CHECK_THROWS_WITH_AS(classroom::make_class(scenario, bad), doctest::Contains("recipe.nonsense"),
                         std::invalid_argument);
    bad = c;
    bad.days = 0;
    CHECK_THROWS_AS(classroom::make_class(scenario, bad), std::invalid_argument);
  }
}

TEST_CASE("class: the class's world is the scenario the class was set up with, with its seed and locks") {
  classroom::ClassChoices c;
  c.class_id = "econ-101";
  c.seed = kClassSeed;
  c.days = kClassDays;
  c.locked_levers = {"view_panel"};
  auto spec = classroom::make_class(prices_only(), c);
  const auto world = classroom::class_world(spec, "econ-101.json", test::catalog(), TYCOON_SOURCE_DIR);
  auto g = world.new_game(test::catalog());
  CHECK(g->state().seed == kClassSeed);
  CHECK(g->state().end_hour == kClassDays * 24);
  CHECK(g->scenario().lever_locked("view_panel"));  // the class's lock
  CHECK(g->scenario().lever_locked("rent_gpus"));   // the scenario's own
  CHECK_FALSE(g->apply(game::ViewPanel{"market"}).ok);

  SUBCASE("a scenario edited since the class was set up is refused") {
    spec.scenario_hash = "fnv1a64:0000000000000000";
    try {
      classroom::class_world(spec, "econ-101.json", test::catalog(), TYCOON_SOURCE_DIR);
      FAIL("accepted a changed scenario");
    } catch (const data::LoadError& e) {
      CHECK(e.pointer() == "/scenario_hash");
      CHECK(e.reason().find("has changed since the class was set up") != std::string::npos);
    }
  }
  SUBCASE("a scenario that does not exist is refused at /scenario") {
    spec.scenario = "no-such-level";
    CHECK_THROWS_AS(classroom::class_world(spec, "econ-101.json", test::catalog(), TYCOON_SOURCE_DIR), data::LoadError);
  }
}

TEST_CASE("class report: twenty students, two tampered submissions: eighteen ranked, two rejected with reasons" *
          doctest::test_suite("whole-games")) {
  const auto scenario = prices_only();
  REQUIRE(scenario.reference_strategy);
  classroom::ClassChoices c;
  c.class_id = "econ-101";
  c.title = "Econ 101: pricing a thin-margin service";
  c.seed = kClassSeed;
  c.days = kClassDays;
  const auto spec = classroom::make_class(scenario, c);
  // One serving-window cache for the whole class: every game of it shares the world.
  auto windows = std::make_shared<game::ServingWindows>();
  const auto world = classroom::class_world(spec, "econ-101.json", test::catalog(), TYCOON_SOURCE_DIR, windows);
  const auto cf = class_counterfactuals(world);

  const auto students = twenty_students(world);
  REQUIRE(students.size() == kNumStudents);
  const auto dir = fresh_dir("class-report");
  std::vector<nlohmann::json> subs;
  for (std::size_t i = 0; i < students.size(); ++i) subs.push_back(submit(world, cf, students[i]));

  // Tampering 1: a student raises the profit in the summary by $1,000 and recomputes the checksum
  // (anyone can: it is FNV-1a of the payload). Only the replay can catch it.
  const std::size_t forger = 5;
  {
    auto& p = subs[forger]["payload"];
    p["summary"]["profit_usd"] = p["summary"]["profit_usd"].get<double>() + 1000;
    subs[forger]["checksum"] = game::checksum_of(p.dump());
  }
  // Tampering 2: a student hands in a game played in another class (same scenario, another seed).
  const std::size_t stray = 9;
  {
    auto other_spec = spec;
    other_spec.class_id = "econ-102";
    other_spec.seed = kClassSeed + 1;
    const auto other = classroom::class_world(other_spec, "econ-102.json", test::catalog(), TYCOON_SOURCE_DIR, windows);
    subs[stray] = submit(other, class_counterfactuals(other), students[stray]);
  }
  for (std::size_t i = 0; i < subs.size(); ++i) {
    char name[48];
    std::snprintf(name, sizeof name, "student-%02zu.json", i + 1);
    write_class_file(dir / name, classroom::submission_text(subs[i]));
  }

  const auto files = classroom::submission_files(dir);
  REQUIRE(files.size() == kNumStudents);
  const auto report = classroom::build_class_report(world, test::catalog(), files);

  // Eighteen ranked, two rejected, each with its reason.
  REQUIRE(report.valid.size() == kNumStudents - 2);
  REQUIRE(report.rejected.size() == 2);
  CHECK(report.rejected[0].student == students[forger].name);
  CHECK(report.rejected[0].reason.find("do not reproduce its summary: profit") != std::string::npos);
  CHECK(report.rejected[1].student == students[stray].name);
  CHECK(report.rejected[1].reason.find("made for class 'econ-102'") != std::string::npos);
  MESSAGE("rejected: " << report.rejected[0].file << ": " << report.rejected[0].reason);
  MESSAGE("rejected: " << report.rejected[1].file << ": " << report.rejected[1].reason);

  // Standings: by score, best first; each ranking a permutation of 1..18.
  for (std::size_t i = 1; i < report.valid.size(); ++i) {
    CHECK(report.valid[i - 1].summary.score.points >= report.valid[i].summary.score.points);
  }
  for (auto rank : {&classroom::CheckedSubmission::rank_score, &classroom::CheckedSubmission::rank_profit,
                    &classroom::CheckedSubmission::rank_slo}) {
    std::set<int> ranks;
    for (const auto& s : report.valid) ranks.insert(s.*rank);
    CHECK(ranks.size() == report.valid.size());
    CHECK(*ranks.begin() == 1);
    CHECK(*ranks.rbegin() == static_cast<int>(report.valid.size()));
  }
  for (const auto& s : report.valid) {
    for (const auto& t : report.valid) {
      if (s.summary.profit_usd > t.summary.profit_usd) CHECK(s.rank_profit < t.rank_profit);
      if (s.summary.slo_attainment > t.summary.slo_attainment) CHECK(s.rank_slo < t.rank_slo);
    }
  }

  // The score separates strategies: eighteen different strategies, eighteen different scores,
  // spread over most of the scale.
  for (std::size_t i = 1; i < report.valid.size(); ++i) {
    CHECK_MESSAGE(report.valid[i - 1].summary.score.points > report.valid[i].summary.score.points,
                  report.valid[i - 1].student << " and " << report.valid[i].student << " tie");
  }
  CHECK(report.valid.front().summary.score.points - report.valid.back().summary.score.points >= kMinScoreSpreadPoints);
  for (const auto& s : report.valid) {
    MESSAGE(s.rank_score << ". " << s.student << ": score " << s.summary.score.points << ", profit $"
                         << s.summary.profit_usd << " (#" << s.rank_profit << "), SLO " << s.summary.slo_attainment
                         << " (#" << s.rank_slo << ")");
  }

  // The benchmarks are played on the class's seed: the student who played the reference's commands
  // and the one who did nothing land exactly on them (common random numbers).
  REQUIRE(report.benchmarks.size() == 2);
  auto find = [&](const std::string& name) {
    return std::find_if(report.valid.begin(), report.valid.end(), [&](const auto& s) { return s.student == name; });
  };
  const auto& do_nothing = report.benchmarks[0];
  const auto& reference = report.benchmarks[1];
  CHECK(do_nothing.id == "do_nothing");
  CHECK(reference.id == "reference");
  REQUIRE(find("Rhea Reference") != report.valid.end());
  REQUIRE(find("Dana Nothing") != report.valid.end());
  CHECK(find("Rhea Reference")->summary.profit_usd == doctest::Approx(reference.summary.profit_usd).epsilon(1e-12));
  CHECK(find("Dana Nothing")->summary.profit_usd == doctest::Approx(do_nothing.summary.profit_usd).epsilon(1e-12));
  // The lesson of the level: the reference (15% above the market) outscores doing nothing and the
  // naive 30% undercut.
  CHECK(find("Rhea Reference")->rank_score < find("Dana Nothing")->rank_score);
  CHECK(find("Rhea Reference")->rank_score < find("Nate Naive")->rank_score);
  // Refused commands (GPUs the scenario's locks keep out of reach) replay as refused.
  CHECK(find("Random 1")->num_refused == 1);

  // Price over time follows the student's commands: the reference sets 15% above the list price at
  // hour 0 and keeps it.
  const double list_output = scenario.reference_prices.at("gpt-oss-120b").output_usd_per_mtok;
  REQUIRE(find("Rhea Reference")->output_price_usd_per_mtok.size() == kClassDays * 24);
  CHECK(find("Rhea Reference")->output_price_usd_per_mtok.back() == doctest::Approx(1.15 * list_output));

  // The three runs to discuss: best, worst and most improved, three different students.
  REQUIRE(report.instructive.size() == 3);
  CHECK(report.instructive[0].kind == "best");
  CHECK(report.instructive[0].index == 0);
  CHECK(report.instructive[1].kind == "worst");
  CHECK(report.instructive[1].index == report.valid.size() - 1);
  CHECK(report.instructive[2].kind == "most_improved");
  const auto improved = report.instructive[2].index;
  CHECK(improved != 0);
  CHECK(improved != report.valid.size() - 1);
  for (std::size_t i = 1; i + 1 < report.valid.size(); ++i) {
    CHECK(report.valid[improved].improvement_usd_per_hour() >= report.valid[i].improvement_usd_per_hour());
  }

  // The HTML page: standings, both rejections with their reasons, the charts, nothing fetched.
  const auto html = classroom::report_html(report);
  write_class_file(dir / "report.html", html);
  for (const auto& s : report.valid) CHECK(html.find(s.student) != std::string::npos);
  CHECK(html.find("made for class &#39;econ-102&#39;") != std::string::npos);
  CHECK(html.find("do not reproduce its summary") != std::string::npos);
  CHECK(html.find("<svg") != std::string::npos);
  CHECK(html.find("Had you done nothing") != std::string::npos);
  // Self-contained: nothing to fetch, nothing to run.
  for (const char* outside : {"<script", "src=", "<link", "url(", "@import"}) {
    CHECK_MESSAGE(html.find(outside) == std::string::npos, outside);
  }
  const auto j = classroom::to_json(report);
  CHECK(j["standings"].size() == kNumStudents - 2);
  CHECK(j["rejected"].size() == 2);

  // Determinism: the same folder reports the same standings.
  const auto again = classroom::build_class_report(world, test::catalog(), files);
  CHECK(classroom::to_json(again) == j);
  fs::remove_all(dir);
}

TEST_CASE("class report: a submission edited by hand fails its checksum; a repeated student counts once") {
  classroom::ClassChoices c;
  c.class_id = "econ-101";
  c.seed = kClassSeed;
  c.days = 1;
  const auto world = classroom::class_world(classroom::make_class(prices_only(), c), "econ-101.json", test::catalog(),
                                            TYCOON_SOURCE_DIR);
  const auto cf = class_counterfactuals(world);
  const auto dir = fresh_dir("class-checksum");
  const Student ada{"Ada", random_price_player(world.scenario, 7, false)};
  auto sub = submit(world, cf, ada);
  write_class_file(dir / "a-ada.json", classroom::submission_text(sub));
  write_class_file(dir / "b-ada-again.json", classroom::submission_text(sub));
  sub["payload"]["summary"]["score"] = 99.0;  // the checksum is not recomputed
  write_class_file(dir / "c-edited.json", classroom::submission_text(sub));
  write_class_file(dir / "d-not-json.json", "{\"format\": ");

  const auto report = classroom::build_class_report(world, test::catalog(), classroom::submission_files(dir));
  REQUIRE(report.valid.size() == 1);
  CHECK(report.valid[0].file == "a-ada.json");
  REQUIRE(report.rejected.size() == 3);
  CHECK(report.rejected[0].reason.find("a second submission from 'Ada'") != std::string::npos);
  CHECK(report.rejected[1].reason.find("/checksum: does not match the contents") != std::string::npos);
  CHECK(report.rejected[2].reason.find("d-not-json.json") != std::string::npos);
  for (const auto& r : report.rejected) MESSAGE(r.file << ": " << r.reason);
  // Only one student ranked: no worst or most improved to tell apart from the best.
  CHECK(report.instructive.size() == 1);
  fs::remove_all(dir);
}

TEST_CASE("class report: in a class with the advisor, the advice bots' submissions replay with their calls" *
          doctest::test_suite("whole-games")) {
  // Campaign level 1 leaves accept_advice open: the class plays with Chien, and a submission's
  // accept/reject/check commands must replay against the same proposals. One day keeps it short.
  const auto scenario =
      game::load_scenario(game::find_scenario("campaign-01-thin-margin", TYCOON_SOURCE_DIR), test::catalog());
  REQUIRE_FALSE(scenario.lever_locked("accept_advice"));
  classroom::ClassChoices c;
  c.class_id = "ops-201";
  c.days = 1;
  const auto spec = classroom::make_class(scenario, c);
  CHECK(spec.advisor);  // on by default when accepting advice is open
  const auto world = classroom::class_world(spec, "ops-201.json", test::catalog(), TYCOON_SOURCE_DIR);
  REQUIRE(world.code_changes);
  const auto cf = class_counterfactuals(world);
  const auto dir = fresh_dir("class-advisor");
  std::size_t num_decisions = 0;
  std::map<std::string, nlohmann::json> debriefs;  // each bot's own game's debrief, after its end
  for (auto policy :
       {advisor::BotPolicy::kAcceptAll, advisor::BotPolicy::kRejectAll, advisor::BotPolicy::kVerifyThenDecide}) {
    game::Game g(world.scenario, test::catalog(), world.options);
    auto chien = std::make_shared<advisor::Chien>(test::catalog(), g.scenario(), *world.code_changes);
    advisor::BotOptions bo;
    bo.script = &g.scenario().reference_strategy->commands;
    advisor::play_bot(g, chien, policy, bo);
    for (const auto& l : g.state().log) {
      num_decisions += std::holds_alternative<game::AcceptAdvice>(l.command) ||
                       std::holds_alternative<game::RejectAdvice>(l.command);
    }
    const std::string name(advisor::to_string(policy));
    REQUIRE(g.finished());
    debriefs[name] = g.revealed_debrief();
    write_class_file(dir / (name + ".json"),
                     classroom::submission_text(classroom::make_submission(world, g, cf, name)));
  }
  const auto report = classroom::build_class_report(world, test::catalog(), classroom::submission_files(dir));
  for (const auto& r : report.rejected) MESSAGE(r.file << ": " << r.reason);
  CHECK(num_decisions > 0);  // the bots did decide on proposals: there were calls to replay
  CHECK(report.rejected.empty());
  CHECK(report.valid.size() == 3);
  for (const auto& s : report.valid) {
    MESSAGE(s.rank_score << ". " << s.student << ": score " << s.summary.score.points << ", profit $"
                         << s.summary.profit_usd);
  }

  // The per-proposal table: each student's rows are their own game's proposals, in order, with the
  // call their commands made and the truth the game's debrief revealed when it ended. Pinned: the
  // first proposal of the verify-then-decide bot, which pays for checks before it decides.
  for (const auto& s : report.valid) {
    const auto& proposals = debriefs.at(s.student)["proposals"];
    REQUIRE(s.advice_calls.size() == proposals.size());
    CHECK_FALSE(s.advice_calls.empty());  // Chien proposed in a day of campaign level 1
  }
  auto it = std::find_if(report.valid.begin(), report.valid.end(),
                         [](const classroom::CheckedSubmission& s) { return s.student == "verify-then-decide"; });
  REQUIRE(it != report.valid.end());
  const auto& row = it->advice_calls.front();
  const auto& truth = debriefs.at("verify-then-decide")["proposals"][0];
  CHECK(row.advice_id == truth["id"].get<std::string>());
  CHECK(row.posted_at_hour == truth["posted_at_hour"].get<std::int64_t>());
  CHECK(row.proposal == truth["title"].get<std::string>());
  CHECK(row.decision == truth["decision"].get<std::string>());
  CHECK(row.decision != "undecided");  // the bot decides every proposal it has time to check
  CHECK(row.verified());               // it paid for a check before deciding
  CHECK(row.decision_text().rfind("verified (", 0) == 0);
  // The truth, to the bit: the report replays the game, it does not estimate it.
  CHECK(row.true_speedup == truth["truth"]["speedup"].get<double>());
  CHECK(row.right_call == truth["right_call"].get<bool>());
  CHECK(truth["truth_text"].get<std::string>() == row.truth);
  // The accept-all bot never checks: its first call is a plain accept.
  auto accept_all = std::find_if(report.valid.begin(), report.valid.end(),
                                 [](const classroom::CheckedSubmission& s) { return s.student == "accept-all"; });
  REQUIRE(accept_all != report.valid.end());
  CHECK(accept_all->advice_calls.front().decision_text() == "accepted");
  // The HTML debrief carries the table; the JSON carries the rows.
  const auto html = classroom::report_html(report);
  CHECK(html.find("Advice calls against the truth") != std::string::npos);
  CHECK(html.find(row.advice_id) != std::string::npos);
  const auto j = classroom::to_json(report);
  CHECK(j["standings"][0]["advice_calls"].size() == report.valid[0].advice_calls.size());
  // The game's Class report screen reads that JSON back: the standings in order, each student's
  // own row with their calls counted, the benchmarks.
  const auto view = classroom::class_report_view_from_json(nlohmann::json::parse(j.dump()), "report.json");
  REQUIRE(view.standings.size() == report.valid.size());
  CHECK(view.spec.class_id == "ops-201");
  CHECK(view.standings[0].student == report.valid[0].student);
  CHECK(view.benchmarks.size() == report.benchmarks.size());
  const auto* mine = view.find("verify-then-decide");
  REQUIRE(mine != nullptr);
  CHECK(mine->rank_score == it->rank_score);
  CHECK(mine->score == it->summary.score.points);
  CHECK(mine->advice_calls == static_cast<std::int64_t>(it->advice_calls.size()));
  CHECK(mine->right_calls == std::count_if(it->advice_calls.begin(), it->advice_calls.end(),
                                           [](const classroom::AdviceCall& a) { return a.right_call; }));
  CHECK(view.find("nobody") == nullptr);
  // A submission or a class file is not a report: refused naming /format.
  CHECK_THROWS_WITH_AS(classroom::class_report_view_from_json(classroom::to_json(spec), "class.json"),
                       doctest::Contains("/format"), data::LoadError);
  fs::remove_all(dir);
}

TEST_CASE("class link: a link's query string and a class file give the same class") {
  const auto scenario = prices_only();
  // The instructor's choices, once as `tycoon class new` writes them to a file...
  classroom::ClassChoices c;
  c.class_id = "econ-101";
  c.title = "Econ 101: week 3";
  c.seed = kClassSeed;
  c.days = kClassDays;
  c.locked_levers = {"view_panel", "check_advice"};
  c.history_days = 3;
  const auto from_file =
      classroom::class_from_json(classroom::to_json(classroom::make_class(scenario, c)), "econ-101.json");
  // ...and once as a link the browser build opens (hand-written, in another order, encoded).
  const auto link = classroom::parse_class_link(
      "?scenario=classroom-prices-only&lock=check_advice,view_panel&days=2&seed=4242&history=3"
      "&title=Econ+101%3A%20week%203&class=econ-101");
  CHECK(link.scenario == "classroom-prices-only");
  const auto from_link = classroom::make_class(scenario, link.choices);
  // Field for field: the class file's JSON of each is the same text.
  CHECK(classroom::to_json(from_link) == classroom::to_json(from_file));
  // The link the game writes for a class reads back as the same class.
  const auto query = classroom::class_link_query(from_file);
  CHECK(query ==
        "class=econ-101&scenario=classroom-prices-only&seed=4242&days=2&lock=check_advice,view_panel&history=3"
        "&advisor=off&title=Econ%20101%3A%20week%203");
  const auto back = classroom::parse_class_link(query);
  CHECK(classroom::to_json(classroom::make_class(scenario, back.choices)) == classroom::to_json(from_file));

  // A bad link is a clear message naming the parameter, never a crash or a guess.
  auto refused = [&](const char* q, const char* why) {
    CAPTURE(q);
    CHECK_THROWS_WITH_AS(classroom::make_class(scenario, classroom::parse_class_link(q).choices),
                         doctest::Contains(why), std::invalid_argument);
  };
  refused("scenario=classroom-prices-only", "'class' is missing");
  refused("class=econ-101", "'scenario' is missing");
  refused("class=econ-101&scenario=classroom-prices-only&sede=1", "'sede' is not a class parameter");
  refused("class=econ-101&scenario=classroom-prices-only&seed=1&seed=2", "'seed' given twice");
  refused("class=econ-101&scenario=classroom-prices-only&seed=-4", "'-4' is not a whole number");
  // A seed no game takes (over game::kMaxGameSeed) is refused when the class is made, not when its
  // world is built for the first hand-in; a class file is read with the same bound.
  refused("class=econ-101&scenario=classroom-prices-only&seed=9000000000000001", "more than 9000000000000000");
  classroom::ClassChoices over;
  over.class_id = "econ-101";
  over.seed = game::kMaxGameSeed + 1;
  CHECK_THROWS_WITH_AS(classroom::make_class(scenario, over), doctest::Contains("the largest a game takes"),
                       core::InputError);
  auto file_over = classroom::to_json(from_file);
  file_over["seed"] = game::kMaxGameSeed + 1;
  CHECK_THROWS_WITH_AS(classroom::class_from_json(file_over, "class.json"), doctest::Contains("/seed"),
                       data::LoadError);
  refused("class=econ-101&scenario=classroom-prices-only&days=0", "'days': at least 1");
  refused("class=econ-101&scenario=classroom-prices-only&days=61", "more than 60");
  refused("class=econ-101&scenario=classroom-prices-only&history=61", "more than 60");
  refused("class=econ-101&scenario=classroom-prices-only&advisor=maybe", "not on or off");
  refused("class=econ-101&scenario=classroom-prices-only&title=50%", "two hex digits");
  refused("class=Econ 101&scenario=classroom-prices-only", "class id 'Econ 101'");               // make_class's rule
  refused("class=econ-101&scenario=classroom-prices-only&lock=fleet", "unknown lever 'fleet'");  // make_class's rule
}

TEST_CASE("a class code opens one world: digits are the seed, other codes hash into the seeds a game takes") {
  CHECK(classroom::seed_from_code("2026") == 2026);
  CHECK(classroom::seed_from_code(" 20 26 ") == 2026);  // blanks do not count
  // Letters: case and blanks do not change the world.
  CHECK(classroom::seed_from_code("econ-101") == classroom::seed_from_code("ECON-101"));
  CHECK(classroom::seed_from_code("econ-101") == classroom::seed_from_code(" Econ - 101"));
  CHECK(classroom::seed_from_code("ECON-101") != classroom::seed_from_code("ECON-102"));
  CHECK(classroom::seed_from_code("ECON-101") <= game::kMaxGameSeed);
  // Sixteen digits are past what a seed may be: hashed like any other code.
  CHECK(classroom::seed_from_code("1234567890123456") <= game::kMaxGameSeed);
  CHECK(classroom::seed_from_code("1234567890123456") != 1234567890123456ull);
}
