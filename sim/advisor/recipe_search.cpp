#include "sim/advisor/recipe_search.h"

#include <stdexcept>

#include "sim/game/rng.h"
#include "sim/perf/memory_plan.h"

namespace tycoon::advisor {

namespace {

// Runs and fits: the game would accept it (CommandApplier::check_runs).
bool runs(const data::Catalog& catalog, const game::DeploymentState& d, const game::RecipeSettings& r) {
  try {
    auto pd = game::to_perf_deployment(catalog, d.model, d.chip, r, r.spec_draft_tokens > 0 ? 1.5 : 1.0);
    return perf::plan_memory(pd, r.max_num_batched_tokens, r.max_num_seqs).fits;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

std::vector<std::pair<game::RecipeOverrides, std::string>> recipe_neighbours(const data::Catalog& catalog,
                                                                             const game::DeploymentState& d) {
  std::vector<std::pair<game::RecipeOverrides, std::string>> out;
  const auto& r = d.recipe;
  auto add = [&](game::RecipeOverrides o, std::string label) {
    if (runs(catalog, d, game::apply_overrides(r, o))) out.emplace_back(std::move(o), std::move(label));
  };
  for (int k : {0, 1, 2, 3, 5, 7}) {
    if (k == r.spec_draft_tokens) continue;
    game::RecipeOverrides o;
    o.spec_draft_tokens = k;
    add(o, "spec_draft_tokens " + std::to_string(k));
  }
  for (int t : {2048, 4096, 8192, 16384}) {
    if (t == r.max_num_batched_tokens) continue;
    game::RecipeOverrides o;
    o.max_num_batched_tokens = t;
    add(o, "max_num_batched_tokens " + std::to_string(t) + " (chunked-prefill budget)");
  }
  {
    game::RecipeOverrides o;
    o.prefix_caching = !r.prefix_caching;
    add(o, std::string("prefix_caching ") + (r.prefix_caching ? "off" : "on"));
  }
  for (Precision p : {Precision::kBf16, Precision::kFp8, Precision::kFp4}) {
    if (p == r.precision || !catalog.accelerator(d.chip).supports(p)) continue;
    game::RecipeOverrides o;
    o.precision = p;
    add(o, "precision " + std::string(to_string(p)));
  }
  for (const auto& e : catalog.engines) {
    if (e.id == r.engine || e.id == "torch-reference") continue;
    game::RecipeOverrides o;
    o.engine = e.id;
    add(o, "engine " + e.id);
  }
  return out;
}

RecipeSearchResult search_recipes(const data::Catalog& catalog, const game::Scenario& scenario,
                                  const game::DeploymentState& d, const perf::CalibrationProfile& calibration,
                                  double rate, boost::random::mt19937_64& rng, const RecipeSearchOptions& options) {
  RecipeSearchResult out;
  const auto& slo = scenario.find_segment(d.segment)->slo;
  {
    DeploymentSetup base(catalog, scenario, d, d.recipe, calibration, rate);
    out.baseline_goodput_per_gpu = goodput_per_gpu(
        serving::simulate(base.open_loop(options.window_s, rng(), unit_op_times()), base.calibration()), slo);
    ++out.num_runs;
  }
  for (auto& [change, label] : recipe_neighbours(catalog, d)) {
    RecipeCandidate c{change, label, 0, 1};
    try {
      DeploymentSetup s(catalog, scenario, d, game::apply_overrides(d.recipe, change), calibration, rate);
      c.goodput_per_gpu = goodput_per_gpu(
          serving::simulate(s.open_loop(options.window_s, rng(), unit_op_times()), s.calibration()), slo);
      ++out.num_runs;
    } catch (const std::exception&) {
      continue;
    }
    c.gain = out.baseline_goodput_per_gpu > 0 ? c.goodput_per_gpu / out.baseline_goodput_per_gpu : 1.0;
    out.evaluated.push_back(c);
    if (c.gain >= 1.0 + options.min_gain && (!out.best || c.gain > out.best->gain)) out.best = c;
  }
  return out;
}

double paired_recipe_gain(const data::Catalog& catalog, const game::Scenario& scenario, const game::DeploymentState& d,
                          const perf::CalibrationProfile& calibration, double rate, const game::RecipeOverrides& change,
                          double window_s, std::uint64_t seed) {
  const auto& slo = scenario.find_segment(d.segment)->slo;
  DeploymentSetup base(catalog, scenario, d, d.recipe, calibration, rate);
  DeploymentSetup cand(catalog, scenario, d, game::apply_overrides(d.recipe, change), calibration, rate);
  double b =
      goodput_per_gpu(serving::simulate(base.open_loop(window_s, seed, unit_op_times()), base.calibration()), slo);
  double c =
      goodput_per_gpu(serving::simulate(cand.open_loop(window_s, seed, unit_op_times()), cand.calibration()), slo);
  return b > 0 ? c / b : 1.0;
}

}  // namespace tycoon::advisor
