// `tycoon sweep`: what-if grids for analysts. Reads a strict JSON spec (format in docs/analysts.md,
// "Analyst sweeps"), simulates every point on a pool of threads with a progress bar, journals
// each finished point so an interrupted sweep resumes, and writes points.csv, summary.json, the
// SVG (and PNG) charts and, when asked, a self-contained HTML report (cli/sweep_output.h). A
// sweep split in shards (`--shard i/n`) writes part files that `tycoon sweep merge` combines.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <thread>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/folder_lock.h"
#include "cli/long_run.h"
#include "cli/progress.h"
#include "cli/sweep_output.h"
#include "sim/analysis/sweep_journal.h"
#include "sim/analysis/sweep_report.h"
#include "sim/analysis/sweep_run.h"
#include "sim/analysis/sweep_spec.h"
#include "sim/core/atomic_file.h"
#include "sim/core/input_error.h"
#include "sim/data/json_reader.h"

namespace tycoon::cli {

namespace {

namespace fs = std::filesystem;
using namespace tycoon::analysis;

struct SweepOptions {
  std::string spec;
  std::string out;
  int jobs = 0;
  std::string report;
  bool resume = false;
  bool no_png = false;
  std::string shard;  // "i/n": run every n-th point from i, write a partial result
  bool allow_long_run = false;
  bool yes = false;                                     // run a sweep estimated above confirm_above_min
  bool conservative = false;                            // targets met at the interval's far end
  double confirm_above_min = kConfirmSweepAboveS / 60;  // ask (or refuse without a terminal) above this
  // `tycoon sweep merge PARTS... --out DIR`
  std::vector<std::string> parts;
  std::string merge_out;
  std::string merge_report;
  bool merge_no_png = false;
};

constexpr const char* kPartFormat = "tycoon-sweep-part";

constexpr const char* kJournal = "points.jsonl";
constexpr const char* kResolved = "sweep.json";

// The most shards a sweep is split in (`--shard i/n`: n has at most 6 digits).
constexpr std::int64_t kMaxShards = 999'999;

// "i/n" with 0 <= i < n.
std::pair<std::size_t, std::size_t> parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  auto bad = [&]() {
    return std::invalid_argument("--shard: expected i/n with 0 <= i < n (shards count from 0), got '" + text + "'");
  };
  if (slash == std::string::npos || slash == 0 || slash + 1 == text.size()) throw bad();
  auto digits = [](const std::string& s) {
    return !s.empty() && s.size() <= 6 && s.find_first_not_of("0123456789") == std::string::npos;
  };
  const std::string a = text.substr(0, slash), b = text.substr(slash + 1);
  if (!digits(a) || !digits(b)) throw bad();
  const std::size_t i = std::stoul(a), n = std::stoul(b);
  if (n == 0 || i >= n) throw bad();
  return {i, n};
}

std::string resolved_text(const SweepSpec& spec, const ExpandedSweep& sweep, const SweepFingerprint& fingerprint) {
  return nlohmann::json{{"spec_hash", sweep.spec_hash},
                        {"spec_file", spec.file},
                        {"spec", spec.canonical},
                        {"fingerprint", fingerprint.to_json()}}
             .dump(2) +
         "\n";
}

// Refuses (exit 2) an output folder that exists and holds files but no sweep (no sweep.json):
// `/`, a home folder, a folder of other work. A sweep's folder is written again; a new or empty
// one is a fresh start.
void check_sweep_folder(const std::string& flag, const fs::path& out) {
  std::error_code ec;
  if (!fs::is_directory(out, ec)) return;
  if (fs::exists(out / kResolved, ec)) return;
  fs::directory_iterator it(out, ec);
  if (ec) throw core::InputError(flag + ": cannot read the folder " + out.string() + ": " + ec.message());
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (it->path().filename() == kFolderLockName) continue;  // a lock left by a dead run
    throw core::InputError(flag + ": " + out.string() + " holds files and no sweep (no " + std::string(kResolved) +
                           "): write a sweep into a new or empty folder");
  }
}

// `tycoon sweep merge`: partial results of `--shard i/n` runs into what one run writes.
int run_merge(const SweepOptions& o, const GlobalOptions& global) {
  if (o.parts.empty()) throw std::invalid_argument("sweep merge: no part files given");
  if (o.merge_out.empty()) throw std::invalid_argument("sweep merge: --out DIR is required");
  check_report_path(o.merge_report);
  if (!o.merge_report.empty()) check_output_file("--report", o.merge_report);
  const fs::path out(o.merge_out);
  // The folder is checked before any work: one that can be written, and either new, empty or a
  // sweep's (never `/` or a folder of other files, which the outputs would be mixed into).
  check_output_folder("--out", out);
  check_sweep_folder("--out", out);
  struct Part {
    std::string file;
    nlohmann::json j;
    std::size_t index = 0, count = 0;
  };
  std::vector<Part> parts;
  for (const auto& file : o.parts) {
    nlohmann::json j;
    try {
      j = data::parse_json_file(file, core::kSweepPartInput);
    } catch (const std::exception& e) {
      throw std::invalid_argument(file + ": not a readable JSON file (" + e.what() + ")");
    }
    auto bad = [&](const std::string& why) { return std::invalid_argument(file + ": " + why); };
    if (!j.is_object() || j.value("format", "") != kPartFormat) {
      throw bad("not a sweep part (no \"format\": \"" + std::string(kPartFormat) + "\")");
    }
    try {
      // The shard's count sizes the table of parts: bounded (as `--shard i/n` is) before anything
      // is allocated by it.
      data::ObjectReader shard(j.at("shard"), file, "/shard");
      const std::int64_t count = shard.integer("count", data::Bound::kPositive);
      if (count > kMaxShards) {
        shard.fail("count", "too large: " + std::to_string(count) + " shards, at most " + std::to_string(kMaxShards));
      }
      const std::int64_t index = shard.integer("index", data::Bound::kNonNegative);
      if (index >= count) shard.fail("index", "must be below count (" + std::to_string(count) + ")");
      shard.finish();
      Part p{file, j, static_cast<std::size_t>(index), static_cast<std::size_t>(count)};
      j.at("spec_hash").get<std::string>();
      j.at("spec_file").get<std::string>();
      j.at("points").get_ref<const nlohmann::json::array_t&>();
      parts.push_back(std::move(p));
    } catch (const nlohmann::json::exception& e) {
      throw bad(std::string("malformed sweep part: ") + e.what());
    }
  }
  const Part& first = parts.front();
  const std::string hash = first.j["spec_hash"].get<std::string>();
  std::vector<const Part*> by_index(first.count, nullptr);
  for (const auto& p : parts) {
    if (p.j["spec_hash"].get<std::string>() != hash) {
      throw std::invalid_argument(p.file + ": from another sweep (spec hash " + p.j["spec_hash"].get<std::string>() +
                                  ", " + first.file + " has " + hash + ")");
    }
    if (p.count != first.count) {
      throw std::invalid_argument(p.file + ": shard " + std::to_string(p.index) + "/" + std::to_string(p.count) +
                                  " of a split in " + std::to_string(p.count) + ", " + first.file + " is one of " +
                                  std::to_string(first.count));
    }
    if (recorded_fingerprint(p.j) != recorded_fingerprint(first.j)) {
      auto words = [](const std::optional<SweepFingerprint>& f) { return f ? f->describe() : std::string("none"); };
      throw std::invalid_argument(p.file + ": simulated by another build or calibration (" +
                                  words(recorded_fingerprint(p.j)) + "; " + first.file + ": " +
                                  words(recorded_fingerprint(first.j)) + "): rerun the shards with one build");
    }
    if (by_index[p.index]) {
      throw std::invalid_argument("shard " + std::to_string(p.index) + "/" + std::to_string(p.count) +
                                  " given twice: " + by_index[p.index]->file + " and " + p.file);
    }
    by_index[p.index] = &p;
  }
  for (std::size_t i = 0; i < by_index.size(); ++i) {
    if (!by_index[i]) {
      throw std::invalid_argument("shard " + std::to_string(i) + "/" + std::to_string(first.count) +
                                  " is missing (expected " + shard_part_name(i, first.count) + ")");
    }
  }
  auto catalog = load_catalog_for(global);
  const SweepSpec spec = parse_sweep_spec(first.j.at("spec"), first.j["spec_file"].get<std::string>());
  const ExpandedSweep sweep = expand_sweep(spec, catalog);
  if (sweep.spec_hash != hash) {
    throw std::invalid_argument(first.file + ": the spec resolves to hash " + sweep.spec_hash +
                                " against this catalog, not " + hash + " (the catalog changed since the shards ran)");
  }
  std::vector<std::optional<PointPerf>> results(sweep.points.size());
  for (const auto& p : parts) {
    for (std::size_t k = 0; k < p.j["points"].size(); ++k) {
      const auto& e = p.j["points"][k];
      std::size_t index = 0;
      std::string h;
      try {
        index = e.at("index").get<std::size_t>();
        h = e.at("hash").get<std::string>();
      } catch (const nlohmann::json::exception& ex) {
        throw std::invalid_argument(p.file + ": malformed point: " + ex.what());
      }
      if (index >= sweep.points.size() || !in_shard(index, p.index, p.count) || sweep.points[index].hash != h) {
        throw std::invalid_argument(p.file + ": point " + std::to_string(index) + " does not belong to shard " +
                                    std::to_string(p.index) + "/" + std::to_string(p.count) + " of this sweep");
      }
      if (results[index]) throw std::invalid_argument(p.file + ": point " + std::to_string(index) + " given twice");
      PointPerf perf;
      try {
        perf = PointPerf::from_json(e.at("perf"));
      } catch (const std::exception& ex) {
        throw std::invalid_argument(p.file + ": point " + std::to_string(index) + ": malformed result: " + ex.what());
      }
      // The same check as the resume journal's: a part is input, its figures are not trusted.
      const int gpus = serving_config(sweep, spec, sweep.points[index]).deployment.gpus_per_replica();
      if (auto problem = check_point_perf(perf, gpus); !problem.ok()) {
        throw data::LoadError(p.file, "/points/" + std::to_string(k) + "/perf" + problem.pointer,
                              "point " + std::to_string(index) + ": " + problem.reason);
      }
      results[index] = std::move(perf);
    }
  }
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (!results[i]) {
      throw std::invalid_argument(by_index[i % first.count]->file + ": point " + std::to_string(i) +
                                  " is missing (a truncated part)");
    }
  }
  // Every part checked: now the folder is written, by one writer at a time.
  fs::create_directories(out);
  const FolderLock lock("--out", out, "tycoon sweep merge");
  const auto calibrations = calibrations_for(sweep, catalog);
  write_output(out / kResolved, resolved_text(spec, sweep, sweep_fingerprint(calibrations)));
  {
    std::ofstream f(out / kJournal, std::ios::trunc);  // grid order: --resume reads it like a run's
    for (std::size_t i = 0; i < results.size(); ++i) {
      f << journal_line(sweep.points[i].hash, *results[i]);
    }
  }
  const auto errors = load_model_errors(catalog.root);
  SweepData data{&spec, &sweep, &calibrations, {}, &errors};
  for (auto& r : results) data.perf.push_back(*r);
  const auto groups = make_groups(data);
  write_outputs(out, data, groups, o.merge_no_png, o.merge_report);
  print_answer(data, groups);
  std::printf("\nmerged %zu parts (%zu points) into %s\n", parts.size(), results.size(), out.string().c_str());
  return kExitOk;
}

// `--shard i/n` (analysis::shard_points), written as one self-describing part: the spec, its hash,
// the shard and each point's result. Each finished point is journaled beside it as it goes
// (analysis::shard_journal_name): the same command run again after the task was killed (a
// preempted or cancelled Slurm task, resubmitted) resumes from the journal; the journal is removed
// once the part is written.
int run_shard(const SweepSpec& spec, const ExpandedSweep& sweep, const data::Catalog& catalog,
              std::pair<std::size_t, std::size_t> shard, int jobs, const fs::path& out) {
  const auto [si, sn] = shard;
  ExpandedSweep mine = sweep;
  mine.points.clear();
  const std::vector<std::size_t> index = shard_points(sweep.points.size(), si, sn);
  for (std::size_t i : index) mine.points.push_back(sweep.points[i]);
  const auto calibrations = calibrations_for(sweep, catalog);
  const auto fingerprint = sweep_fingerprint(calibrations);
  fs::create_directories(out);
  const fs::path journal = out / shard_journal_name(si, sn);
  // The journal's fingerprint beside it: a rerun by another build or calibration would mix models.
  const fs::path journal_fingerprint = out / (journal.filename().string() + ".fingerprint");
  // One copy of a shard at a time (a replacement pod started while the old one still runs, a task
  // submitted twice): the second is refused, exit 2, instead of both writing one journal. Shards
  // of one sweep share the folder, so each locks its own file.
  const std::string shard_flag = "--shard " + std::to_string(si) + "/" + std::to_string(sn);
  const FolderLock lock(shard_flag, out, "tycoon sweep " + shard_flag, "." + shard_part_name(si, sn) + ".lock");
  std::vector<std::optional<PointPerf>> res(mine.points.size());
  std::size_t resumed = 0;
  if (fs::exists(journal) && fs::exists(journal_fingerprint)) {
    nlohmann::json recorded;
    try {
      recorded = data::parse_json_file(journal_fingerprint);
    } catch (const std::exception&) {
    }
    if (const auto then = recorded_fingerprint(recorded); !then || *then != fingerprint) {
      throw core::InputError(shard_flag + ": the points journaled in " + journal.string() +
                             " were simulated by another build or calibration (" +
                             (then ? then->describe() : std::string("unreadable")) + "; now " + fingerprint.describe() +
                             "): remove the journal to run this shard afresh");
    }
  }
  if (fs::exists(journal)) {
    // Every line is checked (a journal is input); a line of a point this shard no longer has (the
    // spec changed) is left out, a torn last line is run again.
    const std::string text = core::read_input_file(journal, core::kSweepJournalInput);
    SweepJournal parsed;
    try {
      parsed = parse_sweep_journal(text, journal.string(), mine, spec, JournalOf::kEarlierSpec);
    } catch (const data::LoadError& e) {
      throw data::LoadError(e.file(), e.pointer(),
                            e.reason() + " (a damaged journal: remove it to run this shard afresh)");
    }
    for (std::size_t k = 0; k < mine.points.size(); ++k) {
      if (auto it = parsed.points.find(mine.points[k].hash); it != parsed.points.end()) {
        res[k] = it->second;
        ++resumed;
      }
    }
    if (parsed.num_other_points > 0) {
      // Points of another spec (the same i/n of another sweep in this folder): kept, not dropped.
      const fs::path kept = out / (journal.filename().string() + ".earlier");
      write_output(kept, text);
      std::cerr << "sweep: " << shard_flag << ": " << parsed.num_other_points << " journaled points are not of this "
                << "spec (kept as " << kept.string() << ")\n";
    }
  }
  {
    // The journal rewritten whole, atomically: a kill mid-write leaves the old one.
    std::string text;
    for (std::size_t k = 0; k < res.size(); ++k) {
      if (res[k]) text += journal_line(mine.points[k].hash, *res[k]);
    }
    write_output(journal, text);
    write_output(journal_fingerprint, nlohmann::json{{"fingerprint", fingerprint.to_json()}}.dump() + "\n");
  }
  std::ofstream journal_out(journal, std::ios::app);
  if (!journal_out) throw core::FileWriteError("cannot append to " + journal.string());
  std::cerr << "sweep " << spec.name << ": shard " << si << "/" << sn << ": " << mine.points.size() << " of "
            << sweep.points.size() << " points, " << jobs << " jobs";
  if (resumed > 0) std::cerr << "; resuming: " << resumed << " points already done (" << journal.string() << ")";
  std::cerr << "\n";
  SweepProgress progress(mine.points.size(), resumed);
  const auto run_start = std::chrono::steady_clock::now();
  if (resumed < mine.points.size()) {
    run_points(mine, spec, calibrations, jobs, res, [&](std::size_t k, const PointPerf& p) {
      journal_out << journal_line(mine.points[k].hash, p);
      journal_out.flush();
      if (!journal_out) throw core::FileWriteError(journal.string() + ": cannot append a point (disk full?)");
      progress.tick();
    });
  }
  journal_out.close();
  const double run_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
  nlohmann::json pts = nlohmann::json::array();
  for (std::size_t k = 0; k < res.size(); ++k) {
    pts.push_back({{"index", index[k]}, {"hash", mine.points[k].hash}, {"perf", res[k]->to_json()}});
  }
  const nlohmann::json part = {{"format", kPartFormat},
                               {"format_version", 1},
                               {"spec_file", spec.file},
                               {"spec_hash", sweep.spec_hash},
                               {"spec", spec.canonical},
                               {"shard", {{"index", si}, {"count", sn}}},
                               {"num_points", sweep.points.size()},
                               {"fingerprint", fingerprint.to_json()},
                               {"points", pts}};
  const fs::path file = out / shard_part_name(si, sn);
  write_output(file, part.dump() + "\n");
  std::error_code ec;
  fs::remove(journal, ec);  // the part holds every point now
  fs::remove(journal_fingerprint, ec);
  std::printf("shard %zu/%zu: %zu of %zu points (%zu simulated in %.1f s, %zu resumed); wrote %s\n", si, sn, res.size(),
              sweep.points.size(), res.size() - resumed, run_s, resumed, file.string().c_str());
  return kExitOk;
}

// A word of a command line as a POSIX shell reads it back: as is when plain, else single-quoted.
std::string shell_word(const std::string& w) {
  constexpr const char* kPlain = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./=:,+-@%";
  if (!w.empty() && w.find_first_not_of(kPlain) == std::string::npos) return w;
  std::string q = "'";
  for (char c : w) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// The command as it was typed, with each of `flags` appended unless it was given: the command to
// resume a sweep ("... --resume").
std::string command_with(const GlobalOptions& global, const SweepOptions& o, std::initializer_list<const char*> flags) {
  std::vector<std::string> words = global.command_line;
  if (words.empty()) words = {"tycoon", "sweep", o.spec, "--out", o.out};
  for (const char* f : flags) {
    if (std::find(words.begin() + 1, words.end(), f) == words.end()) words.emplace_back(f);
  }
  std::string text;
  for (const auto& w : words) text += (text.empty() ? "" : " ") + shell_word(w);
  return text;
}

// Set by SIGINT (Ctrl-C) during a whole sweep: the workers take no new point, the finished ones are
// journaled, and the command says how to resume. A second Ctrl-C quits at once (SA_RESETHAND): the
// journal then ends at most in one torn line, which --resume drops.
std::atomic<bool> g_interrupted{false};

void on_sigint(int) {
  g_interrupted.store(true);
  constexpr char kMsg[] = "\nsweep: interrupted: finishing the points in flight (Ctrl-C again to quit at once)\n";
  [[maybe_unused]] const auto n = ::write(STDERR_FILENO, kMsg, sizeof kMsg - 1);
}

// Installs on_sigint for its lifetime, restoring the previous disposition after.
class SigintGuard {
 public:
  SigintGuard() {
    g_interrupted.store(false);
    struct sigaction sa {};
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    installed_ = sigaction(SIGINT, &sa, &old_) == 0;
  }
  ~SigintGuard() {
    if (installed_) sigaction(SIGINT, &old_, nullptr);
  }
  SigintGuard(const SigintGuard&) = delete;
  SigintGuard& operator=(const SigintGuard&) = delete;

 private:
  struct sigaction old_ {};
  bool installed_ = false;
};

// "0.4 s", "12 s", "2 h 10 min".
std::string wall_text(double s) {
  if (s < 10) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f s", s);
    return buf;
  }
  return ProgressMeter::duration(s);
}

std::string minutes_text(double min) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", min);
  return buf;
}

// Refuses a whole sweep over an output folder that holds an earlier sweep's journal without
// --resume: the fresh start would discard it.
void check_no_journal(const std::string& flag, const fs::path& out) {
  std::error_code ec;
  const fs::path journal = out / kJournal;
  if (!fs::is_regular_file(journal, ec)) return;
  const std::size_t n = count_journal_lines(core::read_input_file(journal, core::kSweepJournalInput));
  if (n == 0) return;
  throw core::InputError(flag + ": " + out.string() + " holds the journal of an earlier sweep (" + std::to_string(n) +
                         " points in " + kJournal +
                         "): pass --resume to continue it (finished points are reused), or choose another output "
                         "folder");
}

// `--resume`: the points the journal in `out` holds for this sweep, into `results`; returns how
// many. A journal of an earlier version of the spec (seeds or concurrencies added, say) gives the
// points whose inputs are unchanged; the earlier journal is kept beside it when some of its points
// are not in this spec, and sweep.json becomes this spec's. Checks every journal line (not trusted).
std::size_t resume_points(const fs::path& out, const SweepSpec& spec, const ExpandedSweep& sweep,
                          const SweepFingerprint& fingerprint, std::vector<std::optional<PointPerf>>& results) {
  if (!fs::exists(out / kResolved)) {
    throw core::InputError("--resume: " + out.string() + " holds no sweep (no " + kResolved + ")");
  }
  nlohmann::json earlier;
  try {
    earlier = data::parse_json_file(out / kResolved);
  } catch (const std::exception&) {
    throw core::InputError("--resume: " + (out / kResolved).string() + " is not valid JSON");
  }
  const std::string earlier_hash =
      earlier.is_object() && earlier.contains("spec_hash") && earlier["spec_hash"].is_string()
          ? earlier["spec_hash"].get<std::string>()
          : "";
  const bool changed = earlier_hash != sweep.spec_hash;
  // Points of another build or calibration would mix two models in one answer (a sweep.json from
  // before fingerprints records none: resumed as before).
  if (const auto then = recorded_fingerprint(earlier); then && *then != fingerprint) {
    throw core::InputError("--resume: the points journaled in " + out.string() +
                           " were simulated by another build or calibration (" + then->describe() + "; now " +
                           fingerprint.describe() + "): resuming would mix them with new ones: run into a new folder");
  }
  const fs::path journal = out / kJournal;
  std::string journal_text;
  if (fs::exists(journal)) journal_text = core::read_input_file(journal, core::kSweepJournalInput);
  const auto parsed = parse_sweep_journal(journal_text, journal.string(), sweep, spec,
                                          changed ? JournalOf::kEarlierSpec : JournalOf::kThisSpec);
  std::size_t resumed = 0;
  for (std::size_t i = 0; i < sweep.points.size(); ++i) {
    if (auto it = parsed.points.find(sweep.points[i].hash); it != parsed.points.end()) {
      results[i] = it->second;
      ++resumed;
    }
  }
  if (changed) {
    std::string note = "sweep: --resume: the spec changed since the sweep in " + out.string() + " started (spec hash " +
                       earlier_hash + ", now " + sweep.spec_hash + "): " + std::to_string(resumed) +
                       " journaled points have unchanged inputs and are reused";
    if (parsed.num_other_points > 0) {
      const bool plain =
          earlier_hash.size() == 16 && earlier_hash.find_first_not_of("0123456789abcdef") == std::string::npos;
      const fs::path kept = out / ("points-" + (plain ? earlier_hash : std::string("earlier")) + ".jsonl");
      write_output(kept, journal_text);
      note += "; " + std::to_string(parsed.num_other_points) +
              " are not points of this spec (the earlier journal is kept as " + kept.string() + ")";
    }
    std::cerr << note << "\n";
    write_output(out / kResolved, resolved_text(spec, sweep, fingerprint));
  }
  return resumed;
}

// The whole sweep into `out`: new, or resumed from its journal; each finished point journaled.
int run_whole(const SweepOptions& o, const GlobalOptions& global, const SweepSpec& spec, const ExpandedSweep& sweep,
              const data::Catalog& catalog, int jobs, const fs::path& out,
              std::chrono::steady_clock::time_point wall_start) {
  std::vector<std::optional<PointPerf>> results(sweep.points.size());
  std::size_t resumed = 0;
  const fs::path journal = out / kJournal;
  const auto fingerprint = sweep_fingerprint(calibrations_for(sweep, catalog));
  if (o.resume) {
    resumed = resume_points(out, spec, sweep, fingerprint, results);
  } else {
    fs::create_directories(out);
    write_output(out / kResolved, resolved_text(spec, sweep, fingerprint));
    std::ofstream(journal, std::ios::trunc);
  }
  // Rewrite the journal with what was kept (drops torn lines), then append as points finish.
  {
    std::ofstream f(journal, std::ios::trunc);
    for (std::size_t i = 0; i < sweep.points.size(); ++i) {
      if (results[i]) f << journal_line(sweep.points[i].hash, *results[i]);
    }
  }
  std::ofstream journal_out(journal, std::ios::app);
  if (!journal_out) throw std::runtime_error("cannot write " + journal.string());

  const auto calibrations = calibrations_for(sweep, catalog);
  std::cerr << "sweep " << spec.name << ": " << sweep.points.size() << " points (" << sweep.configs.size()
            << " configurations, " << spec.workloads.size() << " workloads, " << spec.concurrency.size()
            << " concurrencies, " << spec.seeds.size() << " seeds) x " << spec.prices.size() << " prices, " << jobs
            << " jobs";
  if (o.resume) std::cerr << "; resuming: " << resumed << " points already done";
  std::cerr << "\n";

  const SigintGuard sigint;
  SweepProgress progress(sweep.points.size(), resumed);
  auto journal_point = [&](std::size_t i, const PointPerf& p) {
    journal_out << journal_line(sweep.points[i].hash, p);
    journal_out.flush();
    if (!journal_out) throw core::FileWriteError(journal.string() + ": cannot append a point (disk full?)");
    progress.tick();
  };
  const auto run_start = std::chrono::steady_clock::now();
  // One point left (analysis::calibration_point: the median by work) runs alone and is timed: the
  // estimate for the rest (analysis::estimate_sweep), and above --confirm-above a question (or,
  // without a terminal, a refusal unless --yes).
  if (const auto calibration = calibration_point(sweep, spec, results); calibration && !g_interrupted.load()) {
    const std::size_t i = *calibration;
    const auto t0 = std::chrono::steady_clock::now();
    results[i] = run_point(sweep, spec, sweep.points[i], calibrations);
    const double timed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    journal_point(i, *results[i]);
    const auto e = estimate_sweep(sweep, spec, results, sweep.points[i], timed_s, jobs);
    if (e.num_points_left > 0) {
      const auto& w = spec.workloads[sweep.series[sweep.points[i].series].workload];
      char buf[320];
      std::snprintf(buf, sizeof buf,
                    "sweep %s: estimate: %zu points left, about %s of wall time on %d jobs (timed: point %zu, %.3g s "
                    "for %lld requests x %lld output tokens; the others scaled by requests x output tokens)",
                    spec.name.c_str(), e.num_points_left, wall_text(e.wall_s).c_str(), e.workers, i, timed_s,
                    static_cast<long long>(sweep.points[i].num_requests), static_cast<long long>(w.output_tokens));
      std::cerr << buf << "\n";
      const double above_s = o.confirm_above_min * 60;
      if (e.wall_s > above_s && !o.yes && !g_interrupted.load()) {
        const std::string why = "sweep " + spec.name + ": about " + wall_text(e.wall_s) + " of wall time left (" +
                                std::to_string(e.num_points_left) + " points), above " + wall_text(above_s) +
                                " (--confirm-above " + minutes_text(o.confirm_above_min) + " min)";
        const std::string again = command_with(global, o, {"--resume", "--yes"});
        bool go = false;
        if (isatty(STDIN_FILENO) != 0) {
          std::cerr << why << ": run it? [y/N] " << std::flush;
          std::string answer;
          go = static_cast<bool>(std::getline(std::cin, answer)) && (answer == "y" || answer == "Y" || answer == "yes");
        }
        if (!go && !g_interrupted.load()) {
          throw core::InputError(why + ": not run; the timed point is journaled, run the rest with: " + again);
        }
      }
    }
  }
  if (!g_interrupted.load()) run_points(sweep, spec, calibrations, jobs, results, journal_point, &g_interrupted);
  if (g_interrupted.load()) {
    journal_out.close();
    const auto done = static_cast<std::size_t>(
        std::count_if(results.begin(), results.end(), [](const auto& r) { return r.has_value(); }));
    std::cerr << "sweep " << spec.name << ": interrupted: " << done << " of " << sweep.points.size()
              << " points finished and journaled in " << journal.string() << "; resume with:\n  "
              << command_with(global, o, {"--resume"}) << "\n";
    return kExitInterrupted;
  }
  const double run_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();

  const auto errors = load_model_errors(catalog.root);
  SweepData data{&spec, &sweep, &calibrations, {}, &errors};
  for (auto& r : results) data.perf.push_back(*r);
  const auto groups = make_groups(data);
  write_outputs(out, data, groups, o.no_png, o.report);
  print_answer(data, groups);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  const std::size_t ran = sweep.points.size() - resumed;
  std::printf("\n%zu points simulated in %.1f s (%.3f s per point per job, %d jobs), %zu resumed; wall %.1f s\n", ran,
              run_s, ran > 0 ? run_s * jobs / static_cast<double>(ran) : 0.0, jobs, resumed, wall_s);
  std::printf(
      "wrote %s/{points.csv,operating_points.csv,summary.json,pareto.svg,cost_vs_interactivity.svg,"
      "ttft_vs_throughput.svg,margin_vs_price.svg}%s\n",
      out.string().c_str(), o.report.empty() ? "" : (" and " + o.report).c_str());
  return kExitOk;
}

// `tycoon sweep SPEC`: the flags checked, the spec expanded and its output refused before any work
// when it cannot be written, then a shard or the whole sweep.
int run_sweep(const SweepOptions& o, const GlobalOptions& global) {
  if (o.spec.empty()) throw std::invalid_argument("sweep: a spec file is required (or `sweep merge PARTS...`)");
  std::optional<std::pair<std::size_t, std::size_t>> shard;
  if (!o.shard.empty()) shard = parse_shard(o.shard);
  if (shard && !o.report.empty()) {
    throw std::invalid_argument("--shard with --report: a shard holds part of the sweep; ask `sweep merge --report`");
  }
  if (shard && o.resume) {
    throw std::invalid_argument(
        "--shard with --resume: a shard resumes on its own (run the same --shard command again: it reuses the points "
        "journaled in its part-i-of-n.journal.jsonl)");
  }
  const auto wall_start = std::chrono::steady_clock::now();
  auto catalog = load_catalog_for(global);
  SweepSpec spec = load_sweep_spec(o.spec);
  spec.conservative = o.conservative;
  const ExpandedSweep sweep = expand_sweep(spec, catalog);
  for (const auto& note : sweep.notes) std::cerr << "note: " << note << "\n";
  const fs::path out = o.out.empty() ? fs::path("sweeps") / spec.name : fs::path(o.out);
  const int jobs = o.jobs > 0 ? o.jobs : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  if (!o.allow_long_run) {
    if (auto why = analysis::sweep_long_run(spec, sweep, shard ? shard->second : 1, jobs))
      throw core::InputError(*why + kLongRunHint);
  }

  // Output paths are input too: refuse them before any work.
  const std::string out_flag = o.out.empty() ? "the output folder (--out)" : "--out";
  if (!o.report.empty()) check_output_file("--report", o.report);
  check_output_folder(out_flag, out);
  // A whole sweep goes into a new or empty folder or a sweep's (never `/` or a folder of other
  // files); shards write their part files into one folder, which holds no sweep.json.
  if (!shard) check_sweep_folder(out_flag, out);
  // A fresh start over an earlier journal would discard its points: refused, --resume reuses them.
  if (!shard && !o.resume) check_no_journal(out_flag, out);
  // One writer at a time (shards write a part file each, atomically: they may share a folder).
  std::optional<FolderLock> lock;
  if (!shard && (!o.resume || fs::is_directory(out))) {
    fs::create_directories(out);
    lock.emplace(out_flag, out, "tycoon sweep " + o.spec);
  }
  if (shard) return run_shard(spec, sweep, catalog, *shard, jobs, out);
  return run_whole(o, global, spec, sweep, catalog, jobs, out, wall_start);
}

}  // namespace

CommandRunner add_sweep_command(CLI::App& app, const GlobalOptions& global) {
  auto o = std::make_shared<SweepOptions>();
  auto* sub = app.add_subcommand("sweep", "What-if sweep over a grid (spec JSON): CSV, JSON summary, Pareto charts");
  sub->add_option("spec", o->spec, "Sweep spec (JSON; format in docs/analysts.md, \"Analyst sweeps\")");
  sub->add_option("--out", o->out, "Output folder (default: sweeps/<spec name>)");
  sub->add_option("--jobs", o->jobs, "Worker threads (default: the number of cores)")->check(CLI::Range(1, 1024));
  sub->add_option("--report", o->report, "Also write a self-contained HTML report to this file");
  sub->add_flag("--resume", o->resume,
                "Continue the sweep in --out, reusing its finished points (also after seeds or other values were "
                "added to the spec: points whose inputs are unchanged are reused)");
  sub->add_flag("--conservative", o->conservative,
                "Pick operating points that meet every target at the far end of each figure's 95% interval, not on "
                "its mean");
  sub->add_flag("--yes", o->yes, "Run a sweep estimated above --confirm-above without asking");
  sub->add_option("--confirm-above", o->confirm_above_min,
                  "Minutes of estimated wall time above which the sweep asks first (without a terminal: refuses "
                  "unless --yes); the estimate times one point first (default 30)")
      ->check(finite_range(0, 1e6));
  sub->add_flag("--no-png", o->no_png, "Do not convert the charts to PNG even when a converter is installed");
  sub->add_flag("--allow-long-run", o->allow_long_run,
                "Run a sweep above the long-run bounds (a point of more than 1e6 requests or 20,000 users, or "
                "more than an hour of wall time)");
  sub->add_option("--shard", o->shard,
                  "i/n: run only points i, i+n, i+2n, ... (0 <= i < n) and write --out/part-i-of-n.json for "
                  "`tycoon sweep merge`");
  auto* merge = sub->add_subcommand("merge", "Combine the part files of `sweep SPEC --shard i/n` runs into one sweep");
  merge->add_option("parts", o->parts, "Part files (part-i-of-n.json), every shard exactly once")->required();
  merge->add_option("--out", o->merge_out, "Output folder: gets exactly what one unsharded run writes")->required();
  merge->add_option("--report", o->merge_report, "Also write a self-contained HTML report to this file");
  merge->add_flag("--no-png", o->merge_no_png, "Do not convert the charts to PNG");

  return [o, &global, merge]() { return merge->parsed() ? run_merge(*o, global) : run_sweep(*o, global); };
}

}  // namespace tycoon::cli
