// Helpers shared by the CLI commands.
#pragma once

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include "cli/commands.h"
#include "sim/data/catalog.h"

namespace tycoon::cli {

inline data::Catalog load_catalog_for(const GlobalOptions& global) {
  return data::load_catalog(global.data_root.empty() ? data::default_data_root()
                                                     : std::filesystem::path(global.data_root));
}

// A float flag's check: a finite number in [lo, hi]. CLI11's Range lets NaN through (every
// comparison with NaN is false), and "inf" parses; both are refused here, naming the flag.
inline CLI::Validator finite_range(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size()) return "'" + text + "' is not a number";
        if (!std::isfinite(v)) return "'" + text + "' is not a finite number";
        if (v < lo || v > hi) {
          char buf[96];
          std::snprintf(buf, sizeof buf, "%g is not in [%g, %g]", v, lo, hi);
          return buf;
        }
        return {};
      },
      "FLOAT in [" + std::to_string(lo) + " - " + std::to_string(hi) + "]");
}

// A seed's check: decimal digits only, within 64 bits. CLI11 reads "-1" as 2^64 - 1 and "010"
// as octal; a seed is a plain number.
inline CLI::Validator seed_digits() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::uint64_t v = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
          return "'" + text + "' is not a seed (decimal digits, 0 to 18446744073709551615)";
        }
        return {};
      },
      "UINT");
}

// Output paths are input too: refused (exit 2, naming the flag) before any work, not after it.
// A file: not a folder, in a folder that exists and can be written.
inline void check_output_file(const std::string& flag, const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw std::invalid_argument(flag + ": " + path.string() + " is a folder");
  const auto parent = std::filesystem::absolute(path, ec).parent_path();
  if (!std::filesystem::is_directory(parent, ec)) throw std::invalid_argument(flag + ": no folder " + parent.string());
  if (::access(parent.c_str(), W_OK) != 0) throw std::invalid_argument(flag + ": cannot write in " + parent.string());
}
// A folder: one that exists and can be written, or one that can be created (its nearest existing
// ancestor is a writable folder).
inline void check_output_folder(const std::string& flag, const std::filesystem::path& path) {
  std::error_code ec;
  auto p = std::filesystem::absolute(path, ec);
  if (std::filesystem::exists(p, ec)) {
    if (!std::filesystem::is_directory(p, ec)) {
      throw std::invalid_argument(flag + ": " + path.string() + " exists and is not a folder");
    }
    if (::access(p.c_str(), W_OK) != 0) throw std::invalid_argument(flag + ": cannot write in " + path.string());
    return;
  }
  while (p.has_parent_path() && p != p.parent_path() && !std::filesystem::exists(p, ec)) p = p.parent_path();
  if (!std::filesystem::is_directory(p, ec)) {
    throw std::invalid_argument(flag + ": cannot create " + path.string() + " (" + p.string() + " is not a folder)");
  }
  if (::access(p.c_str(), W_OK) != 0) {
    throw std::invalid_argument(flag + ": cannot create " + path.string() + " (cannot write in " + p.string() + ")");
  }
}

inline std::string format_fixed(double x, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

}  // namespace tycoon::cli

#include <optional>

#include "sim/perf/deployment.h"
#include "sim/serving/benchmark_run.h"
#include "sim/serving/resolve_config.h"

namespace tycoon::cli {

// Flags that pick a deployment: model (or a card file), chip, engine and recipe fields.
// A CLI11 validator accepting exactly the names of one of sim/'s names tables (kWorkloadNames,
// kArrivalNames, ...): the CLI never retypes a vocabulary.
template <std::size_t N>
CLI::IsMember one_of(const std::array<std::string_view, N>& names) {
  return CLI::IsMember(std::vector<std::string>(names.begin(), names.end()));
}

struct DeploymentOptions {
  std::string hardware;
  std::string model;
  std::string model_file;
  std::string engine;
  std::string precision;
  std::string kv_dtype;
  std::string expert_activation;
  std::string mxfp4_backend;
  int tp = 0;
  int ep = 0;
  int spec_tokens = serving::kBenchmarkDefaultDraftTokens;
  double acceptance = 0;
  std::string spec_method;  // empty: the recipe's, else eagle3
  bool no_cuda_graphs = false;
};

// A deployment plus storage for a model card read from --model-file.
struct ResolvedDeployment {
  std::unique_ptr<data::ModelCard> own_model;
  perf::Deployment deployment;
  serving::SchedulerConfig scheduler;  // the recipe's limits and the engine's admission policy
};

void add_deployment_options(CLI::App& sub, DeploymentOptions& o);
// The model the flags name: the catalog's (--model), or a card read from --model-file into
// `own_model`.
const data::ModelCard& model_of(const data::Catalog& catalog, const DeploymentOptions& o,
                                std::unique_ptr<data::ModelCard>& own_model);
// The flags as the resolver's overlay over the catalog recipe, with `scheduler`'s scheduler flags.
serving::ServingOverrides deployment_overrides(const DeploymentOptions& o, const serving::ServingOverrides& scheduler);
// Resolves ids against the catalog with serving::resolve_serving: a recipe for (model, chip)
// supplies defaults that flags override; `scheduler` carries a command's scheduler flags (batch
// limits, prefix caching, chunked prefill, KV admission; its deployment fields are ignored). A
// benchmark is a stock configuration: speculative decoding only with --spec-tokens N > 0.
// Throws UnknownIdError / LoadError / std::invalid_argument on bad input.
ResolvedDeployment resolve_deployment(const data::Catalog& catalog, const DeploymentOptions& o,
                                      const serving::ServingOverrides& scheduler = {});

}  // namespace tycoon::cli
