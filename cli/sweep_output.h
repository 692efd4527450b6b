// What a sweep shows and writes (`tycoon sweep`, cli/sweep_command.cpp): its progress on stderr,
// the files of its output folder (points.csv, summary.json, the SVG charts and their PNG copies,
// the HTML report) and the operating points as a console table.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "sim/analysis/sweep_report.h"

namespace tycoon::cli {

// Progress on stderr: a redrawn bar with rate and ETA on a terminal, a line per tenth otherwise.
class SweepProgress {
 public:
  SweepProgress(std::size_t total, std::size_t already_done);
  void tick();  // one more point done

 private:
  std::size_t total_, done_, start_done_, step_ = 1, next_line_ = 1;
  bool tty_;
  double last_draw_s_ = -1;
  std::chrono::steady_clock::time_point start_;
};

// Replaced atomically, never written through a planted symlink (sim/core/atomic_file.h).
void write_output(const std::filesystem::path& path, const std::string& text);

// The operating points as a console table, best first: one margin column per price, the failed
// share, and which concurrencies missed a target and why.
void print_answer(const analysis::SweepData& data, const std::vector<analysis::Group>& groups);

// Everything a finished sweep writes into `out` (one run, or merged shards: the same bytes).
void write_outputs(const std::filesystem::path& out, const analysis::SweepData& data,
                   const std::vector<analysis::Group>& groups, bool no_png, const std::string& report);

// Refuses (std::invalid_argument) a --report path whose folder is missing or that is a folder.
void check_report_path(const std::string& report);

}  // namespace tycoon::cli
