// Shared fixtures of the analysis (sweep) tests: the catalog and a small spec built in code.
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/analysis/model_error.h"
#include "sim/analysis/sweep_report.h"
#include "sim/analysis/sweep_run.h"
#include "sim/analysis/sweep_spec.h"
#include "sim/data/catalog.h"
#include "tests/test_common.h"

namespace tycoon::analysis_test {

using test::catalog;

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

// A spec expanded against the catalog, with made-up measurements: `data(by_concurrency)` gives
// every seed of every series at the k-th concurrency the k-th point.
struct SweepFixture {
  analysis::SweepSpec spec;
  analysis::ExpandedSweep sweep;
  analysis::CalibrationSet calibrations;
  explicit SweepFixture(const nlohmann::json& j)
      : spec(analysis::parse_sweep_spec(j, "spec.json")), sweep(analysis::expand_sweep(spec, catalog())) {}
  analysis::SweepData data(const std::vector<analysis::PointPerf>& by_concurrency,
                           const analysis::ModelErrors* errors = nullptr) const {
    analysis::SweepData d{&spec, &sweep, &calibrations, {}, errors};
    for (const auto& p : sweep.points) {
      std::size_t k = 0;
      while (spec.concurrency[k] != p.concurrency) ++k;
      d.perf.push_back(by_concurrency[k]);
    }
    return d;
  }
};

}  // namespace tycoon::analysis_test
