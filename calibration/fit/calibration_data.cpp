#include "calibration/fit/calibration_data.h"

#include <algorithm>
#include <cmath>
#include <fstream>

#include "sim/data/json_reader.h"

namespace tycoon::calibration {

std::string Row::op() const {
  auto it = value.find("op");
  return it != value.end() && it->is_string() ? it->get<std::string>() : std::string();
}

double Row::number(const char* key) const {
  auto it = value.find(key);
  if (it == value.end() || !it->is_number()) {
    throw data::LoadError(file + ":" + std::to_string(line), std::string("/") + key, "expected a number");
  }
  double v = it->get<double>();
  if (!std::isfinite(v)) throw data::LoadError(file + ":" + std::to_string(line), std::string("/") + key, "not finite");
  return v;
}

double Row::number_or(const char* key, double fallback) const {
  auto it = value.find(key);
  return it != value.end() && it->is_number() ? it->get<double>() : fallback;
}

bool Row::is_end_to_end() const {
  auto o = op();
  return o == "e2e_decode" || o == "e2e_prefill";
}

std::vector<Row> load_rows(const std::vector<std::filesystem::path>& folders) {
  std::vector<Row> rows;
  for (const auto& folder : folders) {
    if (!std::filesystem::is_directory(folder)) {
      throw data::LoadError(folder.string(), "", "calibration data folder is missing");
    }
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(folder)) {
      if (e.is_regular_file() && e.path().extension() == ".jsonl") files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      std::ifstream in(f);
      std::string text;
      int n = 0;
      while (std::getline(in, text)) {
        ++n;
        if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
        Row r;
        r.value = data::parse_json_text(text, f.string() + ":" + std::to_string(n));
        if (!r.value.is_object()) throw data::LoadError(f.string() + ":" + std::to_string(n), "", "expected an object");
        r.file = f.string();
        r.line = n;
        if (r.op().empty()) throw data::LoadError(f.string() + ":" + std::to_string(n), "/op", "missing");
        if (r.op() == "kernel_count" || r.op().rfind("launch_", 0) == 0 || r.op() == "kernel_single" ||
            r.op() == "host_layer" || r.op() == "host_layer_real") {
          rows.push_back(std::move(r));
          continue;
        }
        if (r.op() == "attn_decode_probe" || r.op() == "error" || r.op() == "skip") continue;
        r.number("median_s");
        rows.push_back(std::move(r));
      }
    }
  }
  return rows;
}

}  // namespace tycoon::calibration
