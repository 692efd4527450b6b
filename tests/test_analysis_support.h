// Shared fixtures of the analysis (sweep) tests: the catalog and a small spec built in code.
#pragma once

#include <doctest/doctest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "sim/analysis/sweep_spec.h"
#include "sim/data/catalog.h"

namespace tycoon::analysis_test {

inline const data::Catalog& catalog() {
  static const data::Catalog c = data::load_catalog(TYCOON_SOURCE_DIR);
  return c;
}

// Llama-3.1-8B on one H200 (measured curves), short 256/64 requests: each point simulates in
// milliseconds. Two configurations (bf16, fp8) x 2 concurrencies x the given seeds.
inline nlohmann::json tiny_spec(std::vector<int> seeds = {1, 2}) {
  return {{"format_version", 1},
          {"name", "tiny"},
          {"base", {{"model", "llama-3.1-8b"}, {"hardware", "h200"}, {"engine", "vllm"}, {"tensor_parallel", 1}}},
          {"axes", {{"precision", {"bf16", "fp8"}}}},
          {"workloads", {{{"name", "short"}, {"kind", "random"}, {"input_tokens", 256}, {"output_tokens", 64}}}},
          {"concurrency", {2, 8}},
          {"seeds", seeds},
          {"prices", {{{"name", "market"}}, {{"name", "double"}, {"market_scale", 2.0}}}},
          {"requests_per_user", 4},
          {"target", {{"min_p90_tok_per_s_per_user", 20}, {"gross_margin", 0.4}}}};
}

}  // namespace tycoon::analysis_test
