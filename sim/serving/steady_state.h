// Steady state by construction for `tycoon benchmark` and every sweep point: a run's reported
// latency percentiles come from the part of the run after its warm-up, and the run lasts until
// their intervals are narrow enough, or the report says that they are not and why.
//
// The rule, per run (judge_run):
//   1. the counted, completed requests in arrival order give two series, TTFT and TPOT;
//   2. the warm-up is cut by MSER-5 (White 1997; White, Cobb & Spratt 2000): batch the series in
//      fives, drop the first d batches where the variance of the mean of the rest,
//      sum (z_j − z̄_d)² / (m − d)², is least, searching up to half the run; a least at that bound
//      means the warm-up has not ended within it;
//   3. after the cut, each P90's 95% interval by batch means (kSteadyBatches equal batches in
//      arrival order, the P90 of each, Student t over them): batches of consecutive requests carry
//      the series' correlation, which an i.i.d. order-statistic interval would ignore;
//   4. stationary when the cut lies before half the run and every checked P90's half width is at
//      most SteadyStateRule::max_relative_half_width of its value.
// run_to_steady_state doubles the request count until the rule holds or the cap is reached, then
// runs once more with the warm-up cut as `warmup_s` so that every reported figure (throughput
// included) is the post-warm-up window's. The game's own serving windows never go through here.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>

#include "sim/serving/serving_sim.h"

namespace tycoon::serving {

class Simulation;

// A run stops growing when each checked P90's 95% half width is within this share of its value.
inline constexpr double kSteadyRelativeHalfWidth = 0.10;
// Batches of the batch-means interval: 10 is the usual choice (Law & Kelton, "Simulation Modeling
// and Analysis", §9.5.3: 10 to 30 batches), so that t(0.975, 9) = 2.262.
inline constexpr int kSteadyBatches = 10;
// A batch's P90 needs a request above it: 10 per batch puts one above the 90th percentile, and
// keeps the least a run measures (kSteadyBatches × this) at 100 requests.
inline constexpr int kSteadyMinPerBatch = 10;
// MSER's batch of observations (MSER-5).
inline constexpr int kMserBatch = 5;
// The fewest requests a growing run starts with: twice the least it must measure after a warm-up
// cut (kSteadyBatches × kSteadyMinPerBatch), so that a short starting count (a sweep's 4 × 16
// users) does not climb the doubling ladder run by run.
inline constexpr std::int64_t kSteadyMinStartRequests = 2 * kSteadyBatches * kSteadyMinPerBatch;
// The cap a run grows to when none is given (never below 2 × kSteadyMinStartRequests): this many requests per
// closed-loop user (8 × the kRequestsPerUser default), or this many times the starting count for open-loop arrivals.
inline constexpr int kSteadyMaxRequestsPerUser = 80;
inline constexpr int kSteadyMaxGrowth = 8;

struct SteadyStateRule {
  double max_relative_half_width = kSteadyRelativeHalfWidth;
  std::int64_t max_requests = 0;  // cap on the requests a run may grow to (0: default_max_requests)
};

// The requests a run of `config` may grow to by default: kSteadyMaxRequestsPerUser per user of a
// closed loop, kSteadyMaxGrowth times the requests asked of an open one.
std::int64_t default_max_requests(const ServingConfig& config);

// The most requests run_to_steady_state(config, …, rule) may simulate, warm-ups included: every
// run of its doubling ladder to the cap, and the re-run from the warm-up cut. A run that cannot
// grow (a span, a timed trace, no count) simulates its own count.
std::int64_t steady_requests_bound(const ServingConfig& config, const SteadyStateRule& rule);

// A percentile with its 95% batch-means half width (NaN when too few requests to batch).
struct PercentileInterval {
  double value = 0;
  double half_width = std::numeric_limits<double>::quiet_NaN();
  double relative() const;  // half_width / value (NaN when undefined)
};

// What judge_run found about one run.
struct SteadyState {
  bool stationary = false;
  std::string why_not;                 // empty when stationary: the reason in words
  bool warmup_ended = true;            // false: MSER-5's least lies at half the run
  std::int64_t warmup_requests = 0;    // counted requests MSER-5 cut from the start
  double warmup_s = 0;                 // the arrival instant of the first request kept
  std::int64_t measured_requests = 0;  // completed requests after the cut
  PercentileInterval ttft_p90_s, tpot_p90_s;
  std::int64_t num_requests = 0;  // the requests the judged run sent (its config.num_requests)
  int num_runs = 1;               // simulations it took (run_to_steady_state)
};

// MSER-5 on `series`: the observations to drop from its start (a multiple of kMserBatch), over
// the cuts up to half the series. Returns the cut; `past_half` tells whether the least lies at
// that bound (the warm-up did not end within the first half).
struct MserCut {
  std::size_t cut = 0;
  bool past_half = false;
};
MserCut mser5(std::span<const double> series);

// The P90 of `series` with the 95% batch-means half width over `batches` equal batches (NaN half
// width with fewer than batches × kSteadyMinPerBatch values).
PercentileInterval p90_batch_means(std::span<const double> series, int batches = kSteadyBatches);

// Judges a finished simulation (Simulation::run() returned) of `config` by the rule above.
SteadyState judge_run(const Simulation& sim, const ServingConfig& config, const SteadyStateRule& rule);

struct SteadyRun {
  ServingConfig config;  // what ran last: num_requests and the warm-up cut it was given
  ServingSummary summary;
  SteadyState steady;
};

// Runs `config` from its num_requests (> 0; at least kSteadyMinStartRequests) upward, doubling
// to the cap, until judge_run says
// stationary; then once more with the warm-up cut as warmup_s when one was found (the same
// events, counted from the cut). A run that stops on a duration or replays a trace at its own
// times cannot grow: it is run once and judged. `progress`, when set, is called as in simulate().
SteadyRun run_to_steady_state(ServingConfig config, const perf::CalibrationProfile& calibration,
                              const SteadyStateRule& rule = {}, const ServingProgressObserver& progress = {});

// Runs `config` as given (an explicit request count) and judges it without growing; with
// `cut_warmup`, a warm-up MSER-5 finds in the first half is cut as in run_to_steady_state (one
// more simulation), else the run reports as it ran.
SteadyRun run_and_judge(ServingConfig config, const perf::CalibrationProfile& calibration,
                        const SteadyStateRule& rule = {}, const ServingProgressObserver& progress = {},
                        bool cut_warmup = true);

// One line for a report: "stationary: warm-up 312 requests (41.2 s) cut, P90 TTFT ±6.1%, P90 TPOT
// ±1.2% over 2,048 requests" or "NOT stationary: <why>".
std::string describe(const SteadyState& s);

}  // namespace tycoon::serving
