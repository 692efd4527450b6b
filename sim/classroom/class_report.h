// The class report: every submission of a folder replayed headless on the class's world, the
// ones that do not hold up rejected with the reason, the rest ranked by score, by profit and by
// SLO attainment, beside the do-nothing and reference strategies played on the same seed, with the
// three most instructive runs picked out (best, worst, most improved).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/classroom/class_spec.h"
#include "sim/classroom/roster.h"
#include "sim/classroom/submission.h"
#include "sim/game/summary.h"

namespace tycoon::classroom {

// How far a replay may land from the summary a student submitted and still count as reproduced.
// Same binary, same seed, same commands give the same doubles (and native and browser builds
// agree: TOOLCHAIN.md), so these only absorb the printing of a number: a cent of profit, a
// thousandth of a score point, a millionth of SLO attainment.
inline constexpr double kReproduceProfitTolUsd = 0.01;
inline constexpr double kReproduceScoreTolPoints = 1e-3;
inline constexpr double kReproduceSloTol = 1e-6;

// One advisor proposal in a student's game and the call the student made on it, beside the truth
// the debrief reveals. The report is the instructor's, made from finished games, so the truth may
// appear here; it never reaches a player's view while a game is played (Game::revealed_debrief).
struct AdviceCall {
  std::string advice_id;
  std::int64_t posted_at_hour = 0;
  std::string proposal;        // what the advisor proposed (its title)
  double claimed_speedup = 1;  // what the advisor claimed
  // The student's call: accepted | rejected | undecided, and the checks paid for before it (in
  // order: component_test, benchmark, canary); a call with checks was verified.
  std::string decision;
  std::vector<std::string> checks;
  std::optional<std::int64_t> decided_at_hour;
  double true_speedup = 1;  // end to end on the student's traffic
  double reputation_hit = 0;
  std::string truth;        // one phrase: "real gain x1.120", "games the scorer: ...", ...
  bool right_call = false;  // accepted a good one or rejected a bad one (undecided: never right)
  double checks_usd = 0;
  double value_usd = 0;  // the debrief's estimate of GPU time saved (or lost) while live

  bool verified() const { return !checks.empty(); }
  // "accepted", "verified (benchmark), then rejected", "undecided", ...
  std::string decision_text() const;
};

// One submission, checked.
struct CheckedSubmission {
  std::string file;     // file name within the folder
  std::string student;  // empty when the file could not be read
  bool valid = false;
  std::string reason;  // why it was rejected (valid: empty)

  // Valid ones: the replayed game's figures.
  game::GameSummary summary;
  std::optional<std::int64_t> stopped_at_hour;  // a game handed in unfinished: the hour it stopped at
  std::size_t num_commands = 0;
  std::size_t num_refused = 0;                    // commands the game refused on replay (as it did in play)
  std::vector<double> output_price_usd_per_mtok;  // the first model's output price, per hour
  std::vector<double> gpus_rented;                // per hour
  std::vector<double> cumulative_profit_usd;      // at the end of each hour
  double first_half_profit_usd = 0;               // hours [0, end/2)
  double second_half_profit_usd = 0;              // hours [end/2, end)
  std::vector<AdviceCall> advice_calls;           // every proposal of the advisor, in order (none without one)
  // Ranks among the valid submissions (1 = first).
  int rank_score = 0, rank_profit = 0, rank_slo = 0;

  // Profit per hour in the second half minus the first: how much better the student ran the
  // business once they had seen it run (USD per hour).
  double improvement_usd_per_hour() const;
};

// A strategy played on the class's world for comparison.
struct BenchmarkRun {
  std::string id;  // do_nothing | reference
  std::string name;
  std::string description;
  game::GameSummary summary;
  std::vector<double> output_price_usd_per_mtok;
  std::vector<double> gpus_rented;
  std::vector<double> cumulative_profit_usd;
};

// One of the runs the debrief should look at, and why.
struct InstructiveRun {
  std::string kind;       // best | worst | most_improved
  std::size_t index = 0;  // into ClassReport::valid
  std::string why;
};

struct ClassReport {
  ClassSpec spec;
  std::string scenario_name;
  std::string question;
  std::string lesson;
  std::vector<std::string> locked_levers;                // the scenario's and the class's
  std::string priced_model;                              // the model whose output price the charts follow
  std::vector<double> market_output_price_usd_per_mtok;  // ClassBenchmarks'
  std::vector<BenchmarkRun> benchmarks;                  // do nothing, then the reference when the level has one
  std::vector<CheckedSubmission> valid;                  // by score, best first (ties: profit, then name)
  std::vector<CheckedSubmission> rejected;               // in file order
  std::vector<InstructiveRun> instructive;               // best, worst, most improved (distinct runs)
};

// Every *.json entry directly in `dir`, sorted by name, links not followed: a symbolic link, a
// folder, a device or a FIFO named *.json is listed too (build_class_report rejects it by name,
// without reading it). Throws std::invalid_argument when `dir` is not a readable folder.
std::vector<std::filesystem::path> submission_files(const std::filesystem::path& dir);

// The class's benchmarks (doing nothing, then the level's reference when it has one) played on its
// world, and the counterfactuals they give every student's score (game::summarize). One set per
// class: the report plays it once, the class server once per class it serves.
struct ClassBenchmarks {
  std::string priced_model;  // the model whose output price the charts follow
  // The market's list output price of `priced_model` per hour (competitors move on the scenario's
  // schedule, so every run of the class sees the same); empty when the scenario lists none.
  std::vector<double> market_output_price_usd_per_mtok;
  std::vector<BenchmarkRun> runs;
  game::Counterfactuals counterfactuals;
};
ClassBenchmarks play_class_benchmarks(const ClassWorld& world, const data::Catalog& catalog);

// The one replay every hand-in gets before it counts (the report's for each submission, the class
// server's for each save handed in): `commands` played on the class's world (play_class_game) and
// scored against `benchmarks`; the figures and series go to `c` (ranks and validity left to the
// caller). With `claimed`, returns why the replay does not reproduce the claim (within the
// kReproduce* tolerances; `c` then holds only the replayed summary); empty when it does or when
// there is no claim. `stopped_at_hour`: a game handed in unfinished (game::ScoreInputs), scored on
// the share of it played.
std::string replay_submission(const ClassWorld& world, const data::Catalog& catalog, const ClassBenchmarks& benchmarks,
                              const std::vector<game::LoggedCommand>& commands, const ClaimedResult* claimed,
                              CheckedSubmission& c, std::optional<std::int64_t> stopped_at_hour = std::nullopt);

// Checks and ranks `files` against `world`. A submission is rejected — never the whole report —
// when it cannot be read (not a regular file, above core::kSubmissionInput's size, not JSON, not a
// submission, checksum mismatch, bad field; the reason names the file, the field and why, never
// the file's content), was made for
// another class, scenario version, seed or length, repeats a student already seen, or when its
// commands replayed on the class's world do not reproduce the profit, score and SLO attainment it
// claims (within the kReproduce* tolerances). Students are the same when their names have the
// same student_name_key (case, spaces, invisible and look-alike characters do not count).
// With a `roster`, a submission must also come from a student on it, with that student's code
// (roster_problem); without one, a name is whatever the submitter typed.
ClassReport build_class_report(const ClassWorld& world, const data::Catalog& catalog,
                               const std::vector<std::filesystem::path>& files, const Roster* roster = nullptr);
// The same report of submissions already replayed (replay_submission; a class server's counted
// hand-ins): ranked, with the runs to discuss, beside `benchmarks`.
ClassReport class_report_of(const ClassWorld& world, const ClassBenchmarks& benchmarks,
                            std::vector<CheckedSubmission> valid);

// The report as JSON (`tycoon class report` writes it beside the HTML, and prints it with --json):
// {"format": "inference-tycoon-class-report", "version": 1, "class": {…class file…}, "standings":
// [{student, ranks, score, profit, SLO, stopped_at_hour (null: finished), …, "advice_calls": […]}], "rejected",
// "benchmarks", "instructive"}.
inline constexpr std::string_view kClassReportFormat = "inference-tycoon-class-report";
inline constexpr int kClassReportVersion = 1;
nlohmann::json to_json(const AdviceCall& call);
nlohmann::json to_json(const ClassReport& report);

// What the game's "Class report" screen shows of a report: the class, its standings, the
// benchmarks beside them, the picked runs and the rejections, read back from the report's JSON.
struct ReportStanding {
  std::string student;
  int rank_score = 0, rank_profit = 0, rank_slo = 0;
  double score = 0;
  int stars = 0;
  double profit_usd = 0;
  double slo_attainment = 0;
  bool bankrupt = false;
  std::optional<std::int64_t> stopped_at_hour;  // set: handed in unfinished, stopped at this hour
  std::int64_t commands = 0;
  std::int64_t advice_calls = 0, right_calls = 0;
};
struct ReportBenchmark {
  std::string id, name;
  double score = 0, profit_usd = 0, slo_attainment = 0;
};
struct ReportNote {
  std::string what;  // instructive: best | worst | most_improved; rejected: the file
  std::string student;
  std::string why;
};
struct ClassReportView {
  ClassSpec spec;
  std::string scenario_name;
  std::vector<ReportStanding> standings;  // by score, best first
  std::vector<ReportBenchmark> benchmarks;
  std::vector<ReportNote> instructive;
  std::vector<ReportNote> rejected;

  // A student's own row (exact name); null when they are not ranked.
  const ReportStanding* find(std::string_view student) const;
};
// Reads a report's JSON back. Throws data::LoadError naming the file and the JSON pointer (not a
// class report, another version, a missing or mistyped field).
ClassReportView class_report_view_from_json(const nlohmann::json& j, const std::string& file);
ClassReportView load_class_report_view(const std::filesystem::path& path);
// A self-contained HTML page (inline CSS and SVG, no scripts, nothing fetched).
std::string report_html(const ClassReport& report);

}  // namespace tycoon::classroom
