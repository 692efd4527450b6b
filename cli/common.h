// Helpers shared by the CLI commands.
#pragma once

#include <cstdio>
#include <string>

#include "cli/commands.h"
#include "sim/data/catalog.h"

namespace tycoon::cli {

inline data::Catalog load_catalog_for(const GlobalOptions& global) {
  return data::load_catalog(global.data_root.empty() ? data::default_data_root()
                                                     : std::filesystem::path(global.data_root));
}

inline std::string format_fixed(double x, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

}  // namespace tycoon::cli

#include <optional>

#include "sim/perf/deployment.h"

namespace tycoon::cli {

// Flags that pick a deployment: model (or a card file), chip, engine and recipe fields.
struct DeploymentOptions {
  std::string hardware;
  std::string model;
  std::string model_file;
  std::string engine;
  std::string precision;
  std::string kv_dtype;
  int tp = 0;
  int ep = 0;
  int spec_tokens = -1;
  double acceptance = 0;
  bool no_cuda_graphs = false;
};

// A deployment plus storage for a model card read from --model-file.
struct ResolvedDeployment {
  std::unique_ptr<data::ModelCard> own_model;
  perf::Deployment deployment;
};

void add_deployment_options(CLI::App& sub, DeploymentOptions& o);
// Resolves ids against the catalog; a recipe for (model, chip) supplies defaults that flags
// override. Throws UnknownIdError / LoadError / std::invalid_argument on bad input.
ResolvedDeployment resolve_deployment(const data::Catalog& catalog, const DeploymentOptions& o);

}  // namespace tycoon::cli
