// `tycoon advise`: the flags as an advisor::AdviseRequest, the session (advisor::advise, which
// plays the scenario, profiles, searches, ranks and checks) and its report, as JSON or text.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/progress.h"
#include "sim/advisor/advise.h"
#include "sim/advisor/persona.h"
#include "sim/advisor/recipe_search.h"
#include "sim/core/input_error.h"
#include "sim/game/rng.h"
#include "sim/game/scenario.h"
#include "sim/serving/run_budget.h"

namespace tycoon::cli {

namespace {

struct AdviseOptions {
  std::string scenario;
  std::uint64_t seed = 0;
  bool has_seed = false;
  double at_day = 0;
  int verify = advisor::AdviseRequest{}.verify;
  std::string check{game::kAdviceCheckKindNames[static_cast<std::size_t>(advisor::AdviseRequest{}.check)]};
  double search_window_s = 0;  // 0: the advisor's default
  int search_seeds = 0;
  bool json = false;
  bool allow_long_run = false;
};

// Each verified proposal is benchmarked end to end, and each recipe candidate once per search
// seed: beyond these products the command runs for minutes. Refused unless --allow-long-run.
using serving::kMaxVerifyTimesSeeds;

void add_options(CLI::App& sub, const std::shared_ptr<AdviseOptions>& o) {
  sub.add_option("scenario", o->scenario, "Scenario: a .json file or a name (default, 01-thin-margin, ...)")
      ->required();
  sub.add_option("--seed", o->seed, "Random seed (default: the scenario's)")
      ->check(seed_digits())
      ->check(CLI::Range(std::uint64_t{0}, game::kMaxGameSeed))
      ->each([o](const std::string&) { o->has_seed = true; });
  sub.add_option("--at-day", o->at_day, "Game day to advise at (default 0: after the first hours of traffic)")
      ->check(finite_range(0.0, static_cast<double>(game::kMaxScenarioDays)));
  sub.add_option("--verify", o->verify, "Check the top N proposals end to end")
      ->capture_default_str()
      ->check(CLI::Range(0, 100));
  sub.add_option("--check", o->check, "Check to pay for on the top proposals")
      ->capture_default_str()
      ->check(one_of(game::kAdviceCheckKindNames));
  const advisor::RecipeSearchOptions search_defaults;
  sub.add_option("--search-window", o->search_window_s,
                 "Recipe search: simulated seconds per run (default " +
                     std::to_string(static_cast<int>(search_defaults.window_s)) + ", the game's window)")
      ->check(finite_range(5.0, 3600.0));
  sub.add_option("--search-seeds", o->search_seeds,
                 "Recipe search: paired seeds per candidate (default " + std::to_string(search_defaults.repeats) + ")")
      ->check(CLI::Range(1, 50));
  sub.add_flag("--json", o->json, "One JSON object on stdout");
  sub.add_flag("--allow-long-run", o->allow_long_run,
               "Allow --verify x --search-seeds beyond 30 (each verified proposal re-runs the search's seeds)");
}

// The flags as the session's request; refuses a run past kMaxVerifyTimesSeeds without
// --allow-long-run.
advisor::AdviseRequest to_request(const AdviseOptions& o) {
  advisor::AdviseRequest r;
  if (o.has_seed) r.seed = o.seed;
  r.at_day = o.at_day;
  r.verify = o.verify;
  r.check = static_cast<game::AdviceCheckKind>(
      std::find(game::kAdviceCheckKindNames.begin(), game::kAdviceCheckKindNames.end(), o.check) -
      game::kAdviceCheckKindNames.begin());
  if (o.search_window_s > 0) r.options.search.window_s = o.search_window_s;
  if (o.search_seeds > 0) r.options.search.repeats = o.search_seeds;
  const int seeds = r.options.search.repeats;
  if (o.verify * seeds > kMaxVerifyTimesSeeds && !o.allow_long_run) {
    throw core::InputError("--verify " + std::to_string(o.verify) + " x --search-seeds " + std::to_string(seeds) +
                           " is more than " + std::to_string(kMaxVerifyTimesSeeds) +
                           " runs (add --allow-long-run to run it anyway)");
  }
  return r;
}

// One proposal's evidence as the report prints it: the check that decides (game::deciding_check,
// the proposal's "deciding_check") with its verdict, estimate and 95% interval, never its point
// estimate alone; else the newest check still running; else none.
std::string measured_text(const nlohmann::json& proposal) {
  const auto& checks = proposal["checks"];
  if (proposal["deciding_check"].is_null()) {
    if (checks.empty()) return "not checked";
    const auto& running = checks.back();
    return running["kind"].get<std::string>() + " running (ready at hour " +
           std::to_string(running["ready_at_hour"].get<std::int64_t>()) + ")";
  }
  const auto& c = checks.at(proposal["deciding_check"].get<std::size_t>());
  std::string verdict = c["verdict"].get<std::string>();
  std::replace(verdict.begin(), verdict.end(), '_', ' ');
  return c["kind"].get<std::string>() + ": " + verdict + ", x" + format_fixed(c["measured_speedup"].get<double>(), 3) +
         " (95% x" + format_fixed(c["interval_low"].get<double>(), 3) + "-x" +
         format_fixed(c["interval_high"].get<double>(), 3) + ")" +
         (c["quality_flag"].get<bool>() ? " QUALITY FLAG" : "") + (c["rejection_flag"].get<bool>() ? " REFUSALS" : "");
}

// The report as text: each deployment's profile and recipe search, the ranked proposals with what
// their checks measured, the refusals and what the checks cost.
void print_advice(const nlohmann::json& out) {
  std::printf("%s, %s — %s seed %llu, hour %lld\n", std::string(advisor::kPersonaName).c_str(),
              std::string(advisor::kPersonaRole).c_str(), out["scenario"].get<std::string>().c_str(),
              static_cast<unsigned long long>(out["seed"].get<std::uint64_t>()),
              static_cast<long long>(out["hour"].get<std::int64_t>()));
  for (const auto& p : out["profiles"]) {
    std::printf("  deployment #%lld %s on %s (%s), %s traffic, %.2f req/s per replica:\n",
                static_cast<long long>(p["deployment_id"].get<std::int64_t>()), p["model"].get<std::string>().c_str(),
                p["chip"].get<std::string>().c_str(), p["recipe"].get<std::string>().c_str(),
                p["workload"].get<std::string>().c_str(), p["offered_requests_per_s_per_replica"].get<double>());
    for (const auto& s : p["time_by_op_class"]) {
      std::printf("    %-18s %5.1f%%\n", s["op_class"].get<std::string>().c_str(), 100 * s["time_share"].get<double>());
    }
    const auto& rs = p["recipe_search"];
    std::printf("    recipe search (%d runs, %d paired seeds per candidate, goodput now %.0f tok/s/GPU within SLO):\n",
                rs["runs"].get<int>(), rs["seeds_per_candidate"].get<int>(),
                rs["baseline_goodput_tok_per_s_per_gpu"].get<double>());
    for (const auto& c : rs["candidates"]) {
      std::printf("      %-50s x%.3f +/- %.3f\n", c["change"].get<std::string>().c_str(), c["gain"].get<double>(),
                  c["gain_stddev"].get<double>());
    }
  }
  std::printf("  proposals at hour %lld (by claimed gain):\n", static_cast<long long>(out["hour"].get<std::int64_t>()));
  for (const auto& p : out["proposals"]) {
    std::printf("    %2d. %-10s claimed x%.3f, %s — %s\n", p["rank"].get<int>(), p["id"].get<std::string>().c_str(),
                p["claimed_speedup"].get<double>(), measured_text(p).c_str(), p["title"].get<std::string>().c_str());
  }
  for (const auto& r : out["checks_refused"]) std::printf("  check refused: %s\n", r.get<std::string>().c_str());
  std::printf("  checks cost $%.0f\n", out["checks_usd"].get<double>());
}

}  // namespace

CommandRunner add_advise_command(CLI::App& app, const GlobalOptions& global) {
  auto o = std::make_shared<AdviseOptions>();
  auto* sub = app.add_subcommand("advise", "Profile a scenario's deployments and rank the advisor's proposals");
  add_options(*sub, o);
  return [o, &global]() {
    const auto request = to_request(*o);
    auto catalog = load_catalog_for(global);
    auto root = global.data_root.empty() ? data::default_data_root() : std::filesystem::path(global.data_root);
    auto scenario = game::load_scenario(game::find_scenario(o->scenario, root), catalog);
    std::optional<ProgressMeter> meter;
    const auto report = advisor::advise(catalog, scenario, advisor::load_code_change_catalog_from_root(root), request,
                                        [&meter](std::size_t done, std::size_t total) {
                                          if (!meter)
                                            meter.emplace("advise", static_cast<double>(total), "proposals verified");
                                          meter->update(static_cast<double>(done));
                                          if (done == total) meter->finish(static_cast<double>(total));
                                        });
    const auto out = advisor::to_json(report);
    if (o->json) {
      std::cout << out.dump(2) << "\n";
    } else {
      print_advice(out);
    }
    return kExitOk;
  };
}

}  // namespace tycoon::cli
