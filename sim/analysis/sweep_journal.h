// The resume journal of a sweep (`<out>/points.jsonl`): one line per finished point,
// {"hash": "<16 hex digits>", "perf": PointPerf::to_json()}. `sweep --resume` reads it back
// instead of simulating those points again, so it is input like any other and checked as such.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>

#include "sim/analysis/point_result.h"
#include "sim/analysis/sweep_spec.h"

namespace tycoon::analysis {

struct SweepJournal {
  std::map<std::string, PointPerf> points;  // by point hash
  bool torn_tail = false;                   // the last line was cut off (that point runs again)
};

// Reads a journal written for `sweep`. The one line that may be damaged is the last, when it has
// no newline (the run was killed while writing it): it is dropped. Every other line must be a
// point of this sweep (its hash one of sweep.points' hashes) with figures that make sense
// (check_point_perf, the check `sweep merge` makes of a part too) and a known provenance.
// Otherwise throws data::LoadError `name:line: /pointer: reason`.
SweepJournal parse_sweep_journal(std::string_view text, const std::string& name, const ExpandedSweep& sweep,
                                 const SweepSpec& spec);

}  // namespace tycoon::analysis
