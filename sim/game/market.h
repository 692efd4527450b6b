// Renting and releasing GPUs, from the company's side of the market: what an offer has left, why
// a rent is refused, what the fleet's rent comes to and what releasing a reserved contract early
// costs. The RentGpus and ReleaseGpus commands and the market panel use these same rules.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sim/game/command.h"
#include "sim/game/scenario.h"
#include "sim/game/state.h"

namespace tycoon::game {

// GPUs of `offer`'s chip and contract type the company may still rent: the offer's available
// GPUs less those under the company's contracts of that chip and type (never below 0).
int gpus_left(const Company& company, const econ::GpuOffer& offer);

// What `num_gpus` of `offer` cost for their first day (24 hours at today's price): what renting
// them needs in cash plus credit (rent_refusal), and what the market panel quotes per day.
double first_day_rent_usd(const econ::GpuOffer& offer, int num_gpus);

// Why the game refuses `c` (the offer is missing, the count is outside 1..left, or cash plus the
// credit line does not cover the first day's rent), or nothing when it rents. Locks are the
// command applier's; `player`: false for the scenario's own starting fleet, which is not
// held to the first day's rent.
std::optional<std::string> rent_refusal(const Scenario& scenario, const GameState& s, const RentGpus& c,
                                        bool player = true);

// Signs a contract for `num_gpus` of `offer` at `hour`, appended to `company`'s contracts: at the
// offer's price, serving from `hour + lead_time_hours`, a reserved one committed for the offer's
// term from then. The scenario's starting fleet signs with no lead time; a rent, with the offer's.
const GpuContract& sign_contract(Company& company, const econ::GpuOffer& offer, int num_gpus, std::int64_t hour,
                                 std::int64_t lead_time_hours);

// Rent the fleet pays for one hour at `s.hour` (USD): every contract ready then, at
// contract_price_usd_per_gpu_hour. Contracts still in lead time pay from their ready hour.
double fleet_rent_usd_per_hour(const GameState& s);

// What releasing `num_gpus` of contract `c` at `hour` costs at once (USD): a reserved contract
// before the end of its term pays the rest of the commitment (the hours from `hour`, or from its
// ready hour when it is not serving yet, to the term's end); anything else nothing.
double release_fee_usd(const GpuContract& c, int num_gpus, std::int64_t hour);
// The committed hours that fee pays for (0 when there is no fee).
std::int64_t release_hours_left(const GpuContract& c, std::int64_t hour);

}  // namespace tycoon::game
