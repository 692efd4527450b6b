// Measured rows from the calibration runner (calibration/data/<chip>/*.jsonl), one JSON object
// per line. Kernel rows feed the fit; end-to-end rows (op e2e_decode / e2e_prefill) are the check.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tycoon::calibration {

struct Row {
  nlohmann::json value;
  std::string file;
  int line = 0;

  std::string op() const;
  double number(const char* key) const;  // throws LoadError naming file:line when absent
  double number_or(const char* key, double fallback) const;
  bool is_end_to_end() const;
};

// Reads every *.jsonl under each folder (sorted by name). Malformed lines are LoadErrors.
std::vector<Row> load_rows(const std::vector<std::filesystem::path>& folders);

}  // namespace tycoon::calibration
