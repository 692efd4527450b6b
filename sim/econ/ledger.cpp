#include "sim/econ/ledger.h"

#include <utility>

namespace tycoon::econ {

std::optional<double> gross_margin(double revenue_usd, double gpu_cost_usd) {
  if (revenue_usd <= 0) return std::nullopt;
  return (revenue_usd - gpu_cost_usd) / revenue_usd;
}

void Ledger::add_revenue(const std::string& model, const TokenCounts& tokens, const TokenPrices& prices) {
  double usd = revenue_usd(tokens, prices);
  auto& m = by_model_[model];
  m.tokens += tokens;
  m.revenue_usd += usd;
  totals_.revenue_usd += usd;
}

void Ledger::add_gpu_cost(Contract contract, double usd) {
  gpu_cost_by_contract_[static_cast<std::size_t>(contract)] += usd;
  totals_.gpu_cost_usd += usd;
}

void Ledger::add_fixed_cost(double usd) { totals_.fixed_cost_usd += usd; }

void Ledger::restore(LedgerTotals totals, std::map<std::string, ModelRevenue> by_model,
                     std::array<double, kContractNames.size()> by_contract) {
  totals_ = totals;
  by_model_ = std::move(by_model);
  gpu_cost_by_contract_ = by_contract;
}

}  // namespace tycoon::econ
