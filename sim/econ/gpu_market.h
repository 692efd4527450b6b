// The GPU market: what each chip rents for under each contract, how many can be had, and how soon.
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/types.h"
#include "sim/data/accelerator.h"

namespace tycoon::econ {

// One line of the market: a chip under one contract type.
struct GpuOffer {
  std::string chip;
  Contract contract = Contract::kOnDemand;
  double list_price_usd_per_gpu_hour = 0;  // from the catalog (or the scenario's override)
  double price_multiplier = 1.0;           // moved by scenario events (shortages, price wars)
  int available_gpus = 0;                  // most GPUs rented from this offer at once
  int lead_time_hours = 0;                 // hours from signing until the GPUs serve
  int term_hours = 0;                      // reserved: the commitment; on-demand and spot: 0
  double interruptions_per_hour = 0;       // spot: chance that a contract is reclaimed in an hour

  // The price a new contract signs at, USD per GPU-hour.
  double price_usd_per_gpu_hour() const { return list_price_usd_per_gpu_hour * price_multiplier; }
  // The chance that a spot contract is reclaimed within `hours` (independent hours), 0 for others.
  double reclaim_chance(double hours) const {
    return contract == Contract::kSpot ? 1.0 - std::pow(1.0 - interruptions_per_hour, hours) : 0.0;
  }
  // A spot contract more likely than not to be reclaimed within a day: the market marks it.
  bool reclaimed_within_a_day_likely() const { return reclaim_chance(24) > 0.5; }
};

struct GpuMarket {
  std::vector<GpuOffer> offers;

  const GpuOffer* find(std::string_view chip, Contract contract) const;
  GpuOffer* find(std::string_view chip, Contract contract);
};

// The catalog's list price for `contract` on `chip`; nullopt when the catalog lists none.
std::optional<double> catalog_price_usd_per_gpu_hour(const data::Accelerator& chip, Contract contract);

// Rent for `num_gpus` GPUs at `price_usd_per_gpu_hour` over `hours` hours.
inline double rent_usd(int num_gpus, double price_usd_per_gpu_hour, double hours) {
  return num_gpus * price_usd_per_gpu_hour * hours;
}

// What releasing a reserved contract early costs: the rest of the commitment, `hours_left` hours
// of rent for every GPU released. Zero once the term has ended.
double early_release_fee_usd(int num_gpus, double price_usd_per_gpu_hour, std::int64_t hours_left);

}  // namespace tycoon::econ
