// `tycoon class`: an instructor's class, from setup to debrief.
//   class new      writes a class file: scenario (pinned by hash), seed, length, extra locks, advisor
//   class submit   plays a student's command log in the class and writes the submission
//   class report   replays every submission of a folder, rejects those that do not hold up (with
//                  the reason), ranks the rest and writes a self-contained HTML debrief
//   class serve    the class server: roster, hand-ins over HTTP, leaderboard (cli/class_serve.h)
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <random>

#include "cli/class_serve.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/output_guard.h"
#include "sim/classroom/class_report.h"
#include "sim/classroom/class_spec.h"
#include "sim/classroom/hand_in.h"
#include "sim/classroom/roster.h"
#include "sim/classroom/submission.h"
#include "sim/core/atomic_file.h"
#include "sim/core/input_error.h"
#include "sim/core/input_file.h"
#include "sim/game/rng.h"
#include "sim/game/save.h"
#include "sim/game/summary.h"

namespace tycoon::cli {

namespace {

struct ClassOptions {
  // new
  std::string id, title, scenario, out, advisor;
  std::uint64_t seed = 0;
  bool has_seed = false;
  int days = 0;
  int history_days = -1;  // unset: the scenario's
  std::vector<std::string> locks;
  // submit / report
  std::string class_file, commands, save, student, dir, json_out;
  std::string roster_names, roster_out;  // new: the student list and the private roster to write
  std::string code;                      // submit: the student's roster code
  std::string roster;                    // report: the roster to check names and codes against
  bool json = false;
  bool force = false;  // replace an existing file that is an input or not one of ours
};

bool is_class_file(const std::filesystem::path& p) { return json_file_has_format(p, classroom::kClassFormat); }
bool is_submission_file(const std::filesystem::path& p) {
  return json_file_has_format(p, classroom::kSubmissionFormat);
}
bool is_report_json(const std::filesystem::path& p) { return json_file_has_format(p, classroom::kClassReportFormat); }
bool is_report_html(const std::filesystem::path& p) {
  return file_starts_with_marker(p, " \u2014 class report</title>");
}

std::filesystem::path data_root_of(const GlobalOptions& global) {
  return global.data_root.empty() ? data::default_data_root() : std::filesystem::path(global.data_root);
}

int run_new(const ClassOptions& o, const GlobalOptions& global) {
  check_output_file("--out", o.out);
  std::vector<NamedInput> inputs;
  if (std::filesystem::path(o.scenario).extension() == ".json") inputs.push_back({"the scenario", o.scenario});
  check_output_not_input("--out", o.out, inputs, "a class file", is_class_file, o.force);
  if (o.roster_names.empty() != o.roster_out.empty()) {
    throw core::InputError("--roster and --roster-out come together (the student list, the roster to write)");
  }
  std::vector<std::string> roster_names;
  if (!o.roster_out.empty()) {
    check_output_file("--roster-out", o.roster_out);
    if (std::filesystem::absolute(o.roster_out) == std::filesystem::absolute(o.out)) {
      throw core::InputError(
          "--roster-out: the same file as --out (the roster stays private, the class file does not)");
    }
    inputs.push_back({"the student list", o.roster_names});
    check_output_not_input(
        "--roster-out", o.roster_out, inputs, "a class roster",
        [](const std::filesystem::path& p) { return json_file_has_format(p, classroom::kRosterFormat); }, o.force);
    try {
      roster_names = classroom::roster_names_from_text(core::read_input_file(o.roster_names, core::kDataFileInput));
    } catch (const core::FileReadError& e) {
      throw core::InputError("--roster: " + std::string(e.what()));
    }
  }
  auto catalog = load_catalog_for(global);
  auto scenario = game::load_scenario(game::find_scenario(o.scenario, data_root_of(global)), catalog);
  classroom::ClassChoices c;
  c.class_id = o.id;
  c.title = o.title;
  if (o.has_seed) c.seed = o.seed;
  if (o.days > 0) c.days = o.days;
  c.locked_levers = o.locks;
  if (o.history_days >= 0) c.history_days = o.history_days;
  if (!o.advisor.empty()) c.advisor = o.advisor == "on";
  auto spec = classroom::make_class(scenario, c);
  // The class names its scenario by id: it must be the one `submit` and `report` find in the data
  // root (a scenario file from elsewhere made a class every submission to which failed).
  classroom::ClassWorld world;
  try {
    world = classroom::class_world(spec, o.out, catalog, data_root_of(global));
  } catch (const data::LoadError& e) {
    throw core::InputError("--scenario: " + o.scenario + " is not the data root's scenario '" + spec.scenario + "' (" +
                           e.reason() + "): a class names its scenario by id, so submit and report could " +
                           "not find it; put the scenario in " + (data_root_of(global) / "scenarios").string() +
                           " first");
  }
  if (!roster_names.empty() || !o.roster_out.empty()) {
    // Codes are secrets, not part of the simulated world: drawn from the system's random device.
    std::random_device device;
    auto word = [&] { return (std::uint64_t{device()} << 32) | device(); };
    const auto codes = classroom::draw_student_codes(roster_names.size(), word);
    const auto roster = classroom::make_roster(spec.class_id, roster_names, codes);
    core::write_file_atomically(o.roster_out, classroom::to_json(roster).dump(2) + "\n");
    std::printf("roster of %zu students written to %s: give each student their code, keep the file private\n",
                roster.students.size(), o.roster_out.c_str());
  }
  core::write_file_atomically(o.out, classroom::to_json(spec).dump(2) + "\n");
  std::printf("class %s: %s (%s), seed %llu, %d day%s, advisor %s\n", spec.class_id.c_str(), scenario.name.c_str(),
              spec.scenario.c_str(), static_cast<unsigned long long>(spec.seed), spec.days, spec.days == 1 ? "" : "s",
              spec.advisor ? "on" : "off");
  // What the students play is the class's world: its locks and history, as submit and report replay it.
  std::string locks;
  for (const auto& l : world.scenario.locked_levers) {
    locks += (locks.empty() ? "" : ", ") + l + (scenario.lever_locked(l) ? "" : " (class)");
  }
  const int history = world.scenario.history_days;
  if (history > 0)
    std::printf("  history: %d day%s of past traffic, prices and market before hour 0\n", history,
                history == 1 ? "" : "s");
  std::printf("  locked: %s\n  written to %s (scenario hash %s)\n", locks.empty() ? "nothing" : locks.c_str(),
              o.out.c_str(), spec.scenario_hash.c_str());
  std::printf("  browser link: ?%s\n", classroom::class_link_query(spec).c_str());
  return kExitOk;
}

int run_submit(const ClassOptions& o, const GlobalOptions& global) {
  if (auto why = classroom::student_name_problem(o.student); !why.empty()) {
    throw core::InputError("--student: the name " + why);
  }
  check_output_file("--out", o.out);
  std::vector<NamedInput> inputs = {{"the class file", o.class_file}};
  if (!o.commands.empty()) inputs.push_back({"the command log", o.commands});
  if (!o.save.empty()) inputs.push_back({"the saved game", o.save});
  check_output_not_input("--out", o.out, inputs, "a submission", is_submission_file, o.force);
  auto catalog = load_catalog_for(global);
  auto spec = classroom::load_class(o.class_file);
  auto world = classroom::class_world(spec, o.class_file, catalog, data_root_of(global));
  std::vector<game::RefusedCommand> refused;
  if (o.commands.empty() == o.save.empty()) throw core::InputError("submit needs --commands or --save (one of them)");
  std::vector<game::LoggedCommand> log;
  std::optional<std::int64_t> stopped_at_hour;
  if (!o.save.empty()) {
    // A saved game (the desktop game's save, the browser's exported one): its command log is
    // replayed on the class's world, so a game started with the class code replays as played.
    // The same checks as a hand-in to the class server: a game of another seed, length, locks or
    // version of the scenario is refused with the reason (it was played in another world).
    classroom::HandIn h;
    try {
      h = classroom::hand_in_from_save(world, catalog, game::load_save(o.save, catalog));
    } catch (const classroom::NotThisClassError& e) {
      throw core::InputError("--save: " + o.save + ": " + e.what());
    }
    if (!h.finished) {
      std::fprintf(stderr,
                   "tycoon: warning: %s: the game stopped at hour %lld of %lld: it is submitted as played and scores "
                   "the share of the game played; its profit and SLO are those of the hours played\n",
                   o.save.c_str(), static_cast<long long>(h.at_hour), static_cast<long long>(h.end_hour));
    }
    stopped_at_hour = classroom::stopped_at_hour(h.finished, h.at_hour);
    log = std::move(h.commands);
  } else {
    log = game::read_command_log(o.commands);
  }
  const std::string source = o.save.empty() ? o.commands : o.save;
  const auto sub = classroom::submission_of_play(world, catalog, log, o.student, o.code, stopped_at_hour, &refused);
  for (const auto& r : refused) {
    std::fprintf(stderr, "tycoon: warning: %s: command %zu refused at hour %lld: %s\n", source.c_str(), r.index + 1,
                 static_cast<long long>(r.at_hour), r.message.c_str());
  }
  core::write_file_atomically(o.out, classroom::submission_text(sub));
  const auto& s = sub["payload"]["summary"];
  std::printf("%s in class %s: score %.1f, profit $%.0f, SLO attainment %.1f%%; submission written to %s\n",
              o.student.c_str(), spec.class_id.c_str(), s["score"].get<double>(), s["profit_usd"].get<double>(),
              100 * s["slo_attainment"].get<double>(), o.out.c_str());
  return kExitOk;
}

int run_report(const ClassOptions& o, const GlobalOptions& global) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string out = o.out.empty() ? (std::filesystem::path(o.dir) / "report.html").string() : o.out;
  auto files = classroom::submission_files(o.dir);  // the folder first: a missing one is bad input
  check_output_file("--out", out);
  // The report's data beside the HTML (the game's Class report screen reads it).
  const std::string json_out =
      o.json_out.empty() ? std::filesystem::path(out).replace_extension(".json").string() : o.json_out;
  check_output_file("--json-out", json_out);
  // Neither output may be the class file or a submission (a student's subs/report.json!), nor a
  // file that is not a class report already, unless --force.
  std::vector<NamedInput> inputs = {{"the class file", o.class_file}};
  for (const auto& f : files) {
    // The report JSON of an earlier run in the folder is passed over by the report, not an input
    // (only the file an output would replace is opened to tell; a link is never followed).
    std::error_code ec;
    const bool replaced = std::filesystem::equivalent(f, out, ec) || std::filesystem::equivalent(f, json_out, ec);
    if (replaced && core::not_a_regular_file(f).empty() && is_report_json(f)) continue;
    inputs.push_back({"submission " + f.filename().string(), f});
  }
  check_output_not_input("--out", out, inputs, "a class report (HTML)", is_report_html, o.force);
  check_output_not_input("--json-out", json_out, inputs, "a class report (JSON)", is_report_json, o.force);
  if (std::filesystem::absolute(out) == std::filesystem::absolute(json_out)) {
    throw core::InputError("--json-out: the same file as --out (" + out + ")");
  }
  auto catalog = load_catalog_for(global);
  auto spec = classroom::load_class(o.class_file);
  auto world = classroom::class_world(spec, o.class_file, catalog, data_root_of(global));
  std::optional<classroom::Roster> roster;
  if (!o.roster.empty()) {
    roster = classroom::load_roster(o.roster);
    if (roster->class_id != spec.class_id) {
      throw core::InputError("--roster: " + o.roster + " is the roster of class " + roster->class_id + ", not of " +
                             spec.class_id);
    }
  }
  auto report = classroom::build_class_report(world, catalog, files, roster ? &*roster : nullptr);
  core::write_file_atomically(out, classroom::report_html(report));
  core::write_file_atomically(json_out, classroom::to_json(report).dump(1) + "\n");
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (o.json) {
    auto j = classroom::to_json(report);
    j["report_html"] = out;
    j["report_json"] = json_out;
    j["wall_time_s"] = wall_s;
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  std::printf("class %s: %s, seed %llu, %d day%s: %zu ranked, %zu rejected\n", spec.class_id.c_str(),
              report.scenario_name.c_str(), static_cast<unsigned long long>(spec.seed), spec.days,
              spec.days == 1 ? "" : "s", report.valid.size(), report.rejected.size());
  std::printf("  %3s  %-24s %6s %12s %7s\n", "#", "student", "score", "profit", "SLO");
  for (const auto& c : report.valid) {
    std::printf(
        "  %3d  %-24s %6.1f %12.0f %6.1f%%%s\n", c.rank_score, c.student.c_str(), c.summary.score.points,
        c.summary.profit_usd, 100 * c.summary.slo_attainment,
        c.stopped_at_hour ? ("  unfinished: stopped at hour " + std::to_string(*c.stopped_at_hour)).c_str() : "");
  }
  for (const auto& b : report.benchmarks) {
    std::printf("       %-24s %6.1f %12.0f %6.1f%%\n", b.name.c_str(), b.summary.score.points, b.summary.profit_usd,
                100 * b.summary.slo_attainment);
  }
  for (const auto& i : report.instructive) {
    std::printf("  %s: %s — %s\n", i.kind.c_str(), report.valid[i.index].student.c_str(), i.why.c_str());
  }
  for (const auto& c : report.rejected) std::printf("  REJECTED %s: %s\n", c.file.c_str(), c.reason.c_str());
  std::printf("  report written to %s and %s (%.1f s)\n", out.c_str(), json_out.c_str(), wall_s);
  return kExitOk;
}

}  // namespace

CommandRunner add_class_command(CLI::App& app, const GlobalOptions& global) {
  auto o = std::make_shared<ClassOptions>();
  auto* cls = app.add_subcommand("class", "An instructor's class: set it up, collect submissions, report standings");
  cls->require_subcommand(1);

  auto* nw = cls->add_subcommand("new", "Write a class file: scenario, seed, length, extra locks");
  nw->add_option("--id", o->id, "Class id (a-z, 0-9, '-'): names the class in every submission")->required();
  nw->add_option("--scenario", o->scenario, "Scenario: a name (prices-only, 01-thin-margin, ...) or a .json file")
      ->required();
  nw->add_option("--title", o->title, "A title for the report");
  nw->add_option("--seed", o->seed, "The world every student plays (default: the scenario's seed)")
      ->check(seed_digits())
      ->check(CLI::Range(std::uint64_t{0}, game::kMaxGameSeed))
      ->each([o](const std::string&) { o->has_seed = true; });
  nw->add_option("--days", o->days, "Game days (default: the scenario's)")
      ->check(CLI::Range(1, classroom::kMaxClassDays));
  nw->add_option("--history-days", o->history_days,
                 "Days of past traffic, prices and market on the charts at hour 0 (default: the scenario's)")
      ->check(CLI::Range(0, game::kMaxHistoryDays));
  nw->add_option("--lock", o->locks,
                 "A lever to lock on top of the scenario's (repeatable): set_prices, rent_gpus, recipe.<field>, "
                 "contract.spot, ...");
  nw->add_option("--advisor", o->advisor,
                 "Chien the advisor plays: on or off (default: on unless accept_advice is locked)")
      ->check(CLI::IsMember({"on", "off"}));
  nw->add_option("--out", o->out, "The class file to write")->required();
  nw->add_flag("--force", o->force, "Replace --out even when it exists and is not a class file");
  nw->add_option("--roster", o->roster_names,
                 "A text file of the students' names, one per line: each gets a code (with --roster-out)");
  nw->add_option("--roster-out", o->roster_out,
                 "The roster to write: names and their codes (private: `class report --roster` checks it)");

  auto* sb = cls->add_subcommand("submit", "Play a student's command log in the class and write the submission");
  sb->add_option("class", o->class_file, "The class file")->required();
  sb->add_option("--commands", o->commands, "The student's JSONL command log (as `tycoon run --out` writes it)");
  sb->add_option("--save", o->save, "Or the student's saved game: its command log is replayed in the class");
  sb->add_option("--student", o->student, "The student's name as the standings show it")->required();
  sb->add_option("--out", o->out, "The submission file to write")->required();
  sb->add_flag("--force", o->force, "Replace --out even when it is an input or exists and is not a submission");
  sb->add_option("--code", o->code, "The student's code from the class roster (when the class has one)");

  auto* rp = cls->add_subcommand("report", "Replay every submission in a folder, rank them, write the HTML debrief");
  rp->add_option("class", o->class_file, "The class file")->required();
  rp->add_option("dir", o->dir, "The folder of submissions (*.json)")->required();
  rp->add_option("--out", o->out, "The HTML report to write (default: DIR/report.html)");
  rp->add_option("--json-out", o->json_out,
                 "The report's data as JSON, for the game's Class report screen (default: --out with .json)");
  rp->add_flag("--json", o->json, "Standings, rejections and benchmarks as JSON on stdout");
  rp->add_option("--roster", o->roster,
                 "The class roster (class new --roster-out): a submission must come from a student on it, with "
                 "their code");
  rp->add_flag("--force", o->force,
               "Replace --out / --json-out even when one is an input or exists and is not a class report");

  auto serve = add_class_serve_command(*cls, global);

  return [o, &global, nw, sb, serve]() {
    if (serve.app && serve.app->parsed()) return serve.run();
    if (nw->parsed()) return run_new(*o, global);
    if (sb->parsed()) return run_submit(*o, global);
    return run_report(*o, global);
  };
}

}  // namespace tycoon::cli
