#include "sim/game/price_response.h"

#include <algorithm>

#include "sim/econ/demand.h"
#include "sim/game/game.h"

namespace tycoon::game {

PriceResponse price_response(const Scenario& scenario, const GameState& s, std::size_t segment_index,
                             const econ::TokenPrices& draft) {
  PriceResponse out;
  const auto& seg = scenario.segments.at(segment_index);
  const auto& st = s.world.segments.at(segment_index);
  // What Game::step's customers compare: their bill and the market's list price.
  const auto bill = request_prices(scenario, s, segment_index, draft);
  const double ref_req = bill.reference_usd;
  const double draft_req = bill.price_usd;
  if (ref_req <= 0 || draft_req <= 0) return out;
  out.now_ratio = draft_req / ref_req;

  // Last hour on this segment's deployments: served within the SLO, offered, GPUs.
  double within = 0, offered = 0, completed = 0;
  int seg_gpus = 0, all_gpus = 0;
  for (const auto& r : s.deployment_history) {
    if (r.hour != s.hour - 1) continue;
    all_gpus += r.gpus_serving;
    const auto* d = s.company.find_deployment(r.deployment_id);
    if (!d || d->segment != seg.id) continue;
    within += r.requests_within_slo;
    offered += r.requests_offered;
    completed += r.requests_completed;
    seg_gpus += r.gpus_serving;
  }
  out.served_last_hour_per_s = within / 3600.0;
  if (offered > 0 && within < 0.98 * offered) out.capacity_per_s = within / 3600.0;
  if (s.history.num_hours() > 0 && all_gpus > 0) {
    const double rent = s.history[Series::kGpuCostUsd][s.history.num_hours() - 1];
    out.rent_usd_per_hour = rent * static_cast<double>(seg_gpus) / static_cast<double>(all_gpus);
  }
  (void)completed;

  auto point = [&](double ratio) {
    PricePoint p;
    p.price_ratio = ratio;
    const double price = ratio * ref_req;
    p.offered_per_s =
        econ::offered_requests_per_s(seg.demand, static_cast<double>(s.hour), price, ref_req, st.reputation) *
        st.demand_multiplier;
    p.served_per_s = out.capacity_per_s ? std::min(p.offered_per_s, *out.capacity_per_s) : p.offered_per_s;
    p.revenue_usd_per_hour = p.served_per_s * 3600.0 * price;
    p.profit_usd_per_hour = p.revenue_usd_per_hour - out.rent_usd_per_hour;
    return p;
  };
  for (int i = 0;; ++i) {
    const double r = out.x0 + out.dx * i;
    if (r > 3.0 + 1e-9) break;
    out.points.push_back(point(r));
  }
  out.now = point(out.now_ratio);
  double best = -1e300;
  for (const auto& p : out.points) {
    if (p.profit_usd_per_hour > best) {
      best = p.profit_usd_per_hour;
      out.best_ratio = p.price_ratio;
    }
  }
  return out;
}

}  // namespace tycoon::game
