// `tycoon sweep`: what-if grids for analysts. Reads a strict JSON spec (format in docs/analysts.md,
// "Analyst sweeps"), simulates every point on a pool of threads with a progress bar, journals
// each finished point so an interrupted sweep resumes, and writes points.csv, summary.json, the
// SVG (and PNG) charts and, when asked, a self-contained HTML report.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/folder_lock.h"
#include "cli/long_run.h"
#include "sim/analysis/sweep_journal.h"
#include "sim/analysis/sweep_report.h"
#include "sim/analysis/sweep_run.h"
#include "sim/analysis/sweep_spec.h"
#include "sim/core/atomic_file.h"
#include "sim/core/input_error.h"
#include "sim/data/json_reader.h"

extern char** environ;

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
  // `tycoon sweep merge PARTS... --out DIR`
  std::vector<std::string> parts;
  std::string merge_out;
  std::string merge_report;
  bool merge_no_png = false;
};

constexpr const char* kPartFormat = "tycoon-sweep-part";

constexpr const char* kJournal = "points.jsonl";
constexpr const char* kResolved = "sweep.json";

std::string duration_text(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  char buf[32];
  if (s < 60) {
    std::snprintf(buf, sizeof buf, "%.0fs", s);
  } else if (s < 3600) {
    std::snprintf(buf, sizeof buf, "%dm%02ds", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%dh%02dm", static_cast<int>(s) / 3600, (static_cast<int>(s) / 60) % 60);
  }
  return buf;
}

// Progress on stderr: a redrawn bar with rate and ETA on a terminal, a line per tenth otherwise.
class Progress {
 public:
  Progress(std::size_t total, std::size_t already_done)
      : total_(total),
        done_(already_done),
        start_done_(already_done),
        tty_(isatty(fileno(stderr)) != 0),
        start_(std::chrono::steady_clock::now()) {
    step_ = std::max<std::size_t>(1, total / 10);
    next_line_ = ((done_ / step_) + 1) * step_;
  }

  void tick() {
    ++done_;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double rate = elapsed > 0 ? static_cast<double>(done_ - start_done_) / elapsed : 0;
    const double eta = rate > 0 ? static_cast<double>(total_ - done_) / rate : -1;
    const double pct = 100.0 * static_cast<double>(done_) / static_cast<double>(total_);
    if (tty_) {
      // Redraw at most ten times a second (and always at the end).
      if (done_ != total_ && elapsed - last_draw_s_ < 0.1) return;
      last_draw_s_ = elapsed;
      constexpr int kWidth = 32;
      const int filled = static_cast<int>(kWidth * done_ / total_);
      std::fprintf(stderr, "\r[%s%s] %zu/%zu %5.1f%%  %.1f points/s  ETA %s   ", std::string(filled, '#').c_str(),
                   std::string(kWidth - filled, '.').c_str(), done_, total_, pct, rate, duration_text(eta).c_str());
      if (done_ == total_) std::fprintf(stderr, "\n");
    } else if (done_ >= next_line_ || done_ == total_) {
      std::fprintf(stderr, "sweep: %zu/%zu points (%.0f%%), %.1f points/s, ETA %s\n", done_, total_, pct, rate,
                   duration_text(eta).c_str());
      next_line_ = ((done_ / step_) + 1) * step_;
    }
  }

 private:
  std::size_t total_, done_, start_done_, step_ = 1, next_line_ = 1;
  bool tty_;
  double last_draw_s_ = -1;
  std::chrono::steady_clock::time_point start_;
};

// Replaced atomically, never written through a planted symlink (sim/core/atomic_file.h).
void write_output(const fs::path& path, const std::string& text) { core::write_file_atomically(path, text); }

// Runs a program found on PATH with exactly these arguments — no shell, so no file name is ever
// parsed as a command — its stdout and stderr discarded. Returns its exit status, or nullopt when it could
// not be started (not installed).
std::optional<int> run_program(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);  // stdout is the answer
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return std::nullopt;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return std::nullopt;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

// The width and height attributes of our own root <svg> element (render_svg writes both).
std::pair<int, int> svg_size(const std::string& svg) {
  auto attr = [&](const char* name) {
    const auto at = svg.find(std::string(" ") + name + "=\"");
    return at == std::string::npos ? 0 : std::atoi(svg.c_str() + at + std::strlen(name) + 3);
  };
  return {attr("width"), attr("height")};
}

// PNG copies of the charts with the first converter that is installed and renders SVG:
// rsvg-convert, then a headless Chromium (the browser tests' own), then ImageMagick's convert
// (which needs an SVG delegate); quietly nothing when none is installed.
void write_pngs(const std::vector<std::pair<fs::path, std::string>>& svgs) {
  enum class Tool { kRsvg, kChromium, kChromiumBrowser, kConvert };
  auto args = [](Tool t, const fs::path& svg, const fs::path& png, std::pair<int, int> size) {
    switch (t) {
      case Tool::kRsvg:
        return std::vector<std::string>{"rsvg-convert", "-o", png.string(), svg.string()};
      case Tool::kChromium:
      case Tool::kChromiumBrowser:
        return std::vector<std::string>{
            t == Tool::kChromium ? "chromium" : "chromium-browser",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--screenshot=" + fs::absolute(png).string(),
            "--window-size=" + std::to_string(size.first) + "," + std::to_string(size.second),
            "file://" + fs::absolute(svg).string()};
      case Tool::kConvert:
        break;
    }
    return std::vector<std::string>{"convert", svg.string(), png.string()};
  };
  std::vector<Tool> tools = {Tool::kRsvg, Tool::kChromium, Tool::kChromiumBrowser, Tool::kConvert};
  bool any_installed = false;
  for (std::size_t k = 0; k < svgs.size(); ++k) {
    const auto& [svg, text] = svgs[k];
    fs::path png = svg;
    png.replace_extension(".png");
    bool done = false;
    while (!tools.empty() && !done) {
      std::error_code ec;
      fs::remove(png, ec);
      const auto status = run_program(args(tools.front(), svg, png, svg_size(text)));
      any_installed = any_installed || status.has_value();
      done = status && *status == 0 && fs::file_size(png, ec) > 0 && !ec;
      if (!done) tools.erase(tools.begin());  // not installed, or cannot render: the next one
    }
    if (!done) {
      if (any_installed) std::cerr << "sweep: note: no installed converter could render SVG; no PNGs\n";
      return;
    }
  }
}

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

std::string part_name(std::size_t i, std::size_t n) {
  return "part-" + std::to_string(i) + "-of-" + std::to_string(n) + ".json";
}

// The operating points as a console table, best first: one margin column per price, the failed
// share, and which concurrencies missed a target and why.
void print_answer(const SweepData& data, const std::vector<Group>& groups) {
  const auto& spec = *data.spec;
  auto ops = operating_points(data, groups);
  std::stable_sort(ops.begin(), ops.end(), [&](const OperatingPoint& a, const OperatingPoint& b) {
    const double ta = a.found() ? a.at(Metric::kOutputTokPerSPerGpu).mean : -1;
    const double tb = b.found() ? b.at(Metric::kOutputTokPerSPerGpu).mean : -1;
    return ta > tb;
  });
  auto pm = [](const Estimate& e, double scale, int digits) {
    if (e.n == 0 || !std::isfinite(e.mean)) return std::string("-");
    std::string s = format_fixed(e.mean * scale, digits);
    const double h = e.total_half_width();
    if (std::isfinite(h)) s += "±" + format_fixed(h * scale, digits);
    return s;
  };
  std::printf("%s\n", spec.title.c_str());
  std::printf("  %-44s %7s %14s %14s %12s %8s %22s", "series", "users", "tok/s/GPU", "P90 tok/s/user", "P90 TTFT ms",
              "failed %", "USD/Mtok output-only");
  for (const auto& p : spec.prices) std::printf(" %18s", ("margin % " + p.name).c_str());
  std::printf("  %s\n", "provenance");
  for (const auto& op : ops) {
    const std::string label = series_legend(data, op.series);
    if (label.size() <= 44) {
      std::printf("  %-44s", label.c_str());
    } else {
      std::printf("  %s\n  %-44s", label.c_str(), "");
    }
    if (!op.found()) {
      std::printf(" no concurrency meets every target\n");
    } else {
      std::printf(" %7s %14s %14s %12s %8s %22s", format_fixed(op.concurrency, op.interpolated ? 1 : 0).c_str(),
                  pm(op.at(Metric::kOutputTokPerSPerGpu), 1, 1).c_str(),
                  pm(op.at(Metric::kP90InteractivityTokPerSPerUser), 1, 1).c_str(),
                  pm(op.at(Metric::kTtftP90Ms), 1, 0).c_str(), format_fixed(100 * op.failed_share, 1).c_str(),
                  pm(op.at(Metric::kCostOutputOnlyUsdPerMtok), 1, 3).c_str());
      for (std::size_t p = 0; p < spec.prices.size(); ++p) {
        std::printf(" %18s", pm(op.at(Metric::kGrossMargin, p), 100, 1).c_str());
      }
      std::printf("  %s\n", std::string(perf::to_string(op.provenance)).c_str());
      if (op.interpolated) {
        std::printf("  %-44s   interpolated at target between %d and %d users\n", "", groups[*op.group].concurrency,
                    groups[*op.upper_group].concurrency);
      }
      if (spec.target_gross_margin) {
        const auto& scale = op.at(Metric::kPriceScaleForTargetMargin);
        const auto tp = resolve_prices(spec.prices[0],
                                       *data.sweep->configs[data.sweep->series[op.series].config].deployment().model);
        if (std::isfinite(scale.mean)) {
          std::printf("  %-44s   price for %.0f%% margin: $%.3f in / $%.3f out per Mtok\n", "",
                      100 * *spec.target_gross_margin, scale.mean * tp.input_usd_per_mtok,
                      scale.mean * tp.output_usd_per_mtok);
        }
      }
    }
    std::size_t slower = 0;
    for (std::size_t k = 0; k < op.rejected.size(); ++k) {
      if (op.rejected_for_interactivity_only[k]) {
        ++slower;
      } else {
        std::printf("  %-44s   misses a target: %s\n", "", op.rejected[k].c_str());
      }
    }
    if (slower > 0 && !op.found()) {
      std::printf("  %-44s   %zu concurrencies below the interactivity target (summary.json lists each)\n", "", slower);
    }
  }
}

// Everything a finished sweep writes into `out` (one run, or merged shards: the same bytes).
void write_outputs(const fs::path& out, const SweepData& data, const std::vector<Group>& groups, bool no_png,
                   const std::string& report) {
  {
    std::ofstream csv(out / "points.csv", std::ios::binary);
    write_points_csv(csv, data);
    if (!csv) throw std::runtime_error("cannot write " + (out / "points.csv").string());
  }
  write_output(out / "summary.json", summary_json(data, groups).dump(2) + "\n");
  const std::vector<std::pair<fs::path, std::string>> svgs = {
      {out / "pareto.svg", render_svg(pareto_chart(data, groups))},
      {out / "cost_vs_interactivity.svg", render_svg(cost_chart(data, groups))},
      {out / "ttft_vs_throughput.svg", render_svg(ttft_chart(data, groups))},
      {out / "margin_vs_price.svg", render_svg(margin_chart(data, groups))}};
  for (const auto& [path, text] : svgs) write_output(path, text);
  if (!no_png) write_pngs(svgs);
  if (!report.empty()) write_output(report, html_report(data, groups));
}

void check_report_path(const std::string& report) {
  if (report.empty()) return;
  const fs::path parent = fs::absolute(report).parent_path();
  if (!fs::is_directory(parent)) throw std::invalid_argument("--report: no folder " + parent.string());
  if (fs::is_directory(report)) throw std::invalid_argument("--report: " + report + " is a folder, not a file");
}

std::string resolved_text(const SweepSpec& spec, const ExpandedSweep& sweep) {
  return nlohmann::json{{"spec_hash", sweep.spec_hash}, {"spec_file", spec.file}, {"spec", spec.canonical}}.dump(2) +
         "\n";
}

// The long-run guard of a sweep (cli/long_run.h): no point above the request or user bounds of a
// benchmark, and the points this run simulates (a shard's share) within an hour of wall time on
// its jobs.
void check_sweep_size(const SweepSpec& spec, const ExpandedSweep& sweep, std::size_t num_shards, int jobs) {
  constexpr double kMaxSweepWallS = 3600;
  double total = 0;
  for (const auto& p : sweep.points) {
    const std::string where =
        spec.file + ": point " + sweep.series[p.series].label + " at concurrency " + std::to_string(p.concurrency);
    check_run_requests(where, static_cast<double>(p.num_requests));
    check_run_users(where, p.concurrency);
    total += static_cast<double>(p.num_requests);
  }
  total /= static_cast<double>(std::max<std::size_t>(1, num_shards));
  if (total / (kSimRequestsPerWallS * jobs) > kMaxSweepWallS) {
    throw core::InputError(spec.file + ": " + std::to_string(sweep.points.size()) + " points, " +
                           run_estimate(total, jobs) + ", more than an hour" + kLongRunHint);
  }
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
    if (by_index[p.index]) {
      throw std::invalid_argument("shard " + std::to_string(p.index) + "/" + std::to_string(p.count) +
                                  " given twice: " + by_index[p.index]->file + " and " + p.file);
    }
    by_index[p.index] = &p;
  }
  for (std::size_t i = 0; i < by_index.size(); ++i) {
    if (!by_index[i]) {
      throw std::invalid_argument("shard " + std::to_string(i) + "/" + std::to_string(first.count) +
                                  " is missing (expected " + part_name(i, first.count) + ")");
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
      if (index >= sweep.points.size() || index % p.count != p.index || sweep.points[index].hash != h) {
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
  write_output(out / kResolved, resolved_text(spec, sweep));
  {
    std::ofstream f(out / kJournal, std::ios::trunc);  // grid order: --resume reads it like a run's
    for (std::size_t i = 0; i < results.size(); ++i) {
      f << nlohmann::json{{"hash", sweep.points[i].hash}, {"perf", results[i]->to_json()}}.dump() << "\n";
    }
  }
  const auto calibrations = calibrations_for(sweep, catalog);
  const auto errors = load_model_errors(catalog.root);
  SweepData data{&spec, &sweep, &calibrations, {}, &errors};
  for (auto& r : results) data.perf.push_back(*r);
  const auto groups = make_groups(data);
  write_outputs(out, data, groups, o.merge_no_png, o.merge_report);
  print_answer(data, groups);
  std::printf("\nmerged %zu parts (%zu points) into %s\n", parts.size(), results.size(), out.string().c_str());
  return kExitOk;
}

}  // namespace

CommandRunner add_sweep_command(CLI::App& app, const GlobalOptions& global) {
  auto o = std::make_shared<SweepOptions>();
  auto* sub = app.add_subcommand("sweep", "What-if sweep over a grid (spec JSON): CSV, JSON summary, Pareto charts");
  sub->add_option("spec", o->spec, "Sweep spec (JSON; format in docs/analysts.md, \"Analyst sweeps\")");
  sub->add_option("--out", o->out, "Output folder (default: sweeps/<spec name>)");
  sub->add_option("--jobs", o->jobs, "Worker threads (default: the number of cores)")->check(CLI::Range(1, 1024));
  sub->add_option("--report", o->report, "Also write a self-contained HTML report to this file");
  sub->add_flag("--resume", o->resume, "Continue an interrupted sweep in --out, skipping finished points");
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

  return [o, &global, merge]() {
    if (merge->parsed()) return run_merge(*o, global);
    if (o->spec.empty()) throw std::invalid_argument("sweep: a spec file is required (or `sweep merge PARTS...`)");
    std::optional<std::pair<std::size_t, std::size_t>> shard;
    if (!o->shard.empty()) shard = parse_shard(o->shard);
    if (shard && !o->report.empty()) {
      throw std::invalid_argument("--shard with --report: a shard holds part of the sweep; ask `sweep merge --report`");
    }
    if (shard && o->resume) {
      throw std::invalid_argument(
          "--shard with --resume: a shard is rerun whole (its part file is written at the end)");
    }
    const auto wall_start = std::chrono::steady_clock::now();
    auto catalog = load_catalog_for(global);
    const SweepSpec spec = load_sweep_spec(o->spec);
    const ExpandedSweep sweep = expand_sweep(spec, catalog);
    const fs::path out = o->out.empty() ? fs::path("sweeps") / spec.name : fs::path(o->out);
    const int jobs = o->jobs > 0 ? o->jobs : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    if (!o->allow_long_run) check_sweep_size(spec, sweep, shard ? shard->second : 1, jobs);

    // Output paths are input too: refuse them before any work.
    if (!o->report.empty()) check_output_file("--report", o->report);
    check_output_folder(o->out.empty() ? "the output folder (--out)" : "--out", out);
    // A whole sweep goes into a new or empty folder or a sweep's (never `/` or a folder of other
    // files); shards write their part files into one folder, which holds no sweep.json.
    if (!shard) check_sweep_folder(o->out.empty() ? "the output folder (--out)" : "--out", out);
    // One writer at a time (shards write a part file each, atomically: they may share a folder).
    std::optional<FolderLock> lock;
    if (!shard && (!o->resume || fs::is_directory(out))) {
      fs::create_directories(out);
      lock.emplace(o->out.empty() ? "the output folder (--out)" : "--out", out, "tycoon sweep " + o->spec);
    }
    if (shard) {
      // Every n-th point from i (strided, so each shard gets its share of every configuration),
      // written as one self-describing part: the spec, its hash, the shard and each point's result.
      const auto [si, sn] = *shard;
      ExpandedSweep mine = sweep;
      mine.points.clear();
      std::vector<std::size_t> index;
      for (std::size_t i = si; i < sweep.points.size(); i += sn) {
        mine.points.push_back(sweep.points[i]);
        index.push_back(i);
      }
      const auto calibrations = calibrations_for(sweep, catalog);
      std::cerr << "sweep " << spec.name << ": shard " << si << "/" << sn << ": " << mine.points.size() << " of "
                << sweep.points.size() << " points, " << jobs << " jobs\n";
      std::vector<std::optional<PointPerf>> res(mine.points.size());
      Progress progress(mine.points.size(), 0);
      const auto run_start = std::chrono::steady_clock::now();
      if (!mine.points.empty()) {
        run_points(mine, spec, calibrations, jobs, res, [&](std::size_t, const PointPerf&) { progress.tick(); });
      }
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
                                   {"points", pts}};
      fs::create_directories(out);
      const fs::path file = out / part_name(si, sn);
      write_output(file, part.dump() + "\n");
      std::printf("shard %zu/%zu: %zu of %zu points simulated in %.1f s; wrote %s\n", si, sn, res.size(),
                  sweep.points.size(), run_s, file.string().c_str());
      return kExitOk;
    }
    std::vector<std::optional<PointPerf>> results(sweep.points.size());
    std::size_t resumed = 0;
    const fs::path journal = out / kJournal;
    if (o->resume) {
      if (!fs::exists(out / kResolved)) {
        throw core::InputError("--resume: " + out.string() + " holds no sweep (no " + kResolved + ")");
      }
      nlohmann::json earlier;
      try {
        earlier = data::parse_json_file(out / kResolved);
      } catch (const std::exception&) {
        throw core::InputError("--resume: " + (out / kResolved).string() + " is not valid JSON");
      }
      const std::string earlier_hash = earlier.value("spec_hash", "");
      if (earlier_hash != sweep.spec_hash) {
        throw core::InputError("--resume: the spec changed since the sweep in " + out.string() +
                               " started (spec hash " + earlier_hash + ", now " + sweep.spec_hash +
                               "): use another --out, or drop --resume to start over");
      }
      std::string journal_text;
      if (fs::exists(journal)) journal_text = core::read_input_file(journal, core::kSweepJournalInput);
      // Checked, not trusted: a line of another sweep or with impossible figures is refused.
      auto done = parse_sweep_journal(journal_text, journal.string(), sweep, spec).points;
      for (std::size_t i = 0; i < sweep.points.size(); ++i) {
        if (auto it = done.find(sweep.points[i].hash); it != done.end()) {
          results[i] = it->second;
          ++resumed;
        }
      }
    } else {
      fs::create_directories(out);
      write_output(out / kResolved, resolved_text(spec, sweep));
      std::ofstream(journal, std::ios::trunc);
    }
    // Rewrite the journal with what was kept (drops torn lines), then append as points finish.
    {
      std::ofstream f(journal, std::ios::trunc);
      for (std::size_t i = 0; i < sweep.points.size(); ++i) {
        if (results[i])
          f << nlohmann::json{{"hash", sweep.points[i].hash}, {"perf", results[i]->to_json()}}.dump() << "\n";
      }
    }
    std::ofstream journal_out(journal, std::ios::app);
    if (!journal_out) throw std::runtime_error("cannot write " + journal.string());

    const auto calibrations = calibrations_for(sweep, catalog);
    std::cerr << "sweep " << spec.name << ": " << sweep.points.size() << " points (" << sweep.configs.size()
              << " configurations, " << spec.workloads.size() << " workloads, " << spec.concurrency.size()
              << " concurrencies, " << spec.seeds.size() << " seeds) x " << spec.prices.size() << " prices, " << jobs
              << " jobs";
    if (o->resume) std::cerr << "; resuming: " << resumed << " points already done";
    std::cerr << "\n";

    Progress progress(sweep.points.size(), resumed);
    const auto run_start = std::chrono::steady_clock::now();
    run_points(sweep, spec, calibrations, jobs, results, [&](std::size_t i, const PointPerf& p) {
      journal_out << nlohmann::json{{"hash", sweep.points[i].hash}, {"perf", p.to_json()}}.dump() << "\n";
      journal_out.flush();
      progress.tick();
    });
    const double run_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();

    const auto errors = load_model_errors(catalog.root);
    SweepData data{&spec, &sweep, &calibrations, {}, &errors};
    for (auto& r : results) data.perf.push_back(*r);
    const auto groups = make_groups(data);
    write_outputs(out, data, groups, o->no_png, o->report);
    print_answer(data, groups);
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    const std::size_t ran = sweep.points.size() - resumed;
    std::printf("\n%zu points simulated in %.1f s (%.3f s per point per job, %d jobs), %zu resumed; wall %.1f s\n", ran,
                run_s, ran > 0 ? run_s * jobs / static_cast<double>(ran) : 0.0, jobs, resumed, wall_s);
    std::printf(
        "wrote %s/{points.csv,summary.json,pareto.svg,cost_vs_interactivity.svg,ttft_vs_throughput.svg,"
        "margin_vs_price.svg}%s\n",
        out.string().c_str(), o->report.empty() ? "" : (" and " + o->report).c_str());
    return kExitOk;
  };
}

}  // namespace tycoon::cli
