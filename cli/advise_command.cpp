// `tycoon advise`: plays a scenario to a given day with no decisions, then prints the advisor's
// profile of every deployment, its recipe search (every candidate, with its spread across seeds)
// and its proposals ranked by claimed gain. The top ones are checked (an end-to-end benchmark by
// default, paid for with CheckAdvice like a player would, the game running on until the results
// are in) and show the measured gain next to the claim. The hidden truth is never printed.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/progress.h"
#include "sim/advisor/advisor.h"
#include "sim/advisor/persona.h"
#include "sim/core/input_error.h"
#include "sim/game/game.h"
#include "sim/game/rng.h"
#include "sim/perf/profile_lookup.h"

namespace tycoon::cli {

namespace {

struct AdviseOptions {
  std::string scenario;
  std::uint64_t seed = 0;
  bool has_seed = false;
  double at_day = 0;
  int verify = 3;
  std::string check = "benchmark";
  double search_window_s = 0;  // 0: the advisor's default
  int search_seeds = 0;
  bool json = false;
  bool allow_long_run = false;
};

// Each verified proposal is benchmarked end to end, and each recipe candidate once per search
// seed: beyond these products the command runs for minutes. Refused unless --allow-long-run.
constexpr int kMaxVerifyTimesSeeds = 30;

}  // namespace

CommandRunner add_advise_command(CLI::App& app, const GlobalOptions& global) {
  auto o = std::make_shared<AdviseOptions>();
  auto* sub = app.add_subcommand("advise", "Profile a scenario's deployments and rank the advisor's proposals");
  sub->add_option("scenario", o->scenario, "Scenario: a .json file or a name (default, 01-thin-margin, ...)")
      ->required();
  sub->add_option("--seed", o->seed, "Random seed (default: the scenario's)")
      ->check(seed_digits())
      ->check(CLI::Range(std::uint64_t{0}, std::uint64_t{9'000'000'000'000'000}))
      ->each([o](const std::string&) { o->has_seed = true; });
  sub->add_option("--at-day", o->at_day, "Game day to advise at (default 0: after the first hours of traffic)")
      ->check(finite_range(0.0, 3650.0));
  sub->add_option("--verify", o->verify, "Benchmark the top N proposals end to end (default 3)")
      ->check(CLI::Range(0, 100));
  sub->add_option("--check", o->check, "Check to pay for on the top proposals: component_test, benchmark, canary")
      ->check(CLI::IsMember({"component_test", "benchmark", "canary"}));
  sub->add_option("--search-window", o->search_window_s,
                  "Recipe search: simulated seconds per run (default 120, the game's window)")
      ->check(finite_range(5.0, 3600.0));
  sub->add_option("--search-seeds", o->search_seeds, "Recipe search: paired seeds per candidate (default 3)")
      ->check(CLI::Range(1, 50));
  sub->add_flag("--json", o->json, "One JSON object on stdout");
  sub->add_flag("--allow-long-run", o->allow_long_run,
                "Allow --verify x --search-seeds beyond 30 (each verified proposal re-runs the search's seeds)");
  return [o, &global]() {
    const int seeds = o->search_seeds > 0 ? o->search_seeds : 3;
    if (o->verify * seeds > kMaxVerifyTimesSeeds && !o->allow_long_run) {
      throw core::InputError("--verify " + std::to_string(o->verify) + " x --search-seeds " + std::to_string(seeds) +
                             " is more than " + std::to_string(kMaxVerifyTimesSeeds) +
                             " runs (add --allow-long-run to run it anyway)");
    }
    auto catalog = load_catalog_for(global);
    auto root = global.data_root.empty() ? data::default_data_root() : std::filesystem::path(global.data_root);
    auto scenario = game::load_scenario(game::find_scenario(o->scenario, root), catalog);
    game::GameOptions opts;
    if (o->has_seed) opts.seed = o->seed;
    game::Game g(scenario, catalog, opts);
    advisor::AdvisorOptions ao;
    if (o->search_window_s > 0) ao.search.window_s = o->search_window_s;
    if (o->search_seeds > 0) ao.search.repeats = o->search_seeds;
    auto advisor =
        std::make_shared<advisor::Chien>(catalog, g.scenario(), advisor::load_code_change_catalog_from_root(root), ao);
    g.set_advisor(advisor);
    // Advise at the requested hour, but no earlier than the advisor's first round.
    std::int64_t hour =
        std::max<std::int64_t>(static_cast<std::int64_t>(o->at_day * 24), advisor->options().first_proposal_hour);
    hour = std::min(hour, g.state().end_hour - 1);
    g.advance(hour - g.state().hour);
    const std::int64_t advised_at = g.state().hour;
    // Rank what is pending now by claimed gain and pay for checks of the top ones.
    auto pending_ranked = [&]() {
      std::vector<const advisor::ProposalRecord*> out;
      for (const auto& r : g.state().advisor.records) {
        const auto& inbox = g.state().inbox;
        auto a = std::find_if(inbox.begin(), inbox.end(), [&](const game::Advice& x) { return x.id == r.advice_id; });
        if (a != inbox.end() && a->status == game::AdviceStatus::kPending) out.push_back(&r);
      }
      std::stable_sort(out.begin(), out.end(),
                       [](const auto* a, const auto* b) { return a->claimed_speedup > b->claimed_speedup; });
      return out;
    };
    const auto kind = static_cast<game::AdviceCheckKind>(
        std::find(game::kAdviceCheckKindNames.begin(), game::kAdviceCheckKindNames.end(), o->check) -
        game::kAdviceCheckKindNames.begin());
    std::vector<std::string> refused;
    {
      auto ranked = pending_ranked();
      std::int64_t ready = g.state().hour;
      const std::size_t n = std::min(ranked.size(), static_cast<std::size_t>(std::max(0, o->verify)));
      ProgressMeter meter("advise", static_cast<double>(n), "proposals verified");
      for (std::size_t i = 0; i < n; ++i) {
        auto res = g.apply(game::CheckAdvice{ranked[i]->advice_id, kind});
        if (!res.ok) refused.push_back(ranked[i]->advice_id + ": " + res.message);
        meter.update(static_cast<double>(i + 1));
      }
      meter.finish(static_cast<double>(n));
      for (const auto& a : g.state().inbox) {
        for (const auto& c : a.checks) ready = std::max(ready, c.ready_at_hour);
      }
      // The checks take game time: the game runs on (no decisions) until their results are in.
      ready = std::min(ready, g.state().end_hour - 1);
      if (ready > g.state().hour) g.advance(ready - g.state().hour);
    }
    const auto& st = g.state();
    auto ranked = pending_ranked();
    nlohmann::json profiles = nlohmann::json::array();
    for (const auto& p : advisor->profile_all(st)) {
      auto j = advisor::to_json(p);
      // The recipe search on this deployment's traffic, every candidate shown.
      const auto* d = st.company.find_deployment(p.deployment_id);
      auto result = advisor::search_recipes(
          catalog, g.scenario(), *d, perf::calibration_for(catalog, catalog.accelerator(d->chip)),
          p.offered_requests_per_s_per_replica,
          game::derive_seed(st.seed, "advise-recipe-search|" + std::to_string(p.deployment_id)),
          advisor->options().search);
      nlohmann::json cands = nlohmann::json::array();
      for (const auto& c : result.evaluated) {
        cands.push_back({{"change", c.move.label},
                         {"goodput_tok_per_s_per_gpu", c.goodput_per_gpu},
                         {"gain", c.gain},
                         {"gain_stddev", c.gain_stddev},
                         {"gain_low", c.gain_low},
                         {"seeds", c.seeds}});
      }
      j["recipe_search"] = {
          {"baseline_goodput_tok_per_s_per_gpu", result.baseline_goodput_per_gpu},
          {"runs", result.num_runs},
          {"finalists", advisor->options().search.finalists},
          {"skipped", result.skipped},
          {"seeds_per_candidate", result.repeats},
          {"window_s", advisor->options().search.window_s},
          {"candidates", cands},
          {"leader", result.leader ? nlohmann::json(result.leader->move.label) : nlohmann::json(nullptr)},
          {"best", result.best ? nlohmann::json(result.best->move.label) : nlohmann::json(nullptr)},
          {"confirmed_gain", result.best ? nlohmann::json(result.best->gain) : nlohmann::json(nullptr)}};
      profiles.push_back(j);
    }
    nlohmann::json proposals = nlohmann::json::array();
    double checks_usd = 0;
    for (std::size_t i = 0; i < ranked.size(); ++i) {
      const auto* a = &*std::find_if(st.inbox.begin(), st.inbox.end(),
                                     [&](const game::Advice& x) { return x.id == ranked[i]->advice_id; });
      auto j = advisor::player_view_json(*ranked[i], *a, st.hour);
      j["rank"] = i + 1;
      proposals.push_back(j);
    }
    for (const auto& a : st.inbox) {
      for (const auto& c : a.checks) checks_usd += c.cost_usd;
    }
    nlohmann::json out = {{"advisor", advisor::kPersonaName},
                          {"motto", advisor::kPersonaMotto},
                          {"scenario", st.scenario_id},
                          {"seed", st.seed},
                          {"advised_at_hour", advised_at},
                          {"hour", st.hour},
                          {"profiles", profiles},
                          {"proposals", proposals},
                          {"checks_refused", refused},
                          {"checks_usd", checks_usd}};
    if (o->json) {
      std::cout << out.dump(2) << "\n";
      return kExitOk;
    }
    std::printf("%s, %s — %s seed %llu, hour %lld\n", std::string(advisor::kPersonaName).c_str(),
                std::string(advisor::kPersonaRole).c_str(), st.scenario_id.c_str(),
                static_cast<unsigned long long>(st.seed), static_cast<long long>(st.hour));
    for (const auto& p : profiles) {
      std::printf("  deployment #%lld %s on %s (%s), %s traffic, %.2f req/s per replica:\n",
                  static_cast<long long>(p["deployment_id"].get<std::int64_t>()), p["model"].get<std::string>().c_str(),
                  p["chip"].get<std::string>().c_str(), p["recipe"].get<std::string>().c_str(),
                  p["workload"].get<std::string>().c_str(), p["offered_requests_per_s_per_replica"].get<double>());
      for (const auto& s : p["time_by_op_class"]) {
        std::printf("    %-18s %5.1f%%\n", s["op_class"].get<std::string>().c_str(),
                    100 * s["time_share"].get<double>());
      }
      const auto& rs = p["recipe_search"];
      std::printf(
          "    recipe search (%d runs, %d paired seeds per candidate, goodput now %.0f tok/s/GPU within SLO):\n",
          rs["runs"].get<int>(), rs["seeds_per_candidate"].get<int>(),
          rs["baseline_goodput_tok_per_s_per_gpu"].get<double>());
      for (const auto& c : rs["candidates"]) {
        std::printf("      %-50s x%.3f +/- %.3f\n", c["change"].get<std::string>().c_str(), c["gain"].get<double>(),
                    c["gain_stddev"].get<double>());
      }
    }
    std::printf("  proposals at hour %lld (by claimed gain):\n", static_cast<long long>(st.hour));
    for (const auto& p : proposals) {
      std::string measured = "not checked";
      for (const auto& c : p["checks"]) {
        measured = c.contains("measured_speedup") ? c["kind"].get<std::string>() + " measured x" +
                                                        format_fixed(c["measured_speedup"].get<double>(), 3) +
                                                        (c["quality_flag"].get<bool>() ? " QUALITY FLAG" : "") +
                                                        (c["rejection_flag"].get<bool>() ? " REFUSALS" : "")
                                                  : c["kind"].get<std::string>() + " running";
      }
      std::printf("    %2d. %-10s claimed x%.3f, %s — %s\n", p["rank"].get<int>(), p["id"].get<std::string>().c_str(),
                  p["claimed_speedup"].get<double>(), measured.c_str(), p["title"].get<std::string>().c_str());
    }
    for (const auto& r : refused) std::printf("  check refused: %s\n", r.c_str());
    std::printf("  checks cost $%.0f\n", checks_usd);
    return kExitOk;
  };
}

}  // namespace tycoon::cli
