#include "cli/sweep_output.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "cli/common.h"
#include "sim/core/atomic_file.h"

extern char** environ;

namespace tycoon::cli {

namespace {

namespace fs = std::filesystem;
using namespace tycoon::analysis;

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

}  // namespace

SweepProgress::SweepProgress(std::size_t total, std::size_t already_done)
    : total_(total),
      done_(already_done),
      start_done_(already_done),
      tty_(isatty(fileno(stderr)) != 0),
      start_(std::chrono::steady_clock::now()) {
  step_ = std::max<std::size_t>(1, total / 10);
  next_line_ = ((done_ / step_) + 1) * step_;
}

void SweepProgress::tick() {
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

void write_output(const fs::path& path, const std::string& text) { core::write_file_atomically(path, text); }

void print_answer(const SweepData& data, const std::vector<Group>& groups) {
  const auto& spec = *data.spec;
  const auto ops = ranked_operating_points(data, groups);
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
        std::string on;
        for (std::size_t i = 0; i < op.binding.size(); ++i) on += (i ? ", " : "") + op.binding[i];
        std::printf("  %-44s   interpolated at the %s target%s between %d and %d users\n", "", on.c_str(),
                    spec.conservative ? " (interval's far end)" : " (on the mean; --conservative: its interval)",
                    groups[*op.group].concurrency, groups[*op.upper_group].concurrency);
      }
      // Users are over the whole deployment; per GPU they compare deployments of different sizes.
      if (const int gpus = data.sweep->configs[data.sweep->series[op.series].config].num_gpus(); gpus > 1) {
        std::printf("  %-44s   %d GPUs: %s users per GPU\n", "", gpus,
                    format_fixed(op.concurrency / gpus, op.concurrency / gpus < 10 ? 2 : 1).c_str());
      }
      for (const auto& m : op.marginal) std::printf("  %-44s   marginal: %s\n", "", m.c_str());
      if (const auto& per_mw = op.at(Metric::kOutputTokPerSPerMw); per_mw.n > 0 && std::isfinite(per_mw.mean)) {
        std::printf("  %-44s   power: %s output tok/s per MW, %s kWh per Mtok output (%.0f W/GPU all in)\n", "",
                    pm(per_mw, 1, 0).c_str(), pm(op.at(Metric::kEnergyKwhPerOutputMtok), 1, 3).c_str(),
                    data.sweep->configs[data.sweep->series[op.series].config].all_in_power_watts);
      }
      {
        // The cost per Mtok output at the chip's catalog price of each contract (NaN: no such price).
        std::string by_contract;
        const std::array<Metric, 3> costs = {Metric::kCostOnDemandUsdPerMtok, Metric::kCostReservedUsdPerMtok,
                                             Metric::kCostSpotUsdPerMtok};
        for (std::size_t k = 0; k < costs.size(); ++k) {
          const auto& c = op.at(costs[k]);
          if (c.n == 0 || !std::isfinite(c.mean)) continue;
          by_contract += std::string(by_contract.empty() ? "" : ", ") +
                         std::string(k == 0 ? "on demand" : kContractNames[k]) + " $" + pm(c, 1, 3);
        }
        if (!by_contract.empty()) {
          std::printf("  %-44s   cost per Mtok output at catalog rents: %s\n", "", by_contract.c_str());
        }
      }
      if (const auto prices = prices_for_target_margin(data, op)) {
        std::printf("  %-44s   price for %.0f%% margin: $%.3f in / $%.3f out per Mtok\n", "",
                    100 * *spec.target_gross_margin, prices->input_usd_per_mtok, prices->output_usd_per_mtok);
      }
      if (spec.target_gross_margin) {
        const auto held = resolve_prices(spec.prices[0],
                                         *data.sweep->configs[data.sweep->series[op.series].config].deployment().model);
        std::printf("  %-44s   or, input held at %s ($%.3f in, $%.3f cached): $%s out per Mtok\n", "",
                    spec.prices[0].name.c_str(), held.input_usd_per_mtok, held.cached_input_usd_per_mtok,
                    pm(op.at(Metric::kOutputPriceForTargetMarginUsdPerMtok), 1, 3).c_str());
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
  // Points whose P90s did not settle by the steady-state rule's cap: said plainly, with why.
  std::size_t not_steady = 0;
  std::string example;
  for (const auto& p : data.perf) {
    if (!p.unsettled()) continue;
    if (not_steady++ == 0) example = p.why_not_stationary;
  }
  if (not_steady > 0) {
    std::printf(
        "  %zu of %zu points are not stationary by the cap (their P90 intervals stay wide; summary.json lists "
        "each), e.g.: %s\n",
        not_steady, data.perf.size(), example.c_str());
  }
}

void write_outputs(const fs::path& out, const SweepData& data, const std::vector<Group>& groups, bool no_png,
                   const std::string& report) {
  {
    std::ofstream csv(out / "points.csv", std::ios::binary);
    write_points_csv(csv, data);
    if (!csv) throw std::runtime_error("cannot write " + (out / "points.csv").string());
  }
  {
    std::ostringstream ops;
    write_operating_points_csv(ops, data, groups);
    write_output(out / "operating_points.csv", ops.str());
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

}  // namespace tycoon::cli
