// `tycoon sweep`: what-if grids for analysts. Reads a strict JSON spec (format in README.md,
// "Analyst sweeps"), simulates every point on a pool of threads with a progress bar, journals
// each finished point so an interrupted sweep resumes, and writes points.csv, summary.json, the
// SVG (and PNG) charts and, when asked, a self-contained HTML report.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/common.h"
#include "sim/analysis/sweep_report.h"
#include "sim/analysis/sweep_run.h"
#include "sim/analysis/sweep_spec.h"
#include "sim/core/atomic_file.h"
#include "sim/data/json_reader.h"
#include "sim/core/input_error.h"

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
};

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
void write_file(const fs::path& path, const std::string& text) { core::write_file_atomically(path, text); }

// Runs a program found on PATH with exactly these arguments — no shell, so no file name is ever
// parsed as a command — its stderr discarded. Returns its exit status, or nullopt when it could
// not be started (not installed).
std::optional<int> run_program(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
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

// PNG copies of the charts when a converter is installed; quietly nothing otherwise.
void write_pngs(const std::vector<fs::path>& svgs) {
  bool rsvg = true;  // rsvg-convert first, ImageMagick's convert when it is missing
  for (const auto& svg : svgs) {
    fs::path png = svg;
    png.replace_extension(".png");
    std::optional<int> status;
    if (rsvg) {
      status = run_program({"rsvg-convert", "-o", png.string(), svg.string()});
      if (!status) rsvg = false;
    }
    if (!rsvg) status = run_program({"convert", svg.string(), png.string()});
    if (!status) return;  // neither is installed
    if (*status != 0) {
      std::cerr << "sweep: note: " << (rsvg ? "rsvg-convert" : "convert") << " could not render SVG; no PNGs\n";
      return;
    }
  }
}

// Finished points of an earlier run of the same spec, by point hash. A torn last line (the run
// was killed while writing it) is ignored: that point is simply run again.
std::map<std::string, PointPerf> read_journal(const fs::path& path) {
  std::map<std::string, PointPerf> out;
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty()) continue;
    try {
      auto j = data::parse_json_text(line, path.string());
      out[j.at("hash").get<std::string>()] = PointPerf::from_json(j.at("perf"));
    } catch (const std::exception&) {
      // a torn line
    }
  }
  return out;
}

}  // namespace

CommandRunner add_sweep_command(CLI::App& app, const GlobalOptions& global) {
  auto o = std::make_shared<SweepOptions>();
  auto* sub = app.add_subcommand("sweep", "What-if sweep over a grid (spec JSON): CSV, JSON summary, Pareto charts");
  sub->add_option("spec", o->spec, "Sweep spec (JSON; format in README.md, \"Analyst sweeps\")")->required();
  sub->add_option("--out", o->out, "Output folder (default: sweeps/<spec name>)");
  sub->add_option("--jobs", o->jobs, "Worker threads (default: the number of cores)")->check(CLI::Range(1, 1024));
  sub->add_option("--report", o->report, "Also write a self-contained HTML report to this file");
  sub->add_flag("--resume", o->resume, "Continue an interrupted sweep in --out, skipping finished points");
  sub->add_flag("--no-png", o->no_png, "Do not convert the charts to PNG even when a converter is installed");

  return [o, &global]() {
    const auto wall_start = std::chrono::steady_clock::now();
    auto catalog = load_catalog_for(global);
    const SweepSpec spec = load_sweep_spec(o->spec);
    const ExpandedSweep sweep = expand_sweep(spec, catalog);
    const fs::path out = o->out.empty() ? fs::path("sweeps") / spec.name : fs::path(o->out);
    const int jobs = o->jobs > 0 ? o->jobs : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));

    // Output paths are input too: refuse them before any work.
    if (!o->report.empty()) {
      const fs::path parent = fs::absolute(o->report).parent_path();
      if (!fs::is_directory(parent)) throw core::InputError("--report: no folder " + parent.string());
      if (fs::is_directory(o->report)) throw core::InputError("--report: " + o->report + " is a folder, not a file");
    }
    if (fs::exists(out) && !fs::is_directory(out)) {
      throw core::InputError("--out: " + out.string() + " exists and is not a folder");
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
      auto done = read_journal(journal);
      for (std::size_t i = 0; i < sweep.points.size(); ++i) {
        if (auto it = done.find(sweep.points[i].hash); it != done.end()) {
          results[i] = it->second;
          ++resumed;
        }
      }
    } else {
      fs::create_directories(out);
      write_file(
          out / kResolved,
          nlohmann::json{{"spec_hash", sweep.spec_hash}, {"spec_file", spec.file}, {"spec", spec.canonical}}.dump(2) +
              "\n");
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

    SweepData data{&spec, &sweep, &calibrations, {}};
    for (auto& r : results) data.perf.push_back(*r);
    const auto groups = make_groups(data);
    {
      std::ofstream csv(out / "points.csv", std::ios::binary);
      write_points_csv(csv, data);
      if (!csv) throw std::runtime_error("cannot write " + (out / "points.csv").string());
    }
    const auto summary = summary_json(data, groups);
    write_file(out / "summary.json", summary.dump(2) + "\n");
    std::vector<fs::path> svgs = {out / "pareto.svg", out / "cost_vs_interactivity.svg", out / "margin_vs_price.svg"};
    write_file(svgs[0], render_svg(pareto_chart(data, groups)));
    write_file(svgs[1], render_svg(cost_chart(data, groups)));
    write_file(svgs[2], render_svg(margin_chart(data, groups)));
    if (!o->no_png) write_pngs(svgs);
    if (!o->report.empty()) write_file(o->report, html_report(data, groups));

    // The answer on stdout: operating points, best first.
    std::printf("%s\n", spec.title.c_str());
    std::printf("  %-44s %6s %16s %16s %14s %12s  %s\n", "series", "users", "tok/s/GPU", "P90 tok/s/user",
                "USD/Mtok out", "margin %", "provenance");
    for (const auto& op : summary["operating_points"]) {
      const std::string label = op["series"].get<std::string>();
      if (!op["meets_target"].get<bool>()) {
        std::printf("  %-44s  no concurrency meets the interactivity target\n", label.c_str());
        continue;
      }
      auto pm = [](const nlohmann::json& e, double scale, int digits) {
        if (e["mean"].is_null()) return std::string("-");
        std::string s = format_fixed(e["mean"].get<double>() * scale, digits);
        if (!e["half_width_95"].is_null()) s += "±" + format_fixed(e["half_width_95"].get<double>() * scale, digits);
        return s;
      };
      std::printf("  %-44s %6d %16s %16s %14s %12s  %s\n", label.substr(0, 44).c_str(), op["concurrency"].get<int>(),
                  pm(op["output_tok_per_s_per_gpu"], 1, 1).c_str(), pm(op["p90_tok_per_s_per_user"], 1, 1).c_str(),
                  pm(op["cost_output_only_usd_per_mtok"], 1, 3).c_str(), pm(op["gross_margin"], 100, 1).c_str(),
                  op["provenance"].get<std::string>().c_str());
      if (op.contains("price_for_target_margin") && !op["price_for_target_margin"]["output_usd_per_mtok"].is_null()) {
        std::printf("  %-44s   price for %.0f%% margin: $%.3f in / $%.3f out per Mtok\n", "",
                    100 * spec.target_gross_margin.value_or(0),
                    op["price_for_target_margin"]["input_usd_per_mtok"].get<double>(),
                    op["price_for_target_margin"]["output_usd_per_mtok"].get<double>());
      }
    }
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    const std::size_t ran = sweep.points.size() - resumed;
    std::printf("\n%zu points simulated in %.1f s (%.3f s per point per job, %d jobs), %zu resumed; wall %.1f s\n", ran,
                run_s, ran > 0 ? run_s * jobs / static_cast<double>(ran) : 0.0, jobs, resumed, wall_s);
    std::printf("wrote %s/{points.csv,summary.json,pareto.svg,cost_vs_interactivity.svg,margin_vs_price.svg}%s\n",
                out.string().c_str(), o->report.empty() ? "" : (" and " + o->report).c_str());
    return kExitOk;
  };
}

}  // namespace tycoon::cli
