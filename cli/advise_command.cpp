// `tycoon advise`: plays a scenario to a given day with no decisions, then prints the advisor's
// profile of every deployment and its proposals ranked by claimed gain; the top ones are checked
// with an end-to-end benchmark and show the measured gain next to the claim.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/common.h"
#include "sim/advisor/advisor.h"
#include "sim/advisor/persona.h"
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
  bool json = false;
};

}  // namespace

CommandRunner add_advise_command(CLI::App& app, const GlobalOptions& global) {
  auto o = std::make_shared<AdviseOptions>();
  auto* sub = app.add_subcommand("advise", "Profile a scenario's deployments and rank the advisor's proposals");
  sub->add_option("scenario", o->scenario, "Scenario: a .json file or a name (default, 01-thin-margin, ...)")
      ->required();
  sub->add_option("--seed", o->seed, "Random seed (default: the scenario's)")
      ->check(CLI::Range(std::uint64_t{0}, std::uint64_t{9'000'000'000'000'000}))
      ->each([o](const std::string&) { o->has_seed = true; });
  sub->add_option("--at-day", o->at_day, "Game day to advise at (default 0: after the first hours of traffic)")
      ->check(CLI::Range(0.0, 3650.0));
  sub->add_option("--verify", o->verify, "Benchmark the top N proposals end to end (default 3)")
      ->check(CLI::Range(0, 100));
  sub->add_flag("--json", o->json, "One JSON object on stdout");
  return [o, &global]() {
    auto catalog = load_catalog_for(global);
    auto root = global.data_root.empty() ? data::default_data_root() : std::filesystem::path(global.data_root);
    auto scenario = game::load_scenario(game::find_scenario(o->scenario, root), catalog);
    game::GameOptions opts;
    if (o->has_seed) opts.seed = o->seed;
    game::Game g(scenario, catalog, opts);
    auto advisor =
        std::make_shared<advisor::Chien>(catalog, g.scenario(), advisor::load_code_change_catalog_from_root(root));
    g.set_advisor(advisor);
    // Advise at the requested hour, but no earlier than the advisor's first round.
    std::int64_t hour =
        std::max<std::int64_t>(static_cast<std::int64_t>(o->at_day * 24), advisor->options().first_proposal_hour);
    hour = std::min(hour, g.state().end_hour - 1);
    g.advance(hour - g.state().hour);
    const auto& st = g.state();
    std::vector<const advisor::ProposalRecord*> ranked;
    for (const auto& r : advisor->records()) {
      auto a =
          std::find_if(st.inbox.begin(), st.inbox.end(), [&](const game::Advice& x) { return x.id == r.advice_id; });
      if (a != st.inbox.end() && a->status == game::AdviceStatus::kPending) ranked.push_back(&r);
    }
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto* a, const auto* b) { return a->claimed_speedup > b->claimed_speedup; });
    for (std::size_t i = 0; i < ranked.size() && static_cast<int>(i) < o->verify; ++i) {
      advisor->check(st, ranked[i]->advice_id, advisor::CheckKind::kBenchmark);
    }
    nlohmann::json profiles = nlohmann::json::array();
    boost::random::mt19937_64 search_rng(game::derive_seed(st.seed, "advise-recipe-search"));
    for (const auto& p : advisor->profile_all(st)) {
      auto j = advisor::to_json(p);
      // The recipe search on this deployment's traffic, every candidate shown.
      const auto* d = st.company.find_deployment(p.deployment_id);
      auto result = advisor::search_recipes(
          catalog, g.scenario(), *d, perf::calibration_for(catalog, catalog.accelerator(d->chip)),
          p.offered_requests_per_s_per_replica, search_rng, advisor->options().search);
      nlohmann::json cands = nlohmann::json::array();
      for (const auto& c : result.evaluated) {
        cands.push_back({{"change", c.label}, {"goodput_tok_per_s_per_gpu", c.goodput_per_gpu}, {"gain", c.gain}});
      }
      j["recipe_search"] = {{"baseline_goodput_tok_per_s_per_gpu", result.baseline_goodput_per_gpu},
                            {"runs", result.num_runs},
                            {"candidates", cands},
                            {"best", result.best ? nlohmann::json(result.best->label) : nlohmann::json(nullptr)}};
      profiles.push_back(j);
    }
    nlohmann::json proposals = nlohmann::json::array();
    for (std::size_t i = 0; i < ranked.size(); ++i) {
      auto j = advisor::to_json(*ranked[i], /*reveal_truth=*/false);
      j["rank"] = i + 1;
      if (!ranked[i]->checks.empty()) j["measured_speedup"] = ranked[i]->checks.back().measured_speedup;
      proposals.push_back(j);
    }
    nlohmann::json out = {{"advisor", advisor::kPersonaName},
                          {"motto", advisor::kPersonaMotto},
                          {"scenario", st.scenario_id},
                          {"seed", st.seed},
                          {"hour", st.hour},
                          {"profiles", profiles},
                          {"proposals", proposals},
                          {"checks_usd", advisor->check_spend_usd()}};
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
      std::printf("    recipe search (%d runs, goodput now %.0f tok/s/GPU within SLO):\n", rs["runs"].get<int>(),
                  rs["baseline_goodput_tok_per_s_per_gpu"].get<double>());
      for (const auto& c : rs["candidates"]) {
        std::printf("      %-50s x%.3f\n", c["change"].get<std::string>().c_str(), c["gain"].get<double>());
      }
    }
    std::printf("  proposals (by claimed gain):\n");
    for (const auto& p : proposals) {
      std::string measured = p.contains("measured_speedup")
                                 ? "measured x" + format_fixed(p["measured_speedup"].get<double>(), 3)
                                 : "not checked";
      std::printf("    %2d. %-10s claimed x%.3f, %s — %s\n", p["rank"].get<int>(), p["id"].get<std::string>().c_str(),
                  p["claimed_speedup"].get<double>(), measured.c_str(), p["title"].get<std::string>().c_str());
    }
    std::printf("  checks cost $%.0f\n", advisor->check_spend_usd());
    return kExitOk;
  };
}

}  // namespace tycoon::cli
