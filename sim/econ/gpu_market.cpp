#include "sim/econ/gpu_market.h"

#include <algorithm>

namespace tycoon::econ {

const GpuOffer* GpuMarket::find(std::string_view chip, Contract contract) const {
  for (const auto& o : offers) {
    if (o.chip == chip && o.contract == contract) return &o;
  }
  return nullptr;
}

GpuOffer* GpuMarket::find(std::string_view chip, Contract contract) {
  for (auto& o : offers) {
    if (o.chip == chip && o.contract == contract) return &o;
  }
  return nullptr;
}

std::optional<double> catalog_price_usd_per_gpu_hour(const data::Accelerator& chip, Contract contract) {
  auto p = chip.price(contract);
  if (!p) return std::nullopt;
  return p->price_usd_per_gpu_hour;
}

double early_release_fee_usd(int num_gpus, double price_usd_per_gpu_hour, std::int64_t hours_left) {
  return rent_usd(num_gpus, price_usd_per_gpu_hour, static_cast<double>(std::max<std::int64_t>(hours_left, 0)));
}

}  // namespace tycoon::econ
