// `tycoon fit` (efficiency curves from kernel measurements) and `tycoon validate` (prediction vs
// every end-to-end measurement).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "calibration/fit/fit_profile.h"
#include "calibration/fit/validate.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "sim/core/atomic_file.h"
#include "sim/core/input_error.h"
#include "sim/perf/profile_lookup.h"

namespace tycoon::cli {

namespace {

std::vector<std::filesystem::path> data_folders(const data::Catalog& catalog, const std::string& chip,
                                                const std::vector<std::string>& given) {
  std::vector<std::filesystem::path> out;
  for (const auto& g : given) out.emplace_back(g);
  if (out.empty()) {
    // calibration/data/<chip> and any multi-GPU sibling (<chip>x2, <chip>x4, ...).
    auto base = catalog.root / "calibration" / "data";
    if (std::filesystem::is_directory(base)) {
      for (const auto& e : std::filesystem::directory_iterator(base)) {
        auto name = e.path().filename().string();
        if (e.is_directory() && (name == chip || (name.rfind(chip + "x", 0) == 0))) out.push_back(e.path());
      }
    }
    std::sort(out.begin(), out.end());
  }
  if (out.empty()) throw core::InputError("no calibration data for '" + chip + "' (give --data DIR)");
  return out;
}

// Folder names for messages: "a, b".
std::string folder_list(const std::vector<std::filesystem::path>& folders) {
  std::string out;
  for (const auto& f : folders) {
    if (!out.empty()) out += ", ";
    out += f.string();
  }
  return out;
}

struct FitOptions {
  std::string hardware = "h200";
  std::vector<std::string> data;
  std::string out;
  bool in_use = false;
};

struct ValidateOptions {
  std::string hardware = "h200";
  std::vector<std::string> data;
  std::string profile;
  bool json = false;
  double max_median_error = 0;
  double max_error = 0;
  double max_host_bound_error = 0;
};

nlohmann::json stats_json(const calibration::ErrorStats& s) {
  return {{"rows", s.rows}, {"median_abs_error", s.median_abs}, {"max_abs_error", s.max_abs}};
}

}  // namespace

CommandRunner add_fit_command(CLI::App& app, const GlobalOptions& global) {
  auto o = std::make_shared<FitOptions>();
  auto* sub = app.add_subcommand("fit", "Fit a chip's efficiency curves from kernel measurements");
  sub->add_option("--hardware", o->hardware, "Chip the data was measured on");
  sub->add_option("--data", o->data, "Folders of *.jsonl rows (default: calibration/data/<chip>*)");
  sub->add_option("--out", o->out, "Write the profile here (default: print it)");
  sub->add_flag("--in-use", o->in_use,
                "Fit nothing: write the profile the simulator uses for --hardware (its own; else a measured "
                "sibling's curves, their throughput term scaled by the chip's datasheet; else datasheet defaults)")
      ->excludes(sub->get_option("--data"));
  return [o, &global]() {
    if (!o->out.empty()) check_output_file("--out", o->out);
    auto catalog = load_catalog_for(global);
    const auto& chip = catalog.accelerator(o->hardware);
    if (o->in_use) {
      std::string text = perf::to_json(perf::calibration_for(catalog, chip)).dump(2) + "\n";
      if (o->out.empty()) {
        std::cout << text;
      } else {
        core::write_file_atomically(o->out, text);
      }
      return kExitOk;
    }
    auto folders = data_folders(catalog, chip.id, o->data);
    auto rows = calibration::load_rows(folders);
    if (rows.empty()) throw std::invalid_argument("--data: no measurement rows in " + folder_list(folders));
    std::string source = "tycoon fit --hardware " + chip.id + " on";
    for (const auto& f : folders) source += " " + std::filesystem::relative(f, catalog.root).generic_string();
    auto rep = calibration::fit_profile(rows, chip, source);
    if (rep.num_kernel_rows == 0) {
      throw std::invalid_argument("--data: no kernel rows for " + chip.id + " in " + folder_list(folders) +
                                  ": nothing to fit");
    }
    std::string text = perf::to_json(rep.profile).dump(2) + "\n";
    if (o->out.empty()) {
      std::cout << text;
    } else {
      core::write_file_atomically(o->out, text);
    }
    std::fprintf(stderr, "fit %s from %d kernel rows; copy bandwidth %.0f GB/s, kernel floor %.2f us\n",
                 chip.id.c_str(), rep.num_kernel_rows, rep.copy_bandwidth_bytes_per_s / 1e9,
                 rep.profile.kernel_floor_s * 1e6);
    std::fprintf(stderr,
                 "  eager launch %.1f us per kernel; PyTorch eager ops %.1f us (one process), %.1f us (each of a TP "
                 "group), from %d host rows\n",
                 rep.profile.eager_launch_s * 1e6, rep.profile.python_op_launch_s * 1e6,
                 rep.profile.python_op_launch_tp_s * 1e6, rep.eager_launch_rows);
    for (const auto& c : rep.curves) {
      std::fprintf(stderr, "  %-26s %4d rows, median |residual| %5.1f%%\n", c.name.c_str(), c.num_rows,
                   100 * c.median_abs_residual);
    }
    return kExitOk;
  };
}

CommandRunner add_validate_command(CLI::App& app, const GlobalOptions& global) {
  auto o = std::make_shared<ValidateOptions>();
  auto* sub = app.add_subcommand("validate", "Compare predictions with every end-to-end calibration measurement");
  sub->add_option("--hardware", o->hardware, "Chip");
  sub->add_option("--data", o->data, "Folders of *.jsonl rows (default: calibration/data/<chip>*)");
  sub->add_option("--profile", o->profile, "Calibration profile (default: hardware_db/calibrated/<chip>.json)");
  sub->add_flag("--json", o->json, "JSON on stdout");
  sub->add_option("--max-median-error", o->max_median_error, "Exit 1 when the median |error| exceeds this")
      ->check(finite_range(1e-6, 10.0));
  sub->add_option("--max-error", o->max_error,
                  "Exit 1 when any GPU-bound row's |error| exceeds this (host-bound rows: "
                  "--max-host-bound-error)")
      ->check(finite_range(1e-6, 10.0));
  sub->add_option("--max-host-bound-error", o->max_host_bound_error,
                  "Exit 1 when any host-bound eager row's |error| exceeds this")
      ->check(finite_range(1e-6, 10.0));
  return [o, &global]() {
    auto catalog = load_catalog_for(global);
    const auto& chip = catalog.accelerator(o->hardware);
    const auto folders = data_folders(catalog, chip.id, o->data);
    auto rows = calibration::load_rows(folders);
    if (rows.empty()) throw std::invalid_argument("--data: no measurement rows in " + folder_list(folders));
    auto profile =
        o->profile.empty() ? perf::calibration_for(catalog, chip) : perf::load_calibration_profile(o->profile);
    if (profile.provenance == perf::Provenance::kMeasured && !perf::has_measured_curve(profile)) {
      throw std::invalid_argument(
          "--profile: " + (o->profile.empty() ? std::string("the catalog's profile") : o->profile) +
          " says its curves were measured, but none has more than one point (fitted from no "
          "rows?)");
    }
    auto rep = calibration::validate(rows, profile, catalog, chip);
    if (o->json) {
      nlohmann::json pts = nlohmann::json::array();
      for (const auto& p : rep.points) {
        pts.push_back({{"model", p.model},
                       {"mode", p.mode},
                       {"num_layers", p.num_layers},
                       {"tp", p.tp},
                       {"moe", p.moe},
                       {"cuda_graph", p.cuda_graph},
                       {"batch", p.batch},
                       {"length", p.length},
                       {"measured_s", p.measured_s},
                       {"predicted_s", p.predicted_s},
                       {"error", p.error()},
                       {"host_bound", p.host_bound}});
      }
      std::cout << nlohmann::json{{"hardware", chip.id},
                                  {"profile_source", profile.source},
                                  {"points", pts},
                                  {"median_abs_error", rep.median_abs_error},
                                  {"max_abs_error", rep.max_abs_error},
                                  {"gpu_bound", stats_json(rep.gpu_bound)},
                                  {"host_bound", stats_json(rep.host_bound)}}
                       .dump(2)
                << "\n";
    } else {
      std::printf("%-14s %-7s %3s %2s %5s %6s %7s %11s %11s %8s  %s\n", "model", "mode", "L", "tp", "graph", "batch",
                  "length", "measured ms", "predict ms", "error", "bound");
      for (const auto& p : rep.points) {
        std::printf("%-14s %-7s %3d %2d %5s %6lld %7lld %11.3f %11.3f %+7.1f%%  %s\n", p.model.c_str(), p.mode.c_str(),
                    p.num_layers, p.tp, p.cuda_graph ? "yes" : "no", static_cast<long long>(p.batch),
                    static_cast<long long>(p.length), p.measured_s * 1e3, p.predicted_s * 1e3, 100 * p.error(),
                    p.host_bound ? "host" : "gpu");
      }
      // Per group: mode x tensor parallel x CUDA graph (model families pooled).
      std::map<std::string, std::vector<double>> groups;
      for (const auto& p : rep.points) {
        std::string key = p.mode + (p.moe ? " moe" : " dense") + " tp" + std::to_string(p.tp) +
                          (p.cuda_graph ? " graph" : " eager") + (p.host_bound ? " (host)" : "");
        groups[key].push_back(std::fabs(p.error()));
      }
      std::printf("\n%-32s %5s %10s %10s\n", "group", "rows", "median|e|", "max|e|");
      for (auto& [key, errs] : groups) {
        std::sort(errs.begin(), errs.end());
        double med =
            errs.size() % 2 ? errs[errs.size() / 2] : 0.5 * (errs[errs.size() / 2 - 1] + errs[errs.size() / 2]);
        std::printf("%-32s %5zu %9.1f%% %9.1f%%\n", key.c_str(), errs.size(), 100 * med, 100 * errs.back());
      }
      std::printf("\n%zu end-to-end points: median |error| %.1f%%, max |error| %.1f%% (profile: %s)\n",
                  rep.points.size(), 100 * rep.median_abs_error, 100 * rep.max_abs_error, profile.source.c_str());
      std::printf("  GPU-bound  %3d rows: median |error| %.1f%%, max %.1f%%\n", rep.gpu_bound.rows,
                  100 * rep.gpu_bound.median_abs, 100 * rep.gpu_bound.max_abs);
      std::printf(
          "  host-bound %3d rows: median |error| %.1f%%, max %.1f%% (eager steps whose kernel launches, at the "
          "slowest host speed measured, would outlast the GPU's work)\n",
          rep.host_bound.rows, 100 * rep.host_bound.median_abs, 100 * rep.host_bound.max_abs);
    }
    bool bad = (o->max_median_error > 0 && rep.median_abs_error > o->max_median_error) ||
               (o->max_error > 0 && rep.gpu_bound.max_abs > o->max_error) ||
               (o->max_host_bound_error > 0 && rep.host_bound.max_abs > o->max_host_bound_error);
    if (bad) std::fprintf(stderr, "tycoon: validation error above the bar\n");
    return bad ? kExitFailure : kExitOk;
  };
}

}  // namespace tycoon::cli
