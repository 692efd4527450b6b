// An accelerator (GPU or TPU) as the catalog describes it: datasheet figures and rental prices.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/types.h"

namespace tycoon::data {

struct ScaleUp {
  std::string technology;
  double bandwidth_bytes_per_s = 0;  // per GPU, per direction
  int domain_size = 1;               // GPUs reachable over the scale-up fabric
};

struct GpuPrice {
  Contract contract = Contract::kOnDemand;
  double price_usd_per_gpu_hour = 0;
  std::optional<int> term_months;  // reserved contracts only
  std::string provider;
  std::string date;
  std::string source;
};

struct Accelerator {
  std::string id;
  std::string name;
  Vendor vendor = Vendor::kNvidia;
  std::string family;
  double hbm_bytes = 0;  // the datasheet's capacity (marketing GB)
  // What the runtime sees (torch.cuda.get_device_properties / mem_get_info total), which engines
  // multiply by gpu_memory_utilization: sized memory plans and KV caches use this one.
  double runtime_memory_bytes = 0;
  double hbm_bandwidth_bytes_per_s = 0;
  double dense_bf16_flop_per_s = 0;
  double dense_fp8_flop_per_s = 0;  // 0: not supported
  double dense_fp4_flop_per_s = 0;  // 0: not supported
  ScaleUp scale_up;
  double scale_out_bandwidth_bytes_per_s = 0;  // per GPU, per direction, between nodes; 0: none listed
  double power_watts = 0;                      // the chip's TDP / TBP
  // Provisioned power per GPU all in (its share of the host, network, cooling and facility
  // overhead): what a megawatt of data centre feeds. Absent where no source gives one.
  std::optional<double> all_in_power_watts;
  std::string released;
  std::vector<GpuPrice> prices;
  std::vector<std::string> unverified;
  std::map<std::string, std::string> sources;
  std::string notes;
  std::string file;  // where it was loaded from

  // Dense tensor peak for math in `p`; an unsupported format runs at the next wider one
  // (fp4 on Hopper runs as fp8, int4 weights are dequantised to bf16).
  double peak_flop_per_s(Precision p) const;
  bool supports(Precision p) const;
  // The cheapest listed price for a contract type, if any.
  std::optional<GpuPrice> price(Contract c) const;
};

Accelerator load_accelerator(const std::filesystem::path& path);

}  // namespace tycoon::data
