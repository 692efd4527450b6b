#include "sim/perf/profile_lookup.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <utility>
#include <vector>

#include "sim/perf/engine_kernels.h"

namespace tycoon::perf {

namespace {

// An efficiency curve measured on a chip whose datasheet rate (bandwidth) is `measured_rate`, as
// it serves a chip whose rate is `rate`. On the measured
// chip an op of `work` at efficiency e took t = work / (measured_rate * e): a latency term
// (launch, ramp-up, tail, synchronisation) that the other chip pays unchanged, and a throughput
// term, the rest, which scales by measured_rate / rate. A launch-bound kernel keeps its time on a
// chip with a higher peak; a saturated one scales by the datasheets. Each knot is moved (exact
// there; between knots linear in log size, as the curve itself); e' <= e_max for any ratio. A
// one-knot (constant) curve has no latency term and stays as it is.
// The curve's size is the op's work (bytes moved); the latency is a fixed time, that of the
// smallest measured op beyond its work at the best efficiency measured,
//   t0 = s_min / (measured_rate * e(s_min)) - s_min / (measured_rate * e_max),
// and never more than a larger op's own excess over that best, t - s / (measured_rate * e_max).
Curve borrowed_work_curve(const Curve& c, double rate, double measured_rate) {
  const auto& knots = c.knots();
  if (knots.size() <= 1 || rate <= 0 || measured_rate <= 0 || rate == measured_rate) return c;
  double e_max = 0;
  for (const auto& k : knots) e_max = std::max(e_max, k.second);
  const double s_min = std::exp2(knots.front().first);
  const double t0 = s_min / (measured_rate * knots.front().second) - s_min / (measured_rate * e_max);
  std::vector<std::pair<double, double>> out;
  out.reserve(knots.size());
  for (const auto& [log2_size, e] : knots) {
    const double s = std::exp2(log2_size);
    const double t = s / (measured_rate * e);
    const double latency = std::max(0.0, std::min(t0, t - s / (measured_rate * e_max)));
    const double moved = latency + (t - latency) * (measured_rate / rate);
    out.emplace_back(s, s / (rate * moved));
  }
  return Curve(std::move(out));
}

// `p`, measured on `measured`, as it serves `chip`: every curve indexed by the bytes an op
// moves split into latency and throughput.
void borrow_curves(CalibrationProfile& p, const data::Accelerator& chip, const data::Accelerator& measured) {
  // Compute curves (GEMM, grouped GEMM and flash attention by tokens) scale by the peak ratio
  // as they are: their low values at small sizes are the time of memory-bound shapes, which the
  // memory term carries with its own latency. Splitting them too would count that time twice and
  // keep it from scaling: Llama-3.1-8B's FFN at one decoded token on a B200 came out
  // compute-bound at 2,657 us instead of bandwidth-bound at about 2,000 (tycoon predict).
  const double bw = chip.hbm_bandwidth_bytes_per_s, bw_m = measured.hbm_bandwidth_bytes_per_s;
  for (Curve* c : {&p.gemm_memory_eff, &p.moe_memory_eff, &p.attn_decode_memory_eff, &p.elementwise_memory_eff,
                   &p.rotary_unfused_memory_eff, &p.activation_unfused_memory_eff, &p.qk_norm_memory_eff,
                   &p.kv_write_memory_eff, &p.moe_route_memory_eff}) {
    *c = borrowed_work_curve(*c, bw, bw_m);
  }
  // All-reduce efficiency is by message bytes, a fixed fraction of the bytes on the wire.
  p.allreduce_bus_eff = borrowed_work_curve(p.allreduce_bus_eff, chip.scale_up.bandwidth_bytes_per_s,
                                            measured.scale_up.bandwidth_bytes_per_s);
}

// The chip's curves: its own file, a measured sibling's lent to it, or the datasheet.
CalibrationProfile chip_curves(const data::Catalog& catalog, const data::Accelerator& chip) {
  const auto dir = catalog.root / "hardware_db" / "calibrated";
  const auto own = dir / (chip.id + ".json");
  if (std::filesystem::exists(own)) return load_calibration_profile(own);
  // A calibrated sibling: same vendor and family first, then same vendor.
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& other : catalog.accelerators) {
      if (other.id == chip.id || other.vendor != chip.vendor) continue;
      if (pass == 0 && other.family != chip.family) continue;
      auto path = dir / (other.id + ".json");
      if (!std::filesystem::exists(path)) continue;
      auto p = load_calibration_profile(path);
      // Only measured curves are lent: levels fitted to one chip's published results hold the
      // engine versions and traffic of those results, not a shape another chip can scale.
      if (p.provenance != Provenance::kMeasured) continue;
      p.provenance = Provenance::kExtrapolated;
      borrow_curves(p, chip, other);
      p.source = "curves of " + other.id + ", their throughput term scaled by " + chip.id + "'s datasheet peaks (" +
                 p.source + ")";
      return p;
    }
  }
  return CalibrationProfile::datasheet(chip.id);
}

}  // namespace

CalibrationProfile calibration_for(const data::Catalog& catalog, const data::Accelerator& chip) {
  CalibrationProfile p = chip_curves(catalog, chip);
  // Where the chip's curves are not this project's own measurements, the engines price routed
  // experts with their own published MoE kernels on the chip. A measured chip keeps its curves:
  // its calibration and the validation of it were made with them (docs/calibration.md).
  const auto kernels = catalog.root / "hardware_db" / "engine_kernels" / "moe.json";
  if (p.provenance != Provenance::kMeasured && std::filesystem::exists(kernels)) {
    attach_engine_moe_kernels(p, catalog, chip, kernels);
    if (!p.engine_moe.empty()) {
      std::set<std::string> ids;
      for (const auto& k : p.engine_moe) ids.insert(k.engine);
      std::string engines;
      for (const auto& id : ids) engines += (engines.empty() ? "" : ", ") + id;
      p.source += "; routed experts under " + engines + ": the engine's own MoE kernel on " + chip.id +
                  ", published by NVIDIA aiconfigurator (hardware_db/engine_kernels/moe.json)";
    }
  }
  return p;
}

const CalibrationProfile& CalibrationCache::operator()(const std::string& chip) {
  auto it = profiles_.find(chip);
  if (it == profiles_.end())
    it = profiles_.emplace(chip, calibration_for(*catalog_, catalog_->accelerator(chip))).first;
  return it->second;
}

}  // namespace tycoon::perf
