// Writing an exported operating point (sim/analysis/deployment_export.h) into a folder: the
// launch commands' run script, the Kubernetes manifest, Dynamo's graph for a vLLM split, the
// benchmark plan, export.json and a README. Shared by `tycoon export` and `tycoon benchmark --export`.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>

#include "sim/analysis/deployment_export.h"

namespace tycoon::cli {

struct ExportFlags {
  std::string model_path;  // --model-path
  std::string name;        // --name
  int port = 8000;         // --port
  std::string out;         // the folder to write
};

// Exports `point` for its engine (hardware_db/engines/launch/ under `root`) into `flags.out` and
// prints what it wrote on `console`. Throws core::InputError (exit 2) when the point cannot be
// written for its engine, core::FileWriteError when the folder cannot be written.
void export_point(const analysis::ExportPoint& point, const std::filesystem::path& root, const ExportFlags& flags,
                  std::ostream& console);

}  // namespace tycoon::cli
