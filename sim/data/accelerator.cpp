#include "sim/data/accelerator.h"

#include <cmath>
#include <string>

#include "sim/data/json_reader.h"
#include "sim/data/source_check.h"

namespace tycoon::data {

double Accelerator::peak_flop_per_s(Precision p) const {
  switch (p) {
    case Precision::kFp4:
      if (dense_fp4_flop_per_s > 0) return dense_fp4_flop_per_s;
      [[fallthrough]];
    case Precision::kFp8:
      if (dense_fp8_flop_per_s > 0) return dense_fp8_flop_per_s;
      [[fallthrough]];
    case Precision::kBf16:
    case Precision::kInt4:
      return dense_bf16_flop_per_s;
  }
  return dense_bf16_flop_per_s;
}

bool Accelerator::supports(Precision p) const {
  switch (p) {
    case Precision::kFp4:
      return dense_fp4_flop_per_s > 0;
    case Precision::kFp8:
      return dense_fp8_flop_per_s > 0;
    case Precision::kBf16:
    case Precision::kInt4:
      return true;
  }
  return true;
}

std::optional<GpuPrice> Accelerator::price(Contract c) const {
  std::optional<GpuPrice> best;
  for (const auto& p : prices) {
    if (p.contract == c && (!best || p.price_usd_per_gpu_hour < best->price_usd_per_gpu_hour)) best = p;
  }
  return best;
}

Accelerator load_accelerator(const std::filesystem::path& path) {
  auto json = parse_json_file(path);
  ObjectReader r(json, path.string(), "");
  Accelerator a;
  a.file = path.string();
  a.id = r.string("id");
  if (a.id != path.stem().string()) r.fail("id", "'" + a.id + "' does not match the file name");
  a.name = r.string("name");
  a.vendor = static_cast<Vendor>(r.choice("vendor", kVendorNames));
  a.family = r.string("family");
  a.hbm_bytes = r.number("hbm_bytes", Bound::kPositive);
  a.runtime_memory_bytes = r.number("runtime_memory_bytes", Bound::kPositive);
  a.hbm_bandwidth_bytes_per_s = r.number("hbm_bandwidth_bytes_per_s", Bound::kPositive);
  a.dense_bf16_flop_per_s = r.number("dense_bf16_flop_per_s", Bound::kPositive);
  a.dense_fp8_flop_per_s = r.number("dense_fp8_flop_per_s", Bound::kNonNegative);
  a.dense_fp4_flop_per_s = r.number("dense_fp4_flop_per_s", Bound::kNonNegative);
  {
    auto s = r.object("scale_up");
    a.scale_up.technology = s.string("technology");
    a.scale_up.bandwidth_bytes_per_s = s.number("bandwidth_bytes_per_s", Bound::kPositive);
    a.scale_up.domain_size = static_cast<int>(s.integer("domain_size", Bound::kPositive));
    s.finish();
  }
  a.scale_out_bandwidth_bytes_per_s =
      r.optional_number("scale_out_bandwidth_bytes_per_s", Bound::kPositive).value_or(0.0);
  a.power_watts = r.number("power_watts", Bound::kPositive);
  a.all_in_power_watts = r.optional_number("all_in_power_watts", Bound::kPositive);
  a.released = r.string("released");
  auto prices = r.array("prices");
  if (prices.size() == 0) prices.fail_here("at least one price is required");
  for (std::size_t i = 0; i < prices.size(); ++i) {
    auto p = prices.object(i);
    GpuPrice g;
    g.contract = static_cast<Contract>(p.choice("contract", kContractNames));
    g.price_usd_per_gpu_hour = p.number("price_usd_per_gpu_hour", Bound::kPositive);
    if (auto t = p.optional_integer("term_months", Bound::kPositive)) g.term_months = static_cast<int>(*t);
    if (g.contract == Contract::kReserved && !g.term_months) p.fail("term_months", "missing required field");
    if (g.contract != Contract::kReserved && g.term_months) {
      p.fail("term_months", "only reserved contracts have a term");
    }
    g.provider = p.string("provider");
    g.date = p.string("date");
    g.source = p.string("source");
    p.finish();
    a.prices.push_back(std::move(g));
  }
  a.unverified = r.string_array("unverified");
  a.sources =
      read_sources(r, {"hbm_bytes", "runtime_memory_bytes", "hbm_bandwidth_bytes_per_s", "dense_bf16_flop_per_s",
                       "dense_fp8_flop_per_s", "dense_fp4_flop_per_s", "scale_up", "power_watts"});
  if (a.scale_out_bandwidth_bytes_per_s > 0 && !a.sources.contains("scale_out_bandwidth_bytes_per_s")) {
    r.fail("sources", "no source given for 'scale_out_bandwidth_bytes_per_s'");
  }
  if (a.all_in_power_watts && !a.sources.contains("all_in_power_watts")) {
    r.fail("sources", "no source given for 'all_in_power_watts'");
  }
  if (a.all_in_power_watts && *a.all_in_power_watts < a.power_watts) {
    r.fail("all_in_power_watts", "below the chip's own power_watts (" + std::to_string(std::llround(a.power_watts)) +
                                     " W): an all-in figure includes the chip");
  }
  check_unverified_keys(r, a.unverified);
  if (auto n = r.optional_string("notes")) a.notes = *n;
  r.finish();
  return a;
}

}  // namespace tycoon::data
