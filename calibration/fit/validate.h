// Prediction against every end-to-end measurement of the reference engine.
#pragma once

#include <string>
#include <vector>

#include "calibration/fit/calibration_data.h"
#include "sim/data/catalog.h"
#include "sim/perf/calibration_profile.h"

namespace tycoon::calibration {

struct ValidationPoint {
  std::string model;
  std::string mode;  // "decode" | "prefill"
  int num_layers = 0;
  int tp = 1;
  bool moe = false;
  bool cuda_graph = false;
  std::int64_t batch = 0;
  std::int64_t length = 0;  // decode: context; prefill: prompt length
  double measured_s = 0;
  double predicted_s = 0;
  // Eager step whose kernel launches, at the slowest host speed measured for its setting (one
  // process, or each process of a TP group), would outlast its GPU work: the time may measure the
  // CPU (Python's speed on the machine at that moment), not the GPU.
  bool host_bound = false;
  double error() const { return predicted_s / measured_s - 1.0; }
};

struct ErrorStats {
  int rows = 0;
  double median_abs = 0;
  double max_abs = 0;
};

struct ValidationReport {
  std::vector<ValidationPoint> points;
  double median_abs_error = 0;  // all rows
  double max_abs_error = 0;
  ErrorStats gpu_bound;   // rows whose predicted time is the GPU's work (the accuracy bar)
  ErrorStats host_bound;  // eager rows that may be bound by the host's kernel launches
};

// The reference engine's model is rebuilt from each row's shape fields; the engine is the
// catalog's torch-reference; the chip is `chip`.
ValidationReport validate(const std::vector<Row>& rows, const perf::CalibrationProfile& profile,
                          const data::Catalog& catalog, const data::Accelerator& chip);

}  // namespace tycoon::calibration
