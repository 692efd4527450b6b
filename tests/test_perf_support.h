// Shared fixtures of the performance-model tests: a calibration with every efficiency at 1 (the
// model's arithmetic alone) and a deployment on the reference engine (no CPU overhead).
#pragma once

#include <string>

#include "sim/perf/calibration_profile.h"
#include "sim/perf/deployment.h"
#include "tests/test_common.h"

namespace tycoon::perf_test {

inline perf::CalibrationProfile ideal_profile(const std::string& chip) {
  perf::CalibrationProfile p;
  p.chip = chip;
  p.provenance = perf::Provenance::kInterpolated;
  p.gemm_compute_eff = {perf::Curve::constant(1), perf::Curve::constant(1), perf::Curve::constant(1)};
  p.moe_compute_eff = p.gemm_compute_eff;
  p.gemm_memory_eff = p.moe_memory_eff = p.attn_prefill_compute_eff = p.attn_decode_memory_eff =
      p.elementwise_memory_eff = p.allreduce_bus_eff = perf::Curve::constant(1);
  p.max_measured_tokens = 1e9;
  p.max_measured_context = 1e9;
  return p;
}

inline perf::Deployment reference(const char* model, const char* chip, Precision p = Precision::kBf16, int tp = 1) {
  perf::Deployment d;
  d.model = &test::catalog().model(model);
  d.hardware = &test::catalog().accelerator(chip);
  d.engine = &test::catalog().engine("torch-reference");  // no CPU overhead, kernel efficiency 1
  d.precision = p;
  d.tensor_parallel = tp;
  return d;
}

}  // namespace tycoon::perf_test
