#include "sim/game/price_response.h"

#include <algorithm>

#include "sim/econ/demand.h"
#include "sim/game/game.h"

namespace tycoon::game {

namespace {
// An unsaturated fleet served last hour's load with room to spare, how much is unknown: the curve
// vouches for up to this much more than it served (demand moves a few percent an hour), not beyond.
constexpr double kKnownHeadroom = 1.25;
}  // namespace

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

  // Last hour on this segment's deployments, and on the whole fleet.
  double within = 0, offered = 0, completed = 0, seg_output = 0;
  int seg_gpus = 0, all_gpus = 0;
  for (const auto& r : s.deployment_history) {
    if (r.hour != s.hour - 1) continue;
    all_gpus += r.gpus_serving;
    const auto* d = s.company.find_deployment(r.deployment_id);
    if (!d || d->segment != seg.id) continue;
    within += r.requests_within_slo;
    offered += r.requests_offered;
    completed += r.requests_completed;
    seg_output += r.output_tokens;
    seg_gpus += r.gpus_serving;
  }
  const std::size_t n = s.history.num_hours();
  // Tokens per completed request last hour, this segment's share of the hour's tokens.
  econ::TokenCounts per_request;
  double requests_per_unit = 1.0;  // serving requests (turns) per demand request
  if (n > 0 && completed > 0 && st.last_offered_requests_per_s > 0) {
    const double all_output = s.history[Series::kOutputTokens][n - 1];
    const double share = all_output > 0 ? seg_output / all_output : 0.0;
    per_request.input_tokens = s.history[Series::kInputTokens][n - 1] * share / completed;
    per_request.cached_input_tokens = s.history[Series::kCachedInputTokens][n - 1] * share / completed;
    per_request.output_tokens = seg_output / completed;
    requests_per_unit = offered / (st.last_offered_requests_per_s * 3600.0);
    out.from_last_hour = true;
  }
  const double completed_share = offered > 0 ? completed / offered : 1.0;
  if (seg.workload.kind == serving::WorkloadKind::kAgenticCoding) {
    out.approximate = true;
    out.approximate_why = "agentic sessions run for hours: next hour's traffic is mostly sessions already open";
  }
  out.served_last_hour_per_s = completed / 3600.0 / requests_per_unit;
  if (offered > 0 && within < 0.98 * offered) out.capacity_per_s = completed / 3600.0 / requests_per_unit;
  if (n > 0 && all_gpus > 0) {
    const double gpu_share = static_cast<double>(seg_gpus) / static_cast<double>(all_gpus);
    out.rent_usd_per_hour = s.history[Series::kGpuCostUsd][n - 1] * gpu_share;
    out.fixed_usd_per_hour = scenario.company.fixed_cost_usd_per_day / 24.0 * gpu_share;
  }

  auto point = [&](double ratio) {
    PricePoint p;
    p.price_ratio = ratio;
    const double price = ratio * ref_req;
    p.offered_per_s =
        econ::offered_requests_per_s(seg.demand, static_cast<double>(s.hour), price, ref_req, st.reputation) *
        st.demand_multiplier;
    if (out.capacity_per_s) {
      p.served_per_s = std::min(p.offered_per_s * completed_share, *out.capacity_per_s);
    } else {
      p.served_per_s = p.offered_per_s * completed_share;
      p.beyond_known = out.from_last_hour && p.served_per_s > out.served_last_hour_per_s * kKnownHeadroom;
    }
    // Every token price scales with the ratio: the bill at `ratio` is draft × ratio / now_ratio.
    const auto prices = econ::scaled(draft, ratio / out.now_ratio);
    const double revenue_per_unit = out.from_last_hour ? econ::revenue_usd(per_request, prices) * requests_per_unit
                                                       : price;  // no hour served yet: the nominal request
    p.revenue_usd_per_hour = p.served_per_s * 3600.0 * revenue_per_unit;
    p.profit_usd_per_hour = p.revenue_usd_per_hour - out.costs_usd_per_hour();
    return p;
  };
  for (int i = 0;; ++i) {
    const double r = out.x0 + out.dx * i;
    if (r > out.x_max + 1e-9) break;
    out.points.push_back(point(r));
  }
  out.now = point(out.now_ratio);
  if (out.capacity_per_s) {
    for (const auto& p : out.points) {
      if (p.offered_per_s <= *out.capacity_per_s) {
        out.capacity_limit = p;
        break;
      }
    }
  }
  double best = -1e300;
  for (const auto& p : out.points) {
    if (p.beyond_known) continue;
    if (p.profit_usd_per_hour > best) {
      best = p.profit_usd_per_hour;
      out.best_ratio = p.price_ratio;
    }
  }
  return out;
}

}  // namespace tycoon::game
