// The ledger: revenue by model and token type, GPU rent by contract type, fixed costs; margins.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>

#include "sim/core/types.h"
#include "sim/econ/prices.h"

namespace tycoon::econ {

// Gross margin, (revenue − GPU cost) / revenue, of any period or rate (USD, or USD per hour);
// nullopt without revenue. Every margin the game, the UI and the analyst reports show is this one.
std::optional<double> gross_margin(double revenue_usd, double gpu_cost_usd);

struct LedgerTotals {
  double revenue_usd = 0;
  double gpu_cost_usd = 0;    // rent, early-release fees included
  double fixed_cost_usd = 0;  // staff, offices: the scenario's fixed costs

  double gross_profit_usd() const { return revenue_usd - gpu_cost_usd; }
  double profit_usd() const { return revenue_usd - gpu_cost_usd - fixed_cost_usd; }
  // (revenue − GPU cost) / revenue; nullopt without revenue.
  std::optional<double> gross_margin() const { return econ::gross_margin(revenue_usd, gpu_cost_usd); }
  // The same revenue and fixed costs with the GPU cost divided by `speedup`: serving the same
  // tokens `speedup` times faster needs 1/speedup of the GPU-hours (the margin lesson).
  LedgerTotals served_faster(double speedup) const { return {revenue_usd, gpu_cost_usd / speedup, fixed_cost_usd}; }
  // How much profit changes, as a share of the profit now, when the same tokens are served
  // `speedup` times faster; nullopt when there is no profit to compare with (zero).
  std::optional<double> profit_change_served_faster(double speedup) const {
    const double now = profit_usd();
    if (now == 0) return std::nullopt;
    return (served_faster(speedup).profit_usd() - now) / (now < 0 ? -now : now);
  }
};

// The speedup the margin lesson asks about ("serving the same tokens 10% faster"): the size of a
// gain that a good kernel or recipe change gives, so the answer is about the player's own margin.
inline constexpr double kLessonSpeedup = 1.1;

struct ModelRevenue {
  TokenCounts tokens;
  double revenue_usd = 0;
};

class Ledger {
 public:
  void add_revenue(const std::string& model, const TokenCounts& tokens, const TokenPrices& prices);
  void add_gpu_cost(Contract contract, double usd);
  void add_fixed_cost(double usd);

  const LedgerTotals& totals() const { return totals_; }
  const std::map<std::string, ModelRevenue>& by_model() const { return by_model_; }
  const std::array<double, kContractNames.size()>& gpu_cost_by_contract() const { return gpu_cost_by_contract_; }

  // For save/load.
  void restore(LedgerTotals totals, std::map<std::string, ModelRevenue> by_model,
               std::array<double, kContractNames.size()> by_contract);

 private:
  LedgerTotals totals_;
  std::map<std::string, ModelRevenue> by_model_;
  std::array<double, kContractNames.size()> gpu_cost_by_contract_{};
};

}  // namespace tycoon::econ
