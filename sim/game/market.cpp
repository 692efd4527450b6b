#include "sim/game/market.h"

#include <algorithm>
#include <cstdio>

#include "sim/econ/gpu_market.h"
#include "sim/econ/prices.h"
#include "sim/game/fleet.h"

namespace tycoon::game {

int gpus_left(const Company& company, const econ::GpuOffer& offer) {
  int rented = 0;
  for (const auto& k : company.contracts) {
    if (k.chip == offer.chip && k.contract == offer.contract) rented += k.num_gpus;
  }
  return std::max(0, offer.available_gpus - rented);
}

double first_day_rent_usd(const econ::GpuOffer& offer, int num_gpus) {
  return econ::rent_usd(num_gpus, offer.price_usd_per_gpu_hour(), 24);
}

std::optional<std::string> rent_refusal(const Scenario& scenario, const GameState& s, const RentGpus& c, bool player) {
  const std::string what = std::string(to_string(c.contract)) + " " + c.chip;
  const auto* offer = s.world.market.find(c.chip, c.contract);
  if (!offer) return "the market offers no " + what + " GPUs";
  if (c.num_gpus < 1) return "rent at least one GPU";
  const int left = gpus_left(s.company, *offer);
  if (c.num_gpus > left) {
    return "only " + std::to_string(left) + " more " + what + " GPUs available (asked for " +
           std::to_string(c.num_gpus) + ")";
  }
  // The first day's rent must be covered by cash plus the credit line.
  const double day_usd = first_day_rent_usd(*offer, c.num_gpus);
  const double credit_usd = scenario.company.credit_line_usd;
  if (player && s.company.cash_usd + credit_usd < day_usd) {
    return "Not enough cash to rent " + std::to_string(c.num_gpus) + " x " + what + ": the first day costs " +
           econ::usd_text(day_usd) + ", you have " + econ::usd_text(s.company.cash_usd) +
           (credit_usd > 0 ? " plus a " + econ::usd_text(credit_usd) + " credit line" : std::string()) +
           ". Earn revenue first or rent fewer GPUs.";
  }
  return std::nullopt;
}

double fleet_rent_usd_per_hour(const GameState& s) {
  double usd_per_hour = 0;
  for (const auto& c : s.company.contracts) {
    if (c.ready(s.hour))
      usd_per_hour += econ::rent_usd(c.num_gpus, contract_price_usd_per_gpu_hour(c, s.world.market), 1);
  }
  return usd_per_hour;
}

std::int64_t release_hours_left(const GpuContract& c, std::int64_t hour) {
  if (c.contract != Contract::kReserved || hour >= c.term_ends_at_hour) return 0;
  return c.term_ends_at_hour - std::max(hour, c.ready_at_hour);
}

double release_fee_usd(const GpuContract& c, int num_gpus, std::int64_t hour) {
  return econ::early_release_fee_usd(num_gpus, c.signed_price_usd_per_gpu_hour, release_hours_left(c, hour));
}

const GpuContract& sign_contract(Company& company, const econ::GpuOffer& offer, int num_gpus, std::int64_t hour,
                                 std::int64_t lead_time_hours) {
  GpuContract k;
  k.id = company.next_contract_id++;
  k.chip = offer.chip;
  k.contract = offer.contract;
  k.num_gpus = num_gpus;
  k.signed_price_usd_per_gpu_hour = offer.price_usd_per_gpu_hour();
  k.signed_at_hour = hour;
  k.ready_at_hour = hour + lead_time_hours;
  k.term_ends_at_hour = offer.contract == Contract::kReserved ? k.ready_at_hour + offer.term_hours : 0;
  company.contracts.push_back(k);
  return company.contracts.back();
}

}  // namespace tycoon::game
