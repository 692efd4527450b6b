#include "sim/advisor/code_change_catalog.h"

#include "sim/data/json_reader.h"

namespace tycoon::advisor {

double CodeChange::true_op_time_scale(serving::WorkloadKind workload) const {
  switch (trait) {
    case Trait::kRealWin:
    case Trait::kQualityDrift:
      return 1.0 / component_speedup;
    case Trait::kShrinksOnOtherTraffic: {
      if (tuned_for_workload && *tuned_for_workload == workload) return 1.0 / component_speedup;
      double kept = 1.0 + (component_speedup - 1.0) * gain_kept_on_other_traffic;
      return 1.0 / kept;
    }
    case Trait::kIsolationOnly:
      return real_traffic_op_time_scale;
    case Trait::kScorerGaming:
      return 1.0;
  }
  return 1.0;
}

const CodeChange* CodeChangeCatalog::find(std::string_view id) const {
  for (const auto& c : changes) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

CodeChangeCatalog load_code_change_catalog(const std::filesystem::path& path) {
  using data::Bound;
  const std::string file = path.string();
  nlohmann::json j = data::parse_json_file(path);
  data::ObjectReader root(j, file, "");
  if (root.integer("format_version") != 1) root.fail("format_version", "unsupported format version");
  root.string("about");
  CodeChangeCatalog out;
  auto arr = root.array("changes");
  for (std::size_t i = 0; i < arr.size(); ++i) {
    auto r = arr.object(i);
    CodeChange c;
    c.id = r.string("id");
    if (out.find(c.id)) r.fail("id", "duplicate id '" + c.id + "'");
    c.title = r.string("title");
    c.op_class = static_cast<perf::OpClass>(r.choice("op_class", perf::kOpClassNames));
    c.component_speedup = r.number("component_speedup", Bound::kPositive);
    if (c.component_speedup <= 1.0) r.fail("component_speedup", "must be above 1 (a proposal claims a gain)");
    c.trait = static_cast<Trait>(r.choice("trait", kTraitNames));
    c.source = r.string("source");
    if (c.source.empty()) r.fail("source", "every change names what it is modelled on");
    const bool shrinks = c.trait == Trait::kShrinksOnOtherTraffic;
    const bool isolation = c.trait == Trait::kIsolationOnly;
    const bool hurts = c.trait == Trait::kQualityDrift || c.trait == Trait::kScorerGaming;
    auto only_for = [&](std::string_view key, bool allowed, std::string_view trait) {
      if (r.has(key) && !allowed) r.fail(key, "only for trait " + std::string(trait));
      if (!r.has(key) && allowed)
        r.fail_here("trait " + std::string(to_string(c.trait)) + " needs " + std::string(key));
    };
    only_for("tuned_for_workload", shrinks, "shrinks_on_other_traffic");
    only_for("gain_kept_on_other_traffic", shrinks, "shrinks_on_other_traffic");
    only_for("real_traffic_op_time_scale", isolation, "isolation_only");
    only_for("reputation_hit", hurts, "quality_drift or scorer_gaming");
    if (shrinks) {
      c.tuned_for_workload =
          static_cast<serving::WorkloadKind>(r.choice("tuned_for_workload", serving::kWorkloadNames));
      c.gain_kept_on_other_traffic = r.number("gain_kept_on_other_traffic", Bound::kNonNegative);
      if (c.gain_kept_on_other_traffic > 1) r.fail("gain_kept_on_other_traffic", "must be in [0, 1]");
    }
    if (isolation) {
      c.real_traffic_op_time_scale = r.number("real_traffic_op_time_scale", Bound::kPositive);
      if (c.real_traffic_op_time_scale <= 1)
        r.fail("real_traffic_op_time_scale", "must be above 1 (slower on real shapes)");
    }
    if (hurts) {
      c.reputation_hit = r.number("reputation_hit", Bound::kNonNegative);
      if (c.reputation_hit > 1) r.fail("reputation_hit", "must be in [0, 1]");
    }
    r.finish();
    out.changes.push_back(std::move(c));
  }
  root.finish();
  return out;
}

CodeChangeCatalog load_code_change_catalog_from_root(const std::filesystem::path& data_root) {
  return load_code_change_catalog(data_root / "hardware_db" / "advisor_catalog.json");
}

}  // namespace tycoon::advisor
