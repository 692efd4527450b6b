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

// One submission, checked.
struct CheckedSubmission {
  std::string file;     // file name within the folder
  std::string student;  // empty when the file could not be read
  bool valid = false;
  std::string reason;  // why it was rejected (valid: empty)

  // Valid ones: the replayed game's figures.
  game::GameSummary summary;
  std::size_t num_commands = 0;
  std::size_t num_refused = 0;                    // commands the game refused on replay (as it did in play)
  std::vector<double> output_price_usd_per_mtok;  // the first model's output price, per hour
  std::vector<double> gpus_rented;                // per hour
  std::vector<double> cumulative_profit_usd;      // at the end of each hour
  double first_half_profit_usd = 0;               // hours [0, end/2)
  double second_half_profit_usd = 0;              // hours [end/2, end)
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
  std::vector<std::string> locked_levers;   // the scenario's and the class's
  std::string priced_model;                 // the model whose output price the charts follow
  std::vector<BenchmarkRun> benchmarks;     // do nothing, then the reference when the level has one
  std::vector<CheckedSubmission> valid;     // by score, best first (ties: profit, then name)
  std::vector<CheckedSubmission> rejected;  // in file order
  std::vector<InstructiveRun> instructive;  // best, worst, most improved (distinct runs)
};

// Every *.json file directly in `dir`, sorted by name. Throws std::invalid_argument when `dir` is
// not a readable folder.
std::vector<std::filesystem::path> submission_files(const std::filesystem::path& dir);

// Checks and ranks `files` against `world`. A submission is rejected — never the whole report —
// when it cannot be read (not JSON, not a submission, checksum mismatch, bad field), was made for
// another class, scenario version, seed or length, repeats a student already seen, or when its
// commands replayed on the class's world do not reproduce the profit, score and SLO attainment it
// claims (within the kReproduce* tolerances).
ClassReport build_class_report(const ClassWorld& world, const data::Catalog& catalog,
                               const std::vector<std::filesystem::path>& files);

nlohmann::json to_json(const ClassReport& report);
// A self-contained HTML page (inline CSS and SVG, no scripts, nothing fetched).
std::string report_html(const ClassReport& report);

}  // namespace tycoon::classroom
