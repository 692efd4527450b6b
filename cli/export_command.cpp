// `tycoon export`: a chosen operating point written as what a team deploys to confirm it — the
// engine's launch command per pool, a run script, a Kubernetes manifest and a benchmark plan
// (sim/analysis/deployment_export.h). The point is a sweep's operating point (`--sweep DIR`, one
// series or the best one) or a scenario's deployment (`--scenario`, as the game starts it).
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/export_files.h"
#include "sim/analysis/deployment_export.h"
#include "sim/analysis/sweep_spec.h"
#include "sim/core/atomic_file.h"
#include "sim/core/input_error.h"
#include "sim/data/json_reader.h"
#include "sim/game/game.h"
#include "sim/game/plan.h"
#include "sim/game/scenario.h"

namespace tycoon::cli {

namespace fs = std::filesystem;

namespace {

struct ExportCliOptions : ExportFlags {
  std::string sweep;
  std::string series;
  std::string scenario;
  int deployment = 1;
  double concurrency = 0;
};

nlohmann::json read_json(const fs::path& path, const std::string& flag) {
  if (!fs::exists(path)) throw core::InputError(flag + ": no " + path.string());
  return data::parse_json_file(path);
}

// A sweep's operating point: its series' deployment, re-resolved from the spec the sweep ran
// (sweep.json) against this catalog and checked against the configuration the sweep recorded
// (summary.json), and its figures from summary.json.
analysis::ExportPoint read_sweep_point(const ExportCliOptions& o, const data::Catalog& catalog,
                                       analysis::ExpandedSweep& sweep, analysis::SweepSpec& spec);

analysis::ExportPoint from_sweep(const ExportCliOptions& o, const data::Catalog& catalog,
                                 analysis::ExpandedSweep& sweep, analysis::SweepSpec& spec) {
  try {
    return read_sweep_point(o, catalog, sweep, spec);
  } catch (const nlohmann::json::exception& e) {
    // A summary.json whose fields are not what `tycoon sweep` writes: input, not an internal error.
    throw core::InputError("--sweep: " + (fs::path(o.sweep) / "summary.json").string() +
                           " is not a sweep summary as tycoon writes it (" + e.what() + ")");
  }
}

analysis::ExportPoint read_sweep_point(const ExportCliOptions& o, const data::Catalog& catalog,
                                       analysis::ExpandedSweep& sweep, analysis::SweepSpec& spec) {
  const fs::path dir(o.sweep);
  const auto sj = read_json(dir / "sweep.json", "--sweep");
  const auto summary = read_json(dir / "summary.json", "--sweep");
  if (!sj.contains("spec") || !sj.contains("spec_file") || !sj["spec_file"].is_string())
    throw core::InputError("--sweep: " + (dir / "sweep.json").string() + " is not a sweep's (no spec)");
  spec = analysis::parse_sweep_spec(sj["spec"], sj["spec_file"].get<std::string>());
  sweep = analysis::expand_sweep(spec, catalog);
  if (sj.contains("spec_hash") && sj["spec_hash"] != sweep.spec_hash) {
    throw core::InputError("--sweep: " + (dir / "sweep.json").string() + "'s spec hashes to " + sweep.spec_hash +
                           ", not its recorded " + sj["spec_hash"].dump() + " (the file was edited)");
  }
  if (o.series.empty() && spec.workloads.size() > 1) {
    // The best of each workload answers another question: which one is the user's?
    std::string names;
    for (const auto& op : summary.at("operating_points")) {
      if (op.value("meets_target", false))
        names += (names.empty() ? "'" : ", '") + op.at("series").get<std::string>() + "'";
    }
    throw core::InputError("--series: the sweep has " + std::to_string(spec.workloads.size()) +
                           " workloads: name the series to export (" + names + ")");
  }
  const auto& ops = summary.at("operating_points");
  const nlohmann::json* op = nullptr;
  std::string labels;
  for (const auto& candidate : ops) {
    const auto label = candidate.at("series").get<std::string>();
    // The name the console and the CSVs print (summary.json's "legend") names the series too.
    const auto legend = candidate.value("legend", label);
    labels += (labels.empty() ? "" : ", ") + ("'" + label + "'") + (legend != label ? " or '" + legend + "'" : "");
    const bool met = candidate.value("meets_target", false);
    if (o.series.empty() ? (met && !op) : (label == o.series || legend == o.series)) op = &candidate;
  }
  if (!op) {
    throw core::InputError(o.series.empty() ? "--sweep: no series meets every target (summary.json): name one with "
                                              "--series (" +
                                                  labels + ")"
                                            : "--series: no series '" + o.series + "' (" + labels + ")");
  }
  if (!op->value("meets_target", false)) {
    throw core::InputError("--series: '" + o.series +
                           "' meets no target at any concurrency: it has no operating point to export");
  }
  const std::string label = op->at("series").get<std::string>();
  std::size_t si = sweep.series.size();
  for (std::size_t i = 0; i < sweep.series.size(); ++i) {
    if (sweep.series[i].label == label) si = i;
  }
  if (si == sweep.series.size())
    throw core::InputError("--sweep: summary.json's series '" + label + "' is not the spec's");
  const auto& se = sweep.series[si];
  const auto& w = spec.workloads[se.workload];
  // The deployment as the sweep resolved it: a catalog changed since (a recipe, an engine's memory
  // fraction, a rent) resolves the same spec to another deployment, whose flags would not be the
  // ones the figures were simulated with.
  {
    const auto& config = sweep.configs[se.config];
    auto now = config.describe();
    const nlohmann::json* then = nullptr;
    for (const auto& c : summary.at("configurations")) {
      if (c.at("label") == config.label) then = &c;
    }
    nlohmann::json recorded = then ? *then : nlohmann::json();
    recorded.erase("spec_pointer");
    if (recorded != now) {
      std::string differs;
      for (auto it = now.begin(); it != now.end(); ++it) {
        if (!recorded.contains(it.key()) || recorded[it.key()] != it.value()) {
          differs = it.key() + " was " + (recorded.contains(it.key()) ? recorded[it.key()].dump() : "absent") +
                    ", now " + it.value().dump();
          break;
        }
      }
      throw core::InputError(
          "--sweep: '" + config.label + "' resolves to another deployment against this catalog than the sweep ran (" +
          (differs.empty() ? std::string("its fields differ") : differs) + "): run the sweep again, then export");
    }
  }
  analysis::ExportPoint p;
  p.label = label;
  p.source = "sweep " + dir.string() + " (" + spec.file + "), its operating point: " + op->value("pick", "grid");
  p.config = sweep.configs[se.config].plan.config;
  if (w.kind != serving::WorkloadKind::kAgenticCoding) {
    p.input_tokens = w.input_tokens;
    p.output_tokens = w.output_tokens;
  }
  p.workload = w.name + " (" + std::string(serving::kWorkloadNames[static_cast<std::size_t>(w.kind)]) + ")";
  p.concurrency = op->at("concurrency").get<double>();
  if (!std::isfinite(p.concurrency) || p.concurrency < 1 || p.concurrency > serving::kMaxBenchmarkUsers) {
    throw core::InputError("--sweep: summary.json: '" + label + "' has " + op->at("concurrency").dump() +
                           " users, not a concurrency a sweep runs");
  }
  p.provenance = op->value("provenance", "");
  p.steady_state_figures = true;  // a sweep's points run under the steady-state rule
  const std::array<std::pair<const char*, const char*>, 4> figures = {{{"output_tok_per_s_per_gpu", "tok/s/GPU"},
                                                                       {"p90_tok_per_s_per_user", "tok/s/user"},
                                                                       {"ttft_p90_ms", "ms"},
                                                                       {"tpot_p90_ms", "ms"}}};
  for (const auto& [metric, unit] : figures) {
    if (!op->contains(metric)) continue;
    const auto& e = (*op)[metric];
    if (!e.is_object() || !e.contains("mean") || !e["mean"].is_number()) continue;
    const double mean = e["mean"].get<double>();
    const double h =
        e.contains("half_width_total") && e["half_width_total"].is_number() ? e["half_width_total"].get<double>() : 0.0;
    p.expected.push_back({metric, unit, mean, mean - h, mean + h});
  }
  return p;
}

// A scenario's deployment as the game starts it (its recipe, segment acceptance and replicas).
analysis::ExportPoint from_scenario(const ExportCliOptions& o, const data::Catalog& catalog, const fs::path& root) {
  auto scenario = game::load_scenario(game::find_scenario(o.scenario, root), catalog);
  const std::string id = scenario.id;
  game::Game g(scenario, catalog);
  const auto& deployments = g.state().company.deployments;
  if (deployments.empty()) throw core::InputError("--scenario: " + id + " starts with no deployment");
  if (o.deployment < 1 || o.deployment > static_cast<int>(deployments.size())) {
    throw core::InputError("--deployment: " + id + " starts with " + std::to_string(deployments.size()) +
                           " deployment(s): give 1 to " + std::to_string(deployments.size()));
  }
  const auto& d = deployments[static_cast<std::size_t>(o.deployment - 1)];
  const auto plan = game::plan_deployment(catalog, g.scenario(), d, d.replicas, d.decode ? d.decode->replicas : 0, {});
  analysis::ExportPoint p;
  p.label = d.model + " on " + std::to_string(d.replicas) + " x " + d.chip + " (" + id + ", deployment " +
            std::to_string(o.deployment) + ")";
  p.source = "scenario " + id + " as it starts";
  p.config = plan.config;
  p.concurrency = o.concurrency;
  p.workload = "the scenario's segment " + d.segment;
  if (const auto* seg = g.scenario().find_segment(d.segment);
      seg && seg->workload.kind != serving::WorkloadKind::kAgenticCoding) {
    // The segment's mean lengths as the benchmark's random dataset (a chat's resent history is not replayed).
    p.input_tokens = seg->workload.input_tokens;
    p.output_tokens = seg->workload.output_tokens;
    p.workload += " (" + std::string(serving::kWorkloadNames[static_cast<std::size_t>(seg->workload.kind)]) +
                  ", its mean lengths as random prompts)";
  }
  return p;
}

}  // namespace

void export_point(const analysis::ExportPoint& point, const fs::path& root, const ExportFlags& flags,
                  std::ostream& console) {
  const auto launch = data::load_engine_launch(root, point.config.deployment.engine->id);
  const auto repos = data::load_model_repos(root);
  analysis::ExportOptions eo;
  eo.model_path = flags.model_path;
  eo.name = flags.name;
  eo.port = flags.port;
  const auto bundle = analysis::export_deployment(point, launch, repos, eo);

  const fs::path out(flags.out);
  std::error_code ec;
  fs::create_directories(out, ec);
  // A folder that cannot be made is the user's --out (exit 2), as the other commands say.
  if (ec) throw core::InputError("--out: cannot create " + out.string() + ": " + ec.message());
  core::write_file_atomically(out / "run.sh", bundle.run_script);
  fs::permissions(out / "run.sh", fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                  fs::perm_options::add, ec);
  core::write_file_atomically(out / "deployment.yaml", bundle.manifest_yaml);
  core::write_file_atomically(out / "benchmark_plan.json", bundle.benchmark_plan.dump(2) + "\n");
  core::write_file_atomically(out / "export.json", bundle.summary.dump(2) + "\n");
  core::write_file_atomically(out / "README.md", bundle.readme);
  std::vector<std::string> files = {"README.md", "run.sh", "deployment.yaml", "benchmark_plan.json", "export.json"};
  if (!bundle.dynamo_yaml.empty()) {
    core::write_file_atomically(out / "dynamo.yaml", bundle.dynamo_yaml);
    files.push_back("dynamo.yaml");
  }
  for (const auto& c : bundle.commands) {
    if (c.options_file.empty()) continue;
    core::write_file_atomically(out / c.options_file, c.options_yaml);
    files.push_back(c.options_file);
  }
  console << point.label << "\n  " << bundle.engine << " " << bundle.engine_version << " (" << launch.image << ")\n";
  for (const auto& c : bundle.commands) {
    console << "  " << c.role << " x" << c.replicas << " (" << c.gpus_per_replica << " GPU"
            << (c.gpus_per_replica > 1 ? "s" : "") << " each):";
    for (const auto& a : c.argv) console << " " << analysis::shell_quote(a);  // pastes into a shell
    console << "\n";
  }
  for (const auto& n : bundle.notes) console << "  note: " << n << "\n";
  console << "wrote " << out.string() << "/{";
  for (std::size_t i = 0; i < files.size(); ++i) console << (i ? "," : "") << files[i];
  console << "}\n";
}

CommandRunner add_export_command(CLI::App& app, const GlobalOptions& global) {
  auto o = std::make_shared<ExportCliOptions>();
  auto* sub = app.add_subcommand("export",
                                 "Write a chosen operating point as the engine's launch commands (vLLM, SGLang, "
                                 "TensorRT-LLM), a run script, a Kubernetes manifest and a benchmark plan");
  auto* sweep = sub->add_option("--sweep", o->sweep, "A sweep's output folder (its sweep.json and summary.json)");
  sub->add_option("--series", o->series,
                  "The series whose operating point to export (default: the best that meets "
                  "every target)")
      ->needs(sweep);
  auto* scenario = sub->add_option("--scenario", o->scenario, "A scenario (name or file): its starting deployment");
  sub->add_option("--deployment", o->deployment, "Which of the scenario's starting deployments (1-based)")
      ->check(CLI::Range(1, 1000))
      ->needs(scenario);
  sub->add_option("--concurrency", o->concurrency, "Users the benchmark plan centres on (a scenario has none)")
      ->check(finite_range(1, serving::kMaxBenchmarkUsers))
      ->needs(scenario);
  sweep->excludes(scenario);
  scenario->excludes(sweep);
  sub->add_option("--model-path", o->model_path,
                  "The checkpoint to serve (default: the model's published repository, "
                  "hardware_db/engines/launch/models.json)");
  sub->add_option("--name", o->name, "Name stem of the Kubernetes objects (default: model and chip)");
  sub->add_option("--port", o->port, "The servers' port")->check(CLI::Range(1024, 65535));
  sub->add_option("--out", o->out, "Folder to write (created; files in it are replaced)")->required();
  return [o, &global]() {
    if (o->sweep.empty() && o->scenario.empty()) throw core::InputError("give --sweep DIR or --scenario NAME");
    check_output_folder("--out", o->out);
    const fs::path root = global.data_root.empty() ? data::default_data_root() : fs::path(global.data_root);
    auto catalog = load_catalog_for(global);
    analysis::ExpandedSweep expanded;
    analysis::SweepSpec spec;
    const analysis::ExportPoint point =
        o->sweep.empty() ? from_scenario(*o, catalog, root) : from_sweep(*o, catalog, expanded, spec);
    export_point(point, root, *o, std::cout);
    return kExitOk;
  };
}

}  // namespace tycoon::cli
