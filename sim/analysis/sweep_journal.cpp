#include "sim/analysis/sweep_journal.h"

#include <cmath>
#include <unordered_map>

#include "sim/data/json_reader.h"

namespace tycoon::analysis {

namespace {

// The checks of one journal line's "perf"; returns {pointer, reason} of the first problem.
std::pair<std::string, std::string> check_perf(const PointPerf& p, int expected_gpus) {
  auto bad_double = [](double v) { return !std::isfinite(v) || v < 0; };
  const std::pair<const char*, double> doubles[] = {{"/perf/output_tok_per_s_per_gpu", p.output_tok_per_s_per_gpu},
                                                    {"/perf/input_tok_per_s_per_gpu", p.input_tok_per_s_per_gpu},
                                                    {"/perf/p90_interactivity", p.p90_interactivity_tok_per_s_per_user},
                                                    {"/perf/simulated_time_s", p.simulated_time_s},
                                                    {"/perf/mean_batch_size", p.mean_batch_size}};
  for (const auto& [ptr, v] : doubles) {
    if (bad_double(v)) return {ptr, "must be a finite number >= 0"};
  }
  const std::pair<const char*, const serving::LatencyStats*> latencies[] = {
      {"/perf/ttft_s", &p.ttft_s}, {"/perf/tpot_s", &p.tpot_s}, {"/perf/e2e_s", &p.e2e_s}};
  for (const auto& [ptr, l] : latencies) {
    if (bad_double(l->mean) || bad_double(l->p50) || bad_double(l->p90) || bad_double(l->p99)) {
      return {ptr, "latencies must be finite numbers >= 0"};
    }
    if (l->p50 > l->p90 || l->p90 > l->p99) return {ptr, "percentiles out of order (p50 <= p90 <= p99)"};
  }
  const std::pair<const char*, std::int64_t> counts[] = {{"/perf/requests_completed", p.requests_completed},
                                                         {"/perf/requests_failed", p.requests_failed},
                                                         {"/perf/input_tokens", p.input_tokens},
                                                         {"/perf/cached_input_tokens", p.cached_input_tokens},
                                                         {"/perf/output_tokens", p.output_tokens}};
  for (const auto& [ptr, v] : counts) {
    if (v < 0) return {ptr, "must be >= 0"};
  }
  if (p.cached_input_tokens > p.input_tokens) {
    return {"/perf/cached_input_tokens", "more cached input tokens than input tokens"};
  }
  if (p.num_gpus != expected_gpus) {
    return {"/perf/num_gpus",
            "is " + std::to_string(p.num_gpus) + ", the point's deployment has " + std::to_string(expected_gpus)};
  }
  return {};
}

}  // namespace

SweepJournal parse_sweep_journal(std::string_view text, const std::string& name, const ExpandedSweep& sweep,
                                 const SweepSpec& spec) {
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
    if (auto [ptr, reason] = check_perf(perf, gpus); !reason.empty()) throw data::LoadError(where, ptr, reason);
    out.points[hash] = std::move(perf);
  }
  return out;
}

}  // namespace tycoon::analysis
