// A serving recipe: how one model is run on one chip with one engine (models/recipes/).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "sim/core/types.h"

namespace tycoon::data {

struct SpecDecode {
  std::string method;              // "eagle3", "mtp", ...
  int num_draft_tokens = 0;        // k: tokens proposed per step
  double acceptance_length = 1.0;  // mean tokens emitted per target forward, bonus token included
};

struct Recipe {
  std::string id;  // file stem, "<model>__<chip>"
  std::string model;
  std::string hardware;
  std::string engine;
  std::string min_engine_version;
  Precision precision = Precision::kBf16;
  Precision kv_cache_dtype = Precision::kBf16;
  int tensor_parallel = 1;
  int expert_parallel = 1;
  int kv_page_tokens = 16;
  int max_num_batched_tokens = 8192;
  int max_num_seqs = 256;
  bool prefix_caching = true;
  bool cuda_graphs = true;
  std::optional<SpecDecode> spec_decode;
  bool verified = false;
  std::string source;
  std::string notes;
  std::string file;
};

Recipe load_recipe(const std::filesystem::path& path);

}  // namespace tycoon::data
