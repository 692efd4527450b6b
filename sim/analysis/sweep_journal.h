// The resume journal of a sweep (`<out>/points.jsonl`): one line per finished point,
// {"hash": "<16 hex digits>", "perf": PointPerf::to_json()}. `sweep --resume` reads it back
// instead of simulating those points again, so it is input like any other and checked as such.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sim/analysis/point_result.h"
#include "sim/analysis/sweep_spec.h"

namespace tycoon::analysis {

struct SweepJournal {
  std::map<std::string, PointPerf> points;  // by point hash
  bool torn_tail = false;                   // the last line was cut off (that point runs again)
  std::size_t num_other_points = 0;         // JournalOf::kEarlierSpec: lines of points not in `sweep`
};

// Whose journal it is: this very spec's (every line must be one of its points), or an earlier
// version of it (`--resume` after seeds, concurrencies or configurations were added or removed):
// a point is reused when its hash — every input of its simulation — is one of this sweep's; the
// others are counted, not refused. A point's hash covers everything that changes its simulation
// (sim/analysis/sweep_spec.cpp, expand_sweep), so a reused point is the point this spec would run.
enum class JournalOf { kThisSpec, kEarlierSpec };

// Reads a journal written for `sweep`. The one line that may be damaged is the last, when it has
// no newline (the run was killed while writing it): it is dropped. Every other line must be a
// point of this sweep (its hash one of sweep.points' hashes) with figures that make sense
// (check_point_perf, the check `sweep merge` makes of a part too) and a known provenance.
// Otherwise throws data::LoadError `name:line: /pointer: reason`. Of an earlier spec, a line of a
// point not in `sweep` must still be a journal line with readable figures.
SweepJournal parse_sweep_journal(std::string_view text, const std::string& name, const ExpandedSweep& sweep,
                                 const SweepSpec& spec, JournalOf whose = JournalOf::kThisSpec);

// The lines of a journal that hold something (a point, or a torn last line): 0 for a journal that
// a sweep created and no point reached.
std::size_t count_journal_lines(std::string_view text);

// One journal line, newline included: {"hash": ..., "perf": ...}.
std::string journal_line(const std::string& point_hash, const PointPerf& perf);

// A sweep split over `count` shards (`sweep --shard index/count`): shard `index` takes every
// count-th point from `index`, strided so that each shard gets its share of every configuration
// (and of the dear points). Its point indices in grid order, and whether one point is among them.
std::vector<std::size_t> shard_points(std::size_t num_points, std::size_t index, std::size_t count);
inline bool in_shard(std::size_t point, std::size_t index, std::size_t count) { return point % count == index; }
// The file a shard writes when it ends ("part-3-of-8.json"), and its journal while it runs
// ("part-3-of-8.journal.jsonl"): a shard killed and run again resumes from its journal.
std::string shard_part_name(std::size_t index, std::size_t count);
std::string shard_journal_name(std::size_t index, std::size_t count);

}  // namespace tycoon::analysis
