// Recipe proposals: searches the recipe space around a deployment's recipe (draft tokens, max
// batched tokens / chunked-prefill budget, prefix caching, precision, engine) by running the
// serving simulator on the deployment's own traffic, each candidate under a different seed (the
// run-to-run noise a real search sees).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <boost/random/mersenne_twister.hpp>

#include "sim/advisor/deployment_setup.h"

namespace tycoon::advisor {

struct RecipeSearchOptions {
  double window_s = 40;    // simulated seconds of traffic per candidate (after warmup)
  double min_gain = 0.04;  // propose only gains beyond the search's own noise
};

struct RecipeCandidate {
  game::RecipeOverrides change;
  std::string label;           // "spec_draft_tokens 3"
  double goodput_per_gpu = 0;  // output tok/s/GPU within the SLO, as measured in the search
  double gain = 1;             // vs the baseline run
};

struct RecipeSearchResult {
  double baseline_goodput_per_gpu = 0;
  std::vector<RecipeCandidate> evaluated;  // in search order
  std::optional<RecipeCandidate> best;     // set when it beats the baseline by min_gain
  int num_runs = 0;
};

// Candidate one-field changes of `d`'s recipe that run and fit on its chip.
std::vector<std::pair<game::RecipeOverrides, std::string>> recipe_neighbours(const data::Catalog& catalog,
                                                                             const game::DeploymentState& d);

RecipeSearchResult search_recipes(const data::Catalog& catalog, const game::Scenario& scenario,
                                  const game::DeploymentState& d, const perf::CalibrationProfile& calibration,
                                  double rate_per_s_per_replica, boost::random::mt19937_64& rng,
                                  const RecipeSearchOptions& options = {});

// The gain of `change` on `d`'s traffic, paired (same seed, longer window): the truth the
// debrief compares a recipe claim with.
double paired_recipe_gain(const data::Catalog& catalog, const game::Scenario& scenario, const game::DeploymentState& d,
                          const perf::CalibrationProfile& calibration, double rate_per_s_per_replica,
                          const game::RecipeOverrides& change, double window_s, std::uint64_t seed);

}  // namespace tycoon::advisor
