#include "sim/game/last_hours.h"

#include "sim/game/slo.h"

namespace tycoon::game {

double sum_last(const History& h, Series s, std::size_t hours) {
  const auto& v = h[s];
  double sum = 0;
  for (std::size_t i = v.size() > hours ? v.size() - hours : 0; i < v.size(); ++i) sum += v[i];
  return sum;
}

LastHours last_hours(const History& h, std::size_t hours) {
  LastHours r;
  r.money = {sum_last(h, Series::kRevenueUsd, hours), sum_last(h, Series::kGpuCostUsd, hours),
             sum_last(h, Series::kFixedCostUsd, hours)};
  r.output_tokens = sum_last(h, Series::kOutputTokens, hours);
  r.requests_offered = sum_last(h, Series::kRequestsOffered, hours);
  r.requests_failed = sum_last(h, Series::kRequestsFailed, hours);
  // The hours' requests within SLO, recovered from each hour's attainment and offered requests.
  const auto& attainment = h[Series::kSloAttainment];
  const auto& offered = h[Series::kRequestsOffered];
  double within = 0;
  for (std::size_t i = attainment.size() > hours ? attainment.size() - hours : 0; i < attainment.size(); ++i) {
    within += attainment[i] * offered[i];
  }
  r.slo_attainment = slo_attainment(within, r.requests_offered);
  return r;
}

std::vector<double> daily_sums(const History& h, Series s) {
  const auto& hourly = h[s];
  std::vector<double> out((hourly.size() + 23) / 24, 0.0);
  for (std::size_t i = 0; i < hourly.size(); ++i) out[i / 24] += hourly[i];
  return out;
}

std::vector<double> running_total(const History& h, std::initializer_list<Series> series) {
  std::vector<double> out;
  out.reserve(h.num_hours());
  double sum = 0;
  for (std::size_t i = 0; i < h.num_hours(); ++i) {
    for (Series s : series) sum += h[s][i];
    out.push_back(sum);
  }
  return out;
}

double cash_change_usd(const History& h, double cash_now_usd, double starting_cash_usd, std::size_t hours) {
  const std::size_t n = h.num_hours();
  const double then_usd = n > hours ? h[Series::kCashUsd][n - hours - 1] : starting_cash_usd;
  return cash_now_usd - then_usd;
}

const DeploymentHour* last_hour_of(const GameState& s, std::int64_t id) {
  for (auto it = s.deployment_history.rbegin(); it != s.deployment_history.rend(); ++it) {
    if (it->hour + 2 < s.hour) break;
    if (it->deployment_id == id) return &*it;
  }
  return nullptr;
}

}  // namespace tycoon::game
