// `tycoon run`: plays a scenario headless (optionally with a command log) and prints its summary.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/progress.h"
#include "sim/advisor/advisor.h"
#include "sim/advisor/bots.h"
#include "sim/advisor/persona.h"
#include "sim/core/atomic_file.h"
#include "sim/core/input_error.h"
#include "sim/core/version.h"
#include "sim/game/game.h"
#include "sim/game/rng.h"
#include "sim/game/save.h"
#include "sim/game/summary.h"
#include "sim/serving/run_budget.h"

namespace tycoon::cli {

namespace {

struct RunOptions {
  std::string scenario;
  std::uint64_t seed = 0;
  bool has_seed = false;
  int days = 0;
  std::string commands;
  std::string advisor;
  std::string out_dir;
  std::string save;
  std::string resume;
  bool json = false;
  bool no_counterfactuals = false;
  bool allow_long_run = false;
};

// Longer games run for minutes (the counterfactuals play the game twice more): refused unless
// --allow-long-run.
constexpr int kMaxDaysWithoutOverride = serving::kMaxGameDaysWithoutOverride;

// Output files are replaced, never written through: a symlink planted at summary.json is
// replaced by the file, not followed (sim/core/atomic_file.h).
void write_file(const std::filesystem::path& path, const std::string& text) { core::write_file_atomically(path, text); }

// Output paths are input too: refused (exit 2) before the game runs, not after.
void check_output_paths(const RunOptions& o) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!o.out_dir.empty()) check_output_folder("--out", o.out_dir);
  if (!o.save.empty()) {
    const fs::path save(o.save);
    if (fs::is_directory(save, ec)) throw core::InputError("--save: " + o.save + " is a folder, not a file");
    const fs::path parent = fs::absolute(save, ec).parent_path();
    if (!fs::is_directory(parent, ec)) throw core::InputError("--save: no folder " + parent.string());
    if (::access(parent.c_str(), W_OK) != 0) throw core::InputError("--save: cannot write in " + parent.string());
  }
}

std::string money(double usd) {
  char buf[64];
  double a = std::abs(usd);
  if (a >= 1e6) {
    std::snprintf(buf, sizeof buf, "%s$%.2fM", usd < 0 ? "-" : "", a / 1e6);
  } else {
    std::snprintf(buf, sizeof buf, "%s$%.0f", usd < 0 ? "-" : "", a);
  }
  return buf;
}

void print_human(const game::GameSummary& s, const game::Game& g, double wall_s) {
  std::printf("%s (%s), seed %llu: %.1f days simulated\n", s.scenario_name.c_str(), s.scenario_id.c_str(),
              static_cast<unsigned long long>(s.seed), s.simulated_days);
  std::printf("  cash           %12s   (started with %s)\n", money(s.cash_usd).c_str(),
              money(s.starting_cash_usd).c_str());
  std::printf("  revenue        %12s\n", money(s.revenue_usd).c_str());
  std::printf("  GPU rent       %12s   (%.0f GPU-hours rented, %.0f%% of them serving)\n",
              money(s.gpu_cost_usd).c_str(), s.gpu_hours_rented, 100 * s.serving_share());
  std::printf("  fixed costs    %12s\n", money(s.fixed_cost_usd).c_str());
  std::printf("  profit         %12s\n", money(s.profit_usd).c_str());
  if (s.gross_margin) {
    std::printf("  gross margin   %11.1f%%\n", 100 * *s.gross_margin);
  } else {
    std::printf("  gross margin            —   (no revenue)\n");
  }
  std::printf("  output tokens  %12.4g   requests %.0f of %.0f served, SLO attainment %.1f%%, reputation %.2f\n",
              s.tokens.output_tokens, s.requests_completed, s.requests_offered, 100 * s.slo_attainment, s.reputation);
  if (s.bankrupt) std::printf("  BANKRUPT at hour %lld\n", static_cast<long long>(*s.bankrupt_at_hour));
  std::printf("  goals:\n");
  for (const auto& r : s.goals) {
    std::printf("    [%s] %-38s achieved %-14.6g %5.0f/%.0f\n", r.met ? "x" : " ", r.description.c_str(), r.achieved,
                r.points, r.goal.points);
  }
  std::printf("  score %.0f / %.0f%s — %s, %d star%s\n", s.score.points, s.score.max_points,
              s.score.final ? "" : " so far", s.score.passed ? "passed" : "not passed", s.score.stars,
              s.score.stars == 1 ? "" : "s");
  for (const auto& c : s.score.components) {
    if (c.known) {
      std::printf("    %-10s %5.1f / %-4.0f %s\n", c.name.c_str(), c.points, c.max_points, c.detail.c_str());
    } else {
      std::printf("    %-10s     ? / %-4.0f %s\n", c.name.c_str(), c.max_points, c.detail.c_str());
    }
  }
  if (s.counterfactuals) {
    std::printf("  on the same customers (seed %llu):\n", static_cast<unsigned long long>(s.seed));
    auto row = [&](const game::CounterfactualRun& r) {
      char score[48] = "";
      if (r.score && r.score->final) std::snprintf(score, sizeof score, ", score %.1f", r.score->points);
      std::printf("    %-26s profit %12s, SLO %5.1f%%, %.0f idle GPU-hours%s%s\n", r.name.c_str(),
                  money(r.figures.profit_usd).c_str(), 100 * r.figures.slo_attainment, r.figures.idle_gpu_hours(),
                  r.figures.bankrupt ? ", bankrupt" : "", score);
    };
    row(s.counterfactuals->do_nothing);
    if (s.counterfactuals->reference) row(*s.counterfactuals->reference);
    if (!s.reference_comparison.empty()) std::printf("  %s.\n", s.reference_comparison.c_str());
    if (!s.gap_to_reference.empty()) std::printf("  the gap to the reference (positive: profit you left there):\n");
    for (const auto& gi : s.gap_to_reference) {
      std::printf("    %-24s %12s   %s\n", gi.name.c_str(), money(gi.usd).c_str(), gi.detail.c_str());
    }
    if (!s.what_to_try.empty()) std::printf("  what to try next:\n");
    for (const auto& line : s.what_to_try) std::printf("    - %s\n", line.c_str());
  }
  const auto& news = g.state().news;
  std::size_t from = news.size() > 5 ? news.size() - 5 : 0;
  if (!news.empty()) std::printf("  latest news:\n");
  for (std::size_t i = from; i < news.size(); ++i) {
    std::printf("    h%-5lld %s\n", static_cast<long long>(news[i].at_hour), news[i].text.c_str());
  }
  std::printf("  %lld serving windows simulated, %lld reused; wall time %.2f s\n",
              static_cast<long long>(s.windows_simulated), static_cast<long long>(s.window_cache_hits), wall_s);
}

}  // namespace

CommandRunner add_run_command(CLI::App& app, const GlobalOptions& global) {
  auto o = std::make_shared<RunOptions>();
  auto* sub = app.add_subcommand("run", "Play a scenario headless and print its summary");
  sub->add_option("scenario", o->scenario, "Scenario: a .json file or a name (default, tutorial, 01-thin-margin, ...)");
  sub->add_option("--seed", o->seed, "Random seed (default: the scenario's)")
      ->check(seed_digits())
      ->check(CLI::Range(std::uint64_t{0}, game::kMaxGameSeed))
      ->each([o](const std::string&) { o->has_seed = true; });
  sub->add_option("--days", o->days, "Game days to simulate (default: the scenario's)")
      ->check(CLI::Range(1, game::kMaxScenarioDays));
  sub->add_option("--commands", o->commands, "JSONL command log to play (one command per line, with at_hour)");
  sub->add_option("--out", o->out_dir,
                  "Folder for hourly.csv, deployments.csv, summary.json, the resolved scenario and the command log");
  sub->add_option("--save", o->save, "Save the game at the end to this file");
  sub->add_option("--resume", o->resume, "Continue a saved game (instead of a scenario)");
  std::vector<std::string> advisor_modes = {"on"};
  std::string bots;
  for (auto b : advisor::kBotPolicyNames) {
    advisor_modes.emplace_back(b);
    bots += (bots.empty() ? "" : ", ") + std::string(b);
  }
  sub->add_option("--advisor", o->advisor,
                  "Play with Chien, the advisor: 'on' (decisions from --commands only), or a bot that decides: " +
                      bots + ". Adds the advisor's debrief to the summary")
      ->check(CLI::IsMember(advisor_modes));
  sub->add_flag("--json", o->json, "One JSON object on stdout");
  sub->add_flag("--allow-long-run", o->allow_long_run, "Play games longer than a year (minutes of wall time)");
  sub->add_flag("--no-counterfactuals", o->no_counterfactuals,
                "Skip the two comparison runs at the end (doing nothing; the level's reference strategy): "
                "faster, but the score's profit component stays unknown");
  return [o, &global]() {
    auto t0 = std::chrono::steady_clock::now();
    check_output_paths(*o);
    auto catalog = load_catalog_for(global);
    auto root = global.data_root.empty() ? data::default_data_root() : std::filesystem::path(global.data_root);
    std::unique_ptr<game::Game> g;
    if (!o->resume.empty()) {
      if (!o->scenario.empty()) throw core::InputError("give a scenario or --resume, not both");
      if (o->has_seed) throw core::InputError("--seed cannot change a saved game");
      auto saved = game::load_save(o->resume, catalog);
      if (o->days > 0) game::set_days(saved, o->days);
      g = std::make_unique<game::Game>(std::move(saved.scenario), std::move(saved.state), catalog);
    } else {
      if (o->scenario.empty()) throw core::InputError("run needs a scenario (try: tycoon run default)");
      auto path = game::find_scenario(o->scenario, root);
      game::GameOptions opts;
      if (o->has_seed) opts.seed = o->seed;
      if (o->days > 0) opts.days = o->days;
      g = std::make_unique<game::Game>(game::load_scenario(path, catalog), catalog, opts);
    }
    if (g->scenario().days > kMaxDaysWithoutOverride && !o->allow_long_run) {
      throw core::InputError("a game of " + std::to_string(g->scenario().days) + " days is longer than " +
                             std::to_string(kMaxDaysWithoutOverride) + " (add --allow-long-run to play it anyway)");
    }
    std::vector<game::RefusedCommand> refused;
    std::shared_ptr<advisor::Chien> chien;
    if (!o->advisor.empty() && !g->scenario().advisor_allowed()) {
      std::cerr << "note: " << g->scenario().id << " locks accept_advice, so it has no advisor (--advisor ignored)\n";
    }
    if (!o->advisor.empty()) {
      chien = advisor::default_advisor(catalog, g->scenario(), root);
      g->set_advisor(chien);
    }
    if (chien && o->advisor != "on") {
      if (!o->commands.empty()) throw core::InputError("--advisor " + o->advisor + " plays alone: no --commands");
      auto policy = static_cast<advisor::BotPolicy>(
          std::find(advisor::kBotPolicyNames.begin(), advisor::kBotPolicyNames.end(), o->advisor) -
          advisor::kBotPolicyNames.begin());
      advisor::play_bot(*g, chien, policy);
    } else if (!o->commands.empty()) {
      refused = game::replay(*g, game::read_command_log(o->commands));
      // Refusals are part of the game (no cash, a locked lever), not errors, but a script
      // author must see them: one line each on stderr, and the count in the summary.
      for (const auto& r : refused) {
        std::fprintf(stderr, "tycoon: warning: %s: command %zu refused at hour %lld: %s\n", o->commands.c_str(),
                     r.index + 1, static_cast<long long>(r.at_hour), r.message.c_str());
      }
    } else {
      // Hour by hour (what run_to_end does: step() until finished), with progress when it lasts.
      ProgressMeter meter("run", static_cast<double>(g->state().end_hour - g->state().hour), "game hours");
      const auto first = g->state().hour;
      while (!g->finished()) {
        g->step();
        meter.update(static_cast<double>(g->state().hour - first));
      }
      meter.finish(static_cast<double>(g->state().hour - first));
      if (meter.printed() && !o->no_counterfactuals) {
        std::fprintf(stderr, "run: now the two comparison games (--no-counterfactuals skips them)\n");
      }
    }
    const auto cf = game::end_of_run_counterfactuals(*g, catalog, !o->no_counterfactuals);
    auto summary = game::summarize(*g, cf ? &*cf : nullptr);
    double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    auto j = advisor::run_summary_json(*g, chien != nullptr, refused.size(), cf ? &*cf : nullptr);
    j["wall_time_s"] = wall_s;
    j[core::kWrittenByKey] = core::build_json();  // which build wrote it (like the wall time, not the simulation's)

    if (!o->out_dir.empty()) {
      std::filesystem::path dir(o->out_dir);
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
      if (ec) throw core::InputError("--out: cannot create " + dir.string() + ": " + ec.message());
      write_file(dir / "hourly.csv", game::history_csv(g->state()));
      write_file(dir / "deployments.csv", game::deployments_csv(g->state()));
      write_file(dir / "scenario.resolved.json", game::to_json(g->scenario()).dump(2) + "\n");
      write_file(dir / "commands.jsonl", game::to_jsonl(g->state().log));
      write_file(dir / "summary.json", j.dump(2) + "\n");
    }
    // The save comes last, after the summary: a save that fails (full disk) loses neither the
    // summary nor the previous save, and exits 1 (a failure), not 2 (bad input).
    if (o->json) {
      std::cout << j.dump(2) << "\n";
    } else {
      print_human(summary, *g, wall_s);
      if (chien) {
        auto d = advisor::make_debrief(g->state());
        std::printf(
            "Advisor %s: %zu proposals, %d accepted, %d rejected, %d right calls, %d quality incidents, "
            "%d regressions, checks $%.0f\n",
            std::string(advisor::kPersonaName).c_str(), d.rows.size(), d.num_accepted, d.num_rejected, d.num_right,
            d.num_incidents, d.num_regressions, d.checks_usd);
        for (const auto& row : d.rows)
          std::printf("  %-10s %s: %s\n", row.record.advice_id.c_str(), row.record.title.c_str(), row.verdict.c_str());
      }
    }
    std::fflush(stdout);
    if (!o->save.empty()) {
      try {
        game::save_game(*g, o->save);
      } catch (const game::SaveWriteError& e) {
        std::fprintf(stderr, "tycoon: error: %s\n", e.what());
        return kExitFailure;
      }
    }
    return kExitOk;
  };
}

}  // namespace tycoon::cli
