#include "sim/game/soak.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>

#include "sim/core/rng.h"
#include "sim/game/command.h"
#include "sim/game/game.h"
#include "sim/game/save.h"
#include "sim/game/scenario.h"
#include "sim/game/serving_window.h"
#include "sim/perf/deployment.h"
#include "sim/perf/profile_lookup.h"
#include "sim/serving/deployment_plan.h"
#include "sim/serving/simulation.h"

namespace tycoon::game {

namespace {

namespace fs = std::filesystem;

// Money is checked to the cent; counts of requests and tokens (expected values, so doubles) to a
// relative 1e-9 — far above the rounding of summing ~10^4 hourly terms, far below a lost request.
constexpr double kCentUsd = 0.01;
constexpr double kRelativeCount = 1e-9;

bool close_count(double a, double b) {
  return std::abs(a - b) <= kRelativeCount * std::max({1.0, std::abs(a), std::abs(b)});
}

struct Run {
  std::int64_t index;
  std::uint64_t seed;
  SoakReport& report;
  void violation(const std::string& what) const {
    report.violations.push_back("run " + std::to_string(index) + " (seed " + std::to_string(seed) + "): " + what);
  }
  void check(bool ok, const std::string& what) const {
    ++report.invariant_checks;
    if (!ok) violation(what);
  }
};

std::string num(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

void check_game(const Run& run, const GameState& s, const Scenario& sc, const std::string& when) {
  const auto problems = conservation_violations(s, sc);
  run.report.invariant_checks += kNumConservationChecks;
  for (const auto& p : problems) run.violation(when + ": " + p);
}

// One random command line: mostly well-formed with plausible values, some with hostile values,
// some not a command at all.
std::string random_command(core::RngStream& r, const data::Catalog& catalog, const Scenario& sc, std::int64_t hour) {
  auto pick = [&](const std::vector<std::string>& v) {
    return v[static_cast<std::size_t>(r.uniform_int(0, static_cast<std::int64_t>(v.size()) - 1))];
  };
  // The scenario's own chips and models come up most (commands that can apply), every catalog
  // id sometimes (locked or not offered), and ids that do not exist.
  std::vector<std::string> chips{"h999", ""};
  for (const auto& a : catalog.accelerators) chips.push_back(a.id);
  for (int k = 0; k < 4; ++k) {
    for (const auto& o : sc.offers) chips.push_back(o.offer.chip);
  }
  std::vector<std::string> models{"no-such-model"};
  for (const auto& m : catalog.models) models.push_back(m.id);
  for (int k = 0; k < 4; ++k) {
    for (const auto& seg : sc.segments) models.push_back(seg.model);
  }
  const std::vector<std::string> counts{"1",  "1", "1",  "2",      "2",          "4",   "8",
                                        "16", "0", "-3", "100000", "2147483648", "1.5", "\"8\""};
  const std::vector<std::string> ids{"1", "1", "1", "2", "2", "3", "0", "-1", "999999999999", "\"1\""};
  const std::vector<std::string> prices{"0.1", "0.5", "2", "10", "0", "-1", "1e300", "\"free\""};
  const std::string head = "{\"at_hour\": " + std::to_string(hour) + ", \"type\": ";
  switch (r.uniform_int(0, 11)) {
    case 0:
    case 1:
      return head + "\"rent_gpus\", \"chip\": \"" + pick(chips) + "\", \"contract\": \"" +
             pick({"on_demand", "on_demand", "on_demand", "reserved", "spot", "weekly"}) +
             "\", \"num_gpus\": " + pick(counts) + "}";
    case 2:
      return head + "\"release_gpus\", \"contract_id\": " + pick(ids) +
             (r.uniform_int(0, 1) ? ", \"num_gpus\": " + pick(counts) : "") + "}";
    case 3:
    case 4: {
      std::string recipe;
      if (r.uniform_int(0, 2) == 0) {
        recipe = ", \"recipe\": {\"" + pick({"tensor_parallel", "max_num_seqs", "max_num_batched_tokens"}) +
                 "\": " + pick(counts) + "}";
      }
      return head + "\"deploy\", \"model\": \"" + pick(models) + "\", \"chip\": \"" + pick(chips) +
             "\", \"replicas\": " + pick(counts) + recipe + "}";
    }
    case 5:
      return head + "\"undeploy\", \"deployment_id\": " + pick(ids) + "}";
    case 6:
      return head + "\"scale_replicas\", \"deployment_id\": " + pick(ids) + ", \"replicas\": " + pick(counts) + "}";
    case 7:
      return head + "\"set_prices\", \"model\": \"" + pick(models) + "\", \"output_usd_per_mtok\": " + pick(prices) +
             (r.uniform_int(0, 1) ? ", \"input_usd_per_mtok\": " + pick(prices) : "") + "}";
    case 8:
      return head + "\"change_recipe\", \"deployment_id\": " + pick(ids) + ", \"recipe\": {\"" +
             pick({"prefix_caching", "max_num_seqs", "tensor_parallel", "engine"}) +
             "\": " + pick({"true", "false", "64", "3", "\"vllm\"", "\"sglang\"", "-1"}) + "}";
    case 9:
      return head + "\"" + pick({"accept_advice", "reject_advice"}) + "\", \"advice_id\": \"" +
             pick({"Chien-1", "Chien-2", "nope", ""}) + "\"}";
    case 10:
      return head + "\"advance\", \"hours\": " + pick({"1", "2", "3", "0", "-2"}) + "}";
    default:
      return pick({"{\"at_hour\": 0, \"type\": \"launch_missiles\"}", "{\"type\": \"rent_gpus\"", "not json",
                   "{\"at_hour\": 0, \"type\": \"rent_gpus\", \"chip\": \"h200\", \"num_gpus\": 1, \"num_gpus\": 2}",
                   "[1, 2, 3]", "{\"at_hour\": -5, \"type\": \"view_panel\", \"panel\": \"fleet\"}"});
  }
}

void game_run(const Run& run, const data::Catalog& catalog, const std::vector<Scenario>& scenarios,
              std::map<std::size_t, std::shared_ptr<ServingWindows>>& windows, const SoakOptions& o) {
  core::RngStream r(run.seed, core::RngPurpose::kAdvisor);
  const std::size_t which = static_cast<std::size_t>(r.uniform_int(0, static_cast<std::int64_t>(scenarios.size()) - 1));
  const Scenario& sc = scenarios[which];
  auto& win = windows[which];
  if (!win) win = std::make_shared<ServingWindows>();
  GameOptions opts;
  opts.seed = r.next_u64() % 1000;
  opts.days = static_cast<int>(r.uniform_int(1, std::max(1, o.max_days)));
  opts.windows = win;
  auto g = std::make_unique<Game>(sc, catalog, opts);
  const std::string where = "scenario " + sc.id;
  check_game(run, g->state(), g->scenario(), where + ", hour 0");
  auto& rep = run.report;
  while (!g->finished()) {
    const auto roll = r.uniform_int(0, 9);
    std::string what;
    if (roll <= 5) {  // 60%: a command (about 20 per game day)
      const std::string line = random_command(r, catalog, g->scenario(), g->state().hour);
      what = "after command " + line;
      std::vector<LoggedCommand> parsed;
      try {
        parsed = parse_command_log(line, "soak");
      } catch (const data::LoadError&) {
        ++rep.commands_malformed;
        continue;
      }
      for (const auto& c : parsed) {
        if (g->apply(c.command).ok) {
          ++rep.commands_applied;
        } else {
          ++rep.commands_refused;
        }
      }
    } else if (roll <= 8) {  // 30%: the clock
      const auto hours = r.uniform_int(1, 4);
      what = "after advancing " + std::to_string(hours) + " h";
      const auto before = g->state().hour;
      g->advance(hours);
      rep.game_hours += g->state().hour - before;
    } else {  // 10%: save and load (about 3 per game day)
      what = "after a save and load";
      const std::string text = save_text(*g);
      std::optional<SaveData> loaded;
      if (r.uniform_int(0, 2) == 0) {
        const fs::path path = o.scratch / ("soak-" + std::to_string(run.index) + ".json");
        save_game(*g, path);
        loaded = load_save(path, catalog);
        fs::remove(path);
      } else {
        loaded = load_save_text(text, "soak", catalog);
      }
      auto resumed = std::make_unique<Game>(std::move(loaded->scenario), std::move(loaded->state), catalog,
                                            GameOptions{std::nullopt, std::nullopt, std::nullopt, win});
      ++rep.save_loads;
      if (save_text(*resumed) != text) {
        ++rep.saves_lost;
        run.violation(where + ", hour " + std::to_string(g->state().hour) +
                      ": a save did not load back to the same game");
      }
      g = std::move(resumed);
    }
    check_game(run, g->state(), g->scenario(), where + ", hour " + std::to_string(g->state().hour) + ", " + what);
  }
  // The game's own log, replayed on a fresh game with the same seed and length, ends the same.
  Game fresh(sc, catalog, opts);
  replay(fresh, g->state().log);
  ++rep.replays;
  run.check(save_text(fresh) == save_text(*g), where + ": replaying the game's command log ends differently");
}

void serving_run(const Run& run, const data::Catalog& catalog,
                 std::map<std::string, perf::CalibrationProfile>& calibrations) {
  core::RngStream r(run.seed, core::RngPurpose::kAdvisor);
  auto pick = [&](int n) { return static_cast<int>(r.uniform_int(0, n - 1)); };
  const auto& recipe = catalog.recipes[static_cast<std::size_t>(pick(static_cast<int>(catalog.recipes.size())))];
  const auto& chip = catalog.accelerator(recipe.hardware);
  // The deployment takes the one path every deployment takes (serving::resolve_plan): the catalog
  // recipe with random choices over it, queue limits, replicas and router. The draws keep the order
  // of the stream they are made in.
  serving::PlanRequest request;
  request.model = &catalog.model(recipe.model);
  request.pool.chip = chip.id;
  auto& o = request.pool.recipe;
  if (pick(2) == 0) o.spec_draft_tokens = 0;
  serving::ServingConfig drawn;  // the run's fields: workload, arrivals, length, seed
  drawn.seed = r.next_u64();
  drawn.workload.kind = static_cast<serving::WorkloadKind>(pick(5));  // every shape but a trace
  drawn.workload.input_tokens = r.uniform_int(16, 4000);
  drawn.workload.output_tokens = r.uniform_int(1, 500);
  drawn.arrival.kind = static_cast<serving::ArrivalKind>(pick(4));
  drawn.arrival.concurrency = static_cast<int>(r.uniform_int(1, 64));
  drawn.arrival.rate_per_s = 0.5 + 30 * r.uniform01();
  drawn.arrival.burst_factor = 1.5 + 4 * r.uniform01();
  drawn.arrival.diurnal_amplitude = r.uniform01();
  request.pool.replicas = static_cast<int>(r.uniform_int(1, 4));
  request.pool.recipe.router = static_cast<serving::RouterKind>(pick(3));
  drawn.num_requests = r.uniform_int(10, 200);
  if (pick(3) == 0) drawn.warmup_s = 5 * r.uniform01();
  if (pick(2) == 0) o.max_num_seqs = static_cast<int>(r.uniform_int(1, 64));
  o.prefix_caching = pick(4) != 0;
  o.chunked_prefill = pick(4) != 0;
  std::optional<std::int64_t> kv_capacity_tokens;
  if (pick(2) == 0) kv_capacity_tokens = r.uniform_int(2000, 40000);
  if (pick(3) == 0) request.queue_timeout_s = 0.05 + 5 * r.uniform01();
  if (pick(3) == 0) request.max_queue = static_cast<int>(r.uniform_int(0, 20));
  if (pick(3) == 0) o.kv_admission = serving::KvAdmission::kGuaranteedNoEvict;
  auto calibration = [&](const data::Accelerator& hw) -> const perf::CalibrationProfile& {
    auto it = calibrations.find(hw.id);
    if (it == calibrations.end()) it = calibrations.emplace(hw.id, perf::calibration_for(catalog, hw)).first;
    return it->second;
  };
  serving::DeploymentPlan plan;
  try {
    plan = serving::resolve_plan(catalog, request, calibration);
  } catch (const std::invalid_argument&) {
    return;  // a choice the plan refuses with a reason (checked elsewhere)
  }
  serving::ServingConfig c = plan.config;
  c.seed = drawn.seed;
  c.workload = drawn.workload;
  c.arrival = drawn.arrival;
  c.num_requests = drawn.num_requests;
  c.warmup_s = drawn.warmup_s;
  // A KV cache far smaller than any memory plan leaves: preemption and failures, which the kernel
  // must survive whatever the deployment.
  if (kv_capacity_tokens) c.scheduler.kv_capacity_tokens = *kv_capacity_tokens;
  const std::string where = "serving " + recipe.id;
  std::optional<serving::Simulation> sim;
  try {
    sim.emplace(c, plan.calibration);
  } catch (const std::invalid_argument&) {
    return;  // a configuration the simulator refuses with a reason (checked elsewhere)
  }
  // Every request in the simulator's table that has ended was counted as a terminal transition
  // once (sessions that cannot run at all end without an entry, so the count may be larger).
  auto check_slice = [&](const std::string& when) {
    std::int64_t ended = 0;
    for (const auto& q : sim->requests()) ended += q.ended ? 1 : 0;
    run.check(sim->num_terminal_transitions() >= ended,
              where + ", " + when + ": " + std::to_string(ended) + " requests ended but only " +
                  std::to_string(sim->num_terminal_transitions()) + " terminal transitions counted");
    run.check(sim->kv_invariants_hold(), where + ", " + when + ": KV block reference counts != blocks held");
  };
  try {
    sim->start();
    int slices = 0;
    while (!sim->advance(r.uniform_int(1, 2000))) {
      if (++slices % 8 == 0) check_slice("slice " + std::to_string(slices));
    }
    check_slice("end");
    const auto s = sim->finish();
    std::int64_t completed = 0, failed = 0, in = 0, cached = 0, out = 0;
    for (const auto& q : sim->requests()) {
      if (q.state == serving::RequestState::kCompleted) {
        ++completed;
        if (q.counted) {
          in += q.input_tokens;
          cached += std::max<std::int64_t>(0, q.num_cached_tokens);
          out += q.num_output;
        }
        run.check(q.num_output == q.output_tokens, where + ": a completed request short of its output tokens");
      } else {
        ++failed;
      }
    }
    // Arrived = completed + failed (+ in flight: none once it has ended), every arrival ended
    // exactly once; the requests without a table entry are sessions that could not run at all.
    const auto in_table = static_cast<std::int64_t>(sim->requests().size());
    const std::int64_t without_entry = s.requests_arrived - in_table;
    run.check(s.requests_arrived == s.requests_completed + s.requests_failed && s.requests_completed == completed &&
                  s.requests_failed == failed + without_entry && without_entry >= 0 &&
                  without_entry <= s.requests_exceeding_context &&
                  sim->num_terminal_transitions() == s.requests_arrived,
              where + ": requests arrived " + std::to_string(s.requests_arrived) + " != completed " +
                  std::to_string(s.requests_completed) + " + failed " + std::to_string(s.requests_failed) +
                  " (table: " + std::to_string(completed) + " completed, " + std::to_string(failed) + " failed of " +
                  std::to_string(in_table) + ")");
    run.check(s.input_tokens == in && s.cached_input_tokens == cached && s.output_tokens == out,
              where + ": summary tokens != the sums over completed requests");
    run.check(sim->kv_blocks_in_use() == 0, where + ": " + std::to_string(sim->kv_blocks_in_use()) +
                                                " KV blocks still held after every request ended");
    run.report.requests_simulated += s.requests_arrived;
  } catch (const std::invalid_argument&) {
    // refused with a reason (e.g. "the workload makes no progress")
  }
}

}  // namespace

std::vector<std::string> conservation_violations(const GameState& s, const Scenario& sc) {
  std::vector<std::string> out;
  auto check = [&](bool ok, const std::string& what) {
    if (!ok) out.push_back(what);
  };
  const auto& t = s.ledger.totals();
  const double expected_cash = sc.company.starting_cash_usd + t.revenue_usd - t.gpu_cost_usd - t.fixed_cost_usd;
  check(std::isfinite(s.company.cash_usd) && std::abs(s.company.cash_usd - expected_cash) < kCentUsd,
        std::string{} + "cash " + num(s.company.cash_usd) + " != start + revenue - costs = " + num(expected_cash));
  double by_model = 0;
  econ::TokenCounts tokens;
  for (const auto& [model, r] : s.ledger.by_model()) {
    by_model += r.revenue_usd;
    tokens += r.tokens;
  }
  check(std::abs(by_model - t.revenue_usd) < kCentUsd,
        std::string{} + "revenue " + num(t.revenue_usd) + " != sum by model " + num(by_model));
  double by_contract = 0;
  for (double x : s.ledger.gpu_cost_by_contract()) by_contract += x;
  check(std::abs(by_contract - t.gpu_cost_usd) < kCentUsd,
        std::string{} + "GPU cost " + num(t.gpu_cost_usd) + " != sum by contract " + num(by_contract));
  const auto& v = s.service;
  check(std::isfinite(v.requests_offered) && v.requests_offered >= 0 && v.requests_completed >= 0 &&
            v.requests_failed >= -kRelativeCount * v.requests_offered &&
            close_count(v.requests_offered, v.requests_completed + v.requests_failed),
        std::string{} + "requests offered " + num(v.requests_offered) + " != completed " + num(v.requests_completed) +
            " + failed " + num(v.requests_failed));
  check(v.requests_within_slo <= v.requests_completed * (1 + kRelativeCount) + kRelativeCount,
        std::string{} + "more requests within SLO than completed");
  check(close_count(tokens.input_tokens, v.tokens.input_tokens) &&
            close_count(tokens.cached_input_tokens, v.tokens.cached_input_tokens) &&
            close_count(tokens.output_tokens, v.tokens.output_tokens),
        std::string{} + "tokens billed by model (" + num(tokens.input_tokens) + " in, " + num(tokens.output_tokens) +
            " out) != tokens served (" + num(v.tokens.input_tokens) + " in, " + num(v.tokens.output_tokens) + " out)");
  check(v.tokens.cached_input_tokens <= v.tokens.input_tokens * (1 + kRelativeCount) + kRelativeCount,
        std::string{} + "more cached input tokens than input tokens");
  check(v.gpu_hours_serving <= v.gpu_hours_rented * (1 + kRelativeCount) + kRelativeCount,
        std::string{} + "GPU-hours serving " + num(v.gpu_hours_serving) + " > rented " + num(v.gpu_hours_rented));
  return out;
}

SoakReport run_soak(const SoakOptions& o, const data::Catalog& catalog) {
  std::vector<Scenario> scenarios;
  for (const auto& f : list_scenarios(o.data_root)) scenarios.push_back(load_scenario(f, catalog));
  if (scenarios.empty()) throw std::invalid_argument("soak: no scenario under " + (o.data_root / "scenarios").string());
  SoakReport report;
  std::map<std::size_t, std::shared_ptr<ServingWindows>> windows;
  std::map<std::string, perf::CalibrationProfile> calibrations;
  for (std::int64_t i = o.first_run; i < o.first_run + o.runs; ++i) {
    const Run run{i, core::hash_combine(o.seed, static_cast<std::uint64_t>(i)), report};
    try {
      if (i % 2 == 0) {
        ++report.game_runs;
        game_run(run, catalog, scenarios, windows, o);
      } else {
        ++report.serving_runs;
        serving_run(run, catalog, calibrations);
      }
    } catch (const std::exception& e) {
      run.violation(std::string("unexpected exception: ") + e.what());
    }
    ++report.runs;
    if (o.on_run) o.on_run(i, report.runs);
  }
  return report;
}

}  // namespace tycoon::game
