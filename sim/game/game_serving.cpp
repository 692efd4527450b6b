// The hour's serving: each segment's demand at its prices, the load split over its deployments,
// each deployment's simulated window (spot reclaims included) and the hour booked from it.
#include "sim/game/game.h"

#include <algorithm>
#include <cmath>

#include "sim/econ/demand.h"
#include "sim/game/load_share.h"
#include "sim/game/plan.h"
#include "sim/game/rng.h"
#include "sim/game/slo.h"
#include "sim/serving/disaggregated.h"

namespace tycoon::game {

double live_quality_drift(const GameState& s, std::int64_t deployment_id) {
  double right = 1.0;
  for (const auto& a : s.inbox) {
    if (a.deployment_id != deployment_id || a.status != AdviceStatus::kAccepted || a.reverted_at_hour) continue;
    right *= 1.0 - std::clamp(a.effect.reputation_hit, 0.0, 1.0);
  }
  return 1.0 - right;
}

double Game::segment_demand_per_s(std::size_t si, std::int64_t h) {
  auto& s = state_;
  const auto& seg = scenario_.segments[si];
  auto& seg_state = s.world.segments[si];
  // Customers compare their bill with the market's list price (request_prices).
  const auto bill = request_prices(scenario_, s, si, s.company.prices.at(seg.model));
  double rate = econ::offered_requests_per_s(seg.demand, static_cast<double>(h), bill.price_usd, bill.reference_usd,
                                             seg_state.reputation) *
                seg_state.demand_multiplier;
  double noise = uniform01(s.rng.demand);
  rate *= 1.0 + seg.demand_noise * (2.0 * noise - 1.0);
  seg_state.last_offered_requests_per_s = rate;
  return rate;
}

void Game::serve_segment(std::size_t si, std::int64_t h, const std::vector<DeploymentAllocation>& allocation,
                         const SpotReclaims& interrupted, HourTotals& totals) {
  auto& s = state_;
  auto& company = s.company;
  const auto& seg = scenario_.segments[si];
  auto& seg_state = s.world.segments[si];
  const auto& prices = company.prices.at(seg.model);
  const double rate = segment_demand_per_s(si, h);

  // Split the segment's load over its serving deployments by estimated capacity: GPUs ×
  // bandwidth × engine efficiency × speedup (the router's view; decode is bandwidth-bound).
  std::vector<std::size_t> serving_idx;
  double weight_sum = 0;
  const std::vector<double> weights = capacity_weights(*catalog_, company, seg.id);
  for (std::size_t di = 0; di < company.deployments.size(); ++di) {
    const auto& d = company.deployments[di];
    if (d.segment != seg.id || !d.serving()) continue;
    weight_sum += weights[di];
    serving_idx.push_back(di);
  }
  // Requests offered: the windows' (for multi-turn workloads a request is a turn); with no
  // deployment serving, the sessions that found no one.
  SegmentHour sh;
  sh.requests_offered = serving_idx.empty() ? rate * 3600.0 : 0.0;
  for (std::size_t di : serving_idx) {
    auto& d = company.deployments[di];
    const auto& alloc = allocation[di];
    double d_rate = rate * weights[di] / weight_sum;
    DeploymentServed served = serve_deployment(seg, d, alloc, d_rate, interrupted, h);
    book_deployment_hour(d, alloc, d_rate, served, prices, h, sh, totals);
  }
  // Deployments of this model with no GPUs still count for the per-deployment view.
  for (std::size_t di = 0; di < company.deployments.size(); ++di) {
    const auto& d = company.deployments[di];
    if (d.segment != seg.id || d.serving()) continue;
    DeploymentHour rec;
    rec.hour = h;
    rec.deployment_id = d.id;
    s.deployment_history.push_back(rec);
  }
  if (sh.tokens.input_tokens > 0) {
    seg_state.billed_cached_share = sh.tokens.cached_input_tokens / sh.tokens.input_tokens;
  }
  double attainment =
      sh.requests_offered > 0 ? sh.requests_within_slo / sh.requests_offered : seg_state.last_slo_attainment;
  if (sh.requests_offered > 0) {
    // Customers judge the answers as well as the speed: while an accepted change whose outputs
    // drift stays live, its share of wrong answers keeps pulling reputation down (the incident at
    // acceptance is only its first day); undoing the change stops it.
    double wrong = 0;
    for (std::size_t di : serving_idx) {
      wrong += weights[di] / weight_sum * live_quality_drift(s, company.deployments[di].id);
    }
    seg_state.reputation = econ::next_reputation(seg_state.reputation, attainment * (1.0 - std::min(1.0, wrong)),
                                                 seg.reputation_half_life_hours);
    seg_state.last_slo_attainment = attainment;
  }
  totals.requests_offered += sh.requests_offered;
  totals.requests_within_slo += sh.requests_within_slo;
  totals.requests_completed += sh.requests_completed;
  totals.requests_failed += sh.requests_offered - sh.requests_completed;
}

Game::DeploymentServed Game::serve_deployment(const SegmentSpec& seg, const DeploymentState& d,
                                              const DeploymentAllocation& alloc, double d_rate,
                                              const SpotReclaims& interrupted, std::int64_t h) {
  WindowSpec spec = WindowSpec::of(
      plan_deployment(*catalog_, scenario_, d, alloc.active_replicas, alloc.decode_active_replicas,
                      [cache = &calibrations_](const data::Accelerator& chip) { return (*cache)(chip.id); }),
      seg, scenario_.serving, d_rate, state_.seed);
  DeploymentServed served;
  served.out = windows_->serve_hour(spec);
  served.in_slo = served.out.requests_completed * share_within_slo(served.out.ttft_s, served.out.tpot_s, seg.slo);
  served.replicas_lost = serve_spot_reclaim(spec, seg, d, alloc, interrupted, h, served);
  return served;
}

int Game::serve_spot_reclaim(WindowSpec& spec, const SegmentSpec& seg, const DeploymentState& d,
                             const DeploymentAllocation& alloc, const SpotReclaims& interrupted, std::int64_t h,
                             DeploymentServed& served) {
  // A reclaimed spot contract: the hour is served by all replicas until it goes, then by the
  // rest; requests in flight on the lost replicas fail (Little's law: rate × mean latency).
  auto& out = served.out;
  auto& in_slo = served.in_slo;
  double at = 1.0;
  // Replicas of one pool that lose a GPU, and when the first goes.
  auto count_lost = [&](const std::vector<std::vector<std::int64_t>>& replicas) {
    int n = 0;
    for (const auto& replica : replicas) {
      double first = 1.0;
      for (auto id : replica) {
        if (auto it = interrupted.find(id); it != interrupted.end()) first = std::min(first, it->second);
      }
      if (first < 1.0) {
        ++n;
        at = std::min(at, first);
      }
    }
    return n;
  };
  const int lost_prefill = count_lost(alloc.replica_contracts);
  const int lost_decode = count_lost(alloc.decode_replica_contracts);
  const int lost = lost_prefill + lost_decode;
  if (lost == 0) return 0;
  spec.plan.config.replicas = alloc.active_replicas - lost_prefill;
  if (auto& split = spec.plan.config.disaggregated) split->decode.replicas = alloc.decode_active_replicas - lost_decode;
  HourServing after = windows_->serve_hour(spec);
  double after_slo = after.requests_completed * share_within_slo(after.ttft_s, after.tpot_s, seg.slo);
  double in_flight =
      out.requests_offered / 3600.0 * out.e2e_s.mean * lost / (alloc.active_replicas + alloc.decode_active_replicas);
  double tokens_per_completed = out.requests_completed > 0 ? 1.0 / out.requests_completed : 0.0;
  econ::TokenCounts lost_tokens = out.tokens.scaled(in_flight * tokens_per_completed);
  out.tokens = out.tokens.scaled(at);
  out.tokens += after.tokens.scaled(1.0 - at);
  out.tokens.input_tokens = std::max(0.0, out.tokens.input_tokens - lost_tokens.input_tokens);
  out.tokens.cached_input_tokens = std::max(0.0, out.tokens.cached_input_tokens - lost_tokens.cached_input_tokens);
  out.tokens.output_tokens = std::max(0.0, out.tokens.output_tokens - lost_tokens.output_tokens);
  out.requests_completed =
      std::max(0.0, at * out.requests_completed + (1.0 - at) * after.requests_completed - in_flight);
  out.requests_failed = out.requests_offered - out.requests_completed;
  in_slo = std::max(0.0, at * in_slo + (1.0 - at) * after_slo - in_flight);
  out.ttft_s = at >= 0.5 ? out.ttft_s : after.ttft_s;
  out.tpot_s = at >= 0.5 ? out.tpot_s : after.tpot_s;
  news("Spot capacity reclaimed: deployment " + std::to_string(d.id) + " lost " + std::to_string(lost) +
           " replica(s) " + std::to_string(static_cast<int>(at * 60)) + " min into hour " + std::to_string(h) +
           "; about " + std::to_string(static_cast<long long>(std::llround(in_flight))) + " requests in flight failed",
       NewsTone::kWarning);
  return lost;
}

void Game::book_deployment_hour(const DeploymentState& d, const DeploymentAllocation& alloc, double d_rate,
                                const DeploymentServed& served, const econ::TokenPrices& prices, std::int64_t h,
                                SegmentHour& sh, HourTotals& totals) {
  auto& s = state_;
  const auto& out = served.out;
  double d_revenue = econ::revenue_usd(out.tokens, prices);
  s.ledger.add_revenue(d.model, out.tokens, prices);
  totals.revenue_usd += d_revenue;
  totals.tokens += out.tokens;
  sh.tokens += out.tokens;
  sh.requests_within_slo += served.in_slo;
  sh.requests_offered += out.requests_offered;
  sh.requests_completed += out.requests_completed;
  const int gpus = gpus_of(alloc.active_replicas, d.recipe) +
                   (d.decode ? gpus_of(alloc.decode_active_replicas, d.decode->recipe) : 0);
  totals.gpus_serving += gpus;
  DeploymentHour rec;
  rec.hour = h;
  rec.deployment_id = d.id;
  rec.gpus_serving = gpus;
  rec.offered_requests_per_s = d_rate;
  rec.requests_offered = out.requests_offered;
  rec.requests_completed = out.requests_completed;
  rec.requests_failed = out.requests_failed;
  rec.requests_within_slo = served.in_slo;
  rec.output_tokens = out.tokens.output_tokens;
  rec.revenue_usd = d_revenue;
  rec.ttft_p90_s = out.ttft_s.p90;
  rec.tpot_p90_s = out.tpot_s.p90;
  rec.output_tok_per_s_per_gpu = out.tokens.output_tokens / 3600.0 / gpus;
  rec.interrupted = served.replicas_lost > 0;
  s.deployment_history.push_back(rec);
}

}  // namespace tycoon::game
