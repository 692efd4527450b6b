// Recipe proposals: searches the recipe space around a deployment's recipe (draft tokens, max
// batched tokens / chunked-prefill budget, max running sequences, prefix caching, weight and KV
// precision, tensor parallelism vs replicas on the same GPUs, engine) by running the serving
// simulator on the deployment's own traffic at its own load.
//
// Why it is paired and repeated: one replica's goodput over a 40 s window moves by tens of
// percent from seed to seed (a few hundred Poisson arrivals; at underload throughput *is* the
// arrival count). Comparing each candidate on a different seed reported arrival noise as gains
// ("prefix caching off x1.35"). Now every candidate runs on the same `repeats` seeds as the
// baseline (common random numbers: the same arrivals and request sizes), the gain is the mean of
// the per-seed ratios, and its spread across seeds is reported; a candidate is proposed only when
// its gain clears `min_gain` and its lower bound (mean − t·standard error) clears 1; the leader is
// then measured again on fresh seeds (the best of many noisy estimates is biased up), and that
// measurement is the claim.
//
// Why it screens first: every candidate on every seed cost ~54 simulations per search, seconds of
// a game hour. So every candidate runs on the first seed only; the few best (`finalists`) run on
// the other seeds, and only those can be proposed — successive halving, the statistics of the
// finalists unchanged. Seeds derive from a key (the deployment's recipe and the
// load bucket), and each run's goodput is kept in a memo: the next day's search at the same load
// reuses every run instead of drawing new seeds.
#pragma once

#include <map>

#include <optional>
#include <string>
#include <vector>

#include <boost/random/mersenne_twister.hpp>

#include "sim/advisor/deployment_setup.h"

namespace tycoon::advisor {

struct RecipeSearchOptions {
  // Simulated seconds of arrivals per run after a 30 s warmup: the game's own sample window
  // (ServingSettings::window_s). Shorter windows are biased, not only noisy: an overloaded recipe
  // (fp8 weights leaving GPT-OSS too little KV cache) builds its queue over minutes, and looked
  // x0.96 on 40 s windows against x0.13 on 120 s and x0.03 on 300 s.
  double window_s = 120;
  int repeats = 3;         // seeds per candidate, shared with the baseline
  double min_gain = 0.03;  // propose only gains of at least this much, whose one-sided 95% lower
                           // bound (Student's t over the seeds) is still above 1
  int finalists = 3;       // candidates measured on all `repeats` seeds after the one-seed screen
};

// Goodput of runs already simulated, by everything that determines it (recipe, replicas, load,
// window, seed): a pure memo, so reusing an entry changes no result.
struct RunGoodput {
  double goodput_per_gpu = 0;
  std::int64_t peak_running_seqs = 0;  // most sequences a replica ran at once
  int max_num_seqs = 0;                // the running limit the replicas ran with
};
using GoodputMemo = std::map<std::string, RunGoodput>;

// One-sided 95% Student's t critical value for `df` degrees of freedom.
double t_critical_95(int df);

// One candidate: a recipe change, plus the replica count that keeps the GPU count when it changes
// tensor parallelism.
struct RecipeMove {
  serving::ServingOverrides change;
  std::optional<int> replicas;
  std::string label;  // "spec_draft_tokens 3", "tensor_parallel 2 x 4 replicas"
};

struct RecipeCandidate {
  RecipeMove move;
  double goodput_per_gpu = 0;  // mean over the seeds: output tok/s/GPU within the SLO
  double gain = 1;             // mean over the seeds of candidate / baseline (paired)
  double gain_stddev = 0;      // sample standard deviation of the per-seed ratios
  double gain_low = 1;         // gain − t(repeats − 1) · stddev / sqrt(repeats); 0 when screened out
  int seeds = 0;               // seeds it ran on: 1 if the screen dropped it, else `repeats`
};

struct RecipeSearchResult {
  double baseline_goodput_per_gpu = 0;     // mean over the seeds
  std::vector<RecipeCandidate> evaluated;  // in search order
  std::optional<RecipeCandidate> leader;   // the best gain that passes both bars in the search
  std::optional<RecipeCandidate> best;     // the leader re-measured on fresh seeds, if it still passes
  // Candidates not run because they provably cannot gain: raising max_num_seqs above a limit the
  // baseline never reached (admission never stopped at it; the KV cache only shrinks).
  std::vector<std::string> skipped;
  int num_runs = 0;    // simulations this search needed
  int num_reused = 0;  // of which answered by the memo
  int repeats = 0;
};

// Candidate changes of `d`'s recipe (one lever each; turning drafting on for an engine that caps
// its running requests when drafting also sets the limit) that run and fit on its chip.
std::vector<RecipeMove> recipe_neighbours(const data::Catalog& catalog, const game::DeploymentState& d);

// The per-replica load a move's replicas see when the deployment's traffic is spread over the
// same GPUs (tensor parallelism changes the replica count).
double move_rate_per_replica(const game::DeploymentState& d, const RecipeMove& m, double rate_per_s_per_replica);

// `seed`: every seed of the search derives from it (the advisor derives it from the deployment's
// recipe and load bucket). `memo`: runs already simulated (may be null).
RecipeSearchResult search_recipes(const data::Catalog& catalog, const game::Scenario& scenario,
                                  const game::DeploymentState& d, const perf::CalibrationProfile& calibration,
                                  double rate_per_s_per_replica, std::uint64_t seed,
                                  const RecipeSearchOptions& options = {}, GoodputMemo* memo = nullptr);

// The gain of `move` on `d`'s traffic: the mean paired ratio over `seeds` seeds derived from
// `seed`, each `window_s` long. With a long window and several seeds, the truth the debrief
// compares a recipe claim with (and, with one short seed plus noise, what a benchmark measures).
double paired_recipe_gain(const data::Catalog& catalog, const game::Scenario& scenario, const game::DeploymentState& d,
                          const perf::CalibrationProfile& calibration, double rate_per_s_per_replica,
                          const RecipeMove& move, double window_s, std::uint64_t seed, int seeds = 1,
                          GoodputMemo* memo = nullptr);

}  // namespace tycoon::advisor
