#include "sim/game/hourly_economics.h"

#include "sim/game/fleet.h"

namespace tycoon::game {

namespace {
constexpr double kSecondsPerHour = 3600;
}

HourlyEconomics hourly_economics(const GameState& s, const std::string& model, const serving::ServingSummary& window,
                                 std::span<const PoolGpus> pools) {
  HourlyEconomics e;
  int num_gpus = 0;
  for (const auto& p : pools) {
    num_gpus += p.num_gpus;
    e.gpu_cost_usd += chip_price_usd_per_gpu_hour(s, p.chip) * p.num_gpus;
  }
  const auto prices = s.company.prices.find(model);
  if (prices == s.company.prices.end()) return e;
  const econ::TokenCounts sample{static_cast<double>(window.input_tokens),
                                 static_cast<double>(window.cached_input_tokens),
                                 static_cast<double>(window.output_tokens)};
  const double output_per_hour = window.output_tok_per_s_per_gpu * num_gpus * kSecondsPerHour;
  e.revenue_usd = econ::revenue_usd(econ::at_output_rate(sample, output_per_hour), prices->second);
  return e;
}

}  // namespace tycoon::game
