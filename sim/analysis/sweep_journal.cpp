#include "sim/analysis/sweep_journal.h"

#include <cmath>
#include <unordered_map>

#include "sim/data/json_reader.h"

namespace tycoon::analysis {

SweepJournal parse_sweep_journal(std::string_view text, const std::string& name, const ExpandedSweep& sweep,
                                 const SweepSpec& spec, JournalOf whose) {
  std::unordered_map<std::string, const SweepPoint*> by_hash;
  for (const auto& p : sweep.points) by_hash.emplace(p.hash, &p);
  SweepJournal out;
  std::size_t pos = 0;
  int line_no = 0;
  while (pos < text.size()) {
    const std::size_t nl = text.find('\n', pos);
    const bool last_without_newline = nl == std::string_view::npos;
    const std::string_view line = text.substr(pos, last_without_newline ? std::string_view::npos : nl - pos);
    pos = last_without_newline ? text.size() : nl + 1;
    ++line_no;
    if (line.empty()) continue;
    const std::string where = name + ":" + std::to_string(line_no);
    nlohmann::json j;
    try {
      j = data::parse_json_text(line, where);
    } catch (const data::LoadError&) {
      if (last_without_newline) {  // cut off mid-write: run that point again
        out.torn_tail = true;
        break;
      }
      throw;
    }
    if (!j.is_object() || !j.contains("hash") || !j["hash"].is_string() || !j.contains("perf")) {
      throw data::LoadError(where, "", "not a journal line ({\"hash\": ..., \"perf\": {...}})");
    }
    const std::string hash = j["hash"].get<std::string>();
    const auto it = by_hash.find(hash);
    if (it == by_hash.end() && whose == JournalOf::kEarlierSpec) {
      try {
        PointPerf::from_json(j["perf"]);
      } catch (const std::exception& e) {
        throw data::LoadError(where, "/perf", std::string("not a point's figures (") + e.what() + ")");
      }
      ++out.num_other_points;
      continue;
    }
    if (it == by_hash.end()) {
      throw data::LoadError(
          where, "/hash",
          "'" + hash + "' is no point of this sweep (a journal of another spec or of a changed catalog)");
    }
    PointPerf perf;
    try {
      perf = PointPerf::from_json(j["perf"]);
    } catch (const std::exception& e) {
      throw data::LoadError(where, "/perf", std::string("not a point's figures (") + e.what() + ")");
    }
    const auto& point = *it->second;
    const int gpus = serving_config(sweep, spec, point).deployment.gpus_per_replica();
    if (auto problem = check_point_perf(perf, gpus); !problem.ok()) {
      throw data::LoadError(where, "/perf" + problem.pointer, problem.reason);
    }
    out.points[hash] = std::move(perf);
  }
  return out;
}

std::size_t count_journal_lines(std::string_view text) {
  std::size_t n = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    if (text.substr(pos, nl - pos).find_first_not_of(" \t\r") != std::string_view::npos) ++n;
    pos = nl + 1;
  }
  return n;
}

std::string journal_line(const std::string& point_hash, const PointPerf& perf) {
  return nlohmann::json{{"hash", point_hash}, {"perf", perf.to_json()}}.dump() + "\n";
}

std::vector<std::size_t> shard_points(std::size_t num_points, std::size_t index, std::size_t count) {
  std::vector<std::size_t> out;
  for (std::size_t i = index; i < num_points; i += count) out.push_back(i);
  return out;
}

std::string shard_part_name(std::size_t index, std::size_t count) {
  return "part-" + std::to_string(index) + "-of-" + std::to_string(count) + ".json";
}

std::string shard_journal_name(std::size_t index, std::size_t count) {
  return "part-" + std::to_string(index) + "-of-" + std::to_string(count) + ".journal.jsonl";
}

}  // namespace tycoon::analysis
