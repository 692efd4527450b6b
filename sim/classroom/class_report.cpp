#include "sim/classroom/class_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>

#include "sim/advisor/advisor.h"
#include "sim/classroom/hand_in.h"
#include "sim/classroom/student_name.h"
#include "sim/core/input_error.h"
#include "sim/core/input_file.h"
#include "sim/core/version.h"
#include "sim/data/json_reader.h"

namespace tycoon::classroom {

double CheckedSubmission::improvement_usd_per_hour() const {
  const double hours = static_cast<double>(cumulative_profit_usd.size());
  if (hours < 2) return 0;
  const double first_hours = std::floor(hours / 2), second_hours = hours - first_hours;
  return second_half_profit_usd / second_hours - first_half_profit_usd / first_hours;
}

std::string AdviceCall::decision_text() const {
  if (checks.empty()) return decision;
  std::string s = "verified (";
  for (std::size_t i = 0; i < checks.size(); ++i) s += (i ? ", " : "") + checks[i];
  s += ")";
  if (decision == "undecided") return s + ", never decided";
  return s + ", then " + decision;
}

std::vector<std::filesystem::path> submission_files(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    throw core::InputError(dir.string() + ": not a folder of submissions");
  }
  std::vector<std::filesystem::path> out;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) throw core::InputError(dir.string() + ": cannot read the folder: " + ec.message());
  for (const auto& e : it) {
    if (e.path().extension() == ".json") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

std::string money(double usd) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%s$%.2f", usd < 0 ? "-" : "", std::abs(usd));
  return buf;
}

// The model whose price the charts follow: the first segment's (every classroom level sells one).
std::string priced_model_of(const game::Scenario& scenario) {
  if (!scenario.segments.empty()) return scenario.segments.front().model;
  if (!scenario.starting_prices.empty()) return scenario.starting_prices.begin()->first;
  return {};
}

double output_price(const std::map<std::string, econ::TokenPrices>& prices, const std::string& model) {
  auto it = prices.find(model);
  return it == prices.end() ? 0 : it->second.output_usd_per_mtok;
}

// The output price of `model` in effect during each hour of a replay of `commands` on `scenario`:
// the starting price, then every set_prices the game applied (the refused ones left out), from
// the hour it was applied.
std::vector<double> price_by_hour(const game::Scenario& scenario, const std::string& model, std::int64_t end_hour,
                                  const std::vector<game::LoggedCommand>& commands,
                                  const std::vector<game::RefusedCommand>& refused) {
  std::set<std::size_t> not_applied;
  for (const auto& r : refused) not_applied.insert(r.index);
  std::vector<double> out(static_cast<std::size_t>(end_hour));
  double price = output_price(scenario.starting_prices, model);
  std::size_t next = 0;
  for (std::int64_t h = 0; h < end_hour; ++h) {
    for (; next < commands.size() && commands[next].at_hour <= h; ++next) {
      if (not_applied.count(next)) continue;
      const auto* sp = std::get_if<game::SetPrices>(&commands[next].command);
      if (sp && sp->model == model && sp->output_usd_per_mtok) price = *sp->output_usd_per_mtok;
    }
    out[static_cast<std::size_t>(h)] = price;
  }
  return out;
}

void fill_series(CheckedSubmission& c, const game::GameState& st) {
  const auto& profit = st.history[game::Series::kProfitUsd];
  c.gpus_rented = st.history[game::Series::kGpusRented];
  const std::size_t half = profit.size() / 2;
  double sum = 0;
  for (std::size_t h = 0; h < profit.size(); ++h) {
    sum += profit[h];
    c.cumulative_profit_usd.push_back(sum);
    (h < half ? c.first_half_profit_usd : c.second_half_profit_usd) += profit[h];
  }
}

// The advisor's proposals in a finished game and the player's calls on them, with the truth (the
// game is over: the debrief may reveal it).
std::vector<AdviceCall> advice_calls_of(const game::Game& g) {
  std::vector<AdviceCall> out;
  if (!g.finished() || !g.advisor()) return out;
  for (const auto& row : advisor::make_debrief(g.state()).rows) {
    AdviceCall a;
    a.advice_id = row.record.advice_id;
    a.posted_at_hour = row.record.posted_at_hour;
    a.proposal = row.record.title;
    a.claimed_speedup = row.record.claimed_speedup;
    a.decision = row.decision == game::AdviceStatus::kAccepted   ? "accepted"
                 : row.decision == game::AdviceStatus::kRejected ? "rejected"
                                                                 : "undecided";
    for (const auto& c : row.record.checks) {
      a.checks.emplace_back(game::kAdviceCheckKindNames[static_cast<std::size_t>(c.kind)]);
    }
    a.decided_at_hour = row.decided_at_hour;
    a.true_speedup = row.record.true_speedup;
    a.reputation_hit = row.record.reputation_hit;
    a.truth = row.truth;
    a.right_call = row.right_call;
    a.checks_usd = row.checks_usd;
    a.value_usd = row.value_usd;
    out.push_back(std::move(a));
  }
  return out;
}

// A JSON value whose "format" is the class report's.
bool is_class_report(const nlohmann::json& j) {
  return j.is_object() && j.contains("format") && j["format"] == kClassReportFormat;
}

// `reason` with every quoted span ('…' or "…") replaced by an ellipsis: the reason a file is
// rejected lands in the report, and must not carry what the file holds (a parse error quotes the
// text it stopped at; a field error may quote the value).
std::string without_quotes(std::string_view reason) {
  std::string out;
  for (std::size_t i = 0; i < reason.size(); ++i) {
    const char q = reason[i];
    if (q != '\'' && q != '"') {
      out += q;
      continue;
    }
    const std::size_t close = reason.find(q, i + 1);
    out += q;
    out += "\u2026";
    if (close == std::string_view::npos) break;
    out += q;
    i = close;
  }
  return out;
}

// Why `s` does not belong to the class (empty when it does).
std::string mismatch(const Submission& s, const ClassSpec& spec) {
  if (s.class_id != spec.class_id) {
    return "made for class '" + s.class_id + "', not this class ('" + spec.class_id + "')";
  }
  if (s.scenario != spec.scenario)
    return "made for scenario '" + s.scenario + "', not the class's '" + spec.scenario + "'";
  if (s.scenario_hash != spec.scenario_hash) {
    return "made for another version of scenario '" + s.scenario + "' (hash " + s.scenario_hash + ", the class's " +
           spec.scenario_hash + ")";
  }
  if (s.seed != spec.seed) {
    return "played seed " + std::to_string(s.seed) + ", the class plays seed " + std::to_string(spec.seed);
  }
  if (s.days != spec.days) {
    return "played " + std::to_string(s.days) + " days, the class plays " + std::to_string(spec.days);
  }
  return {};
}

// Why the replay does not reproduce the claim (empty when it does).
std::string not_reproduced(const ClaimedResult& claimed, const game::GameSummary& replayed) {
  std::string out;
  auto add = [&](const std::string& what) { out += (out.empty() ? "" : "; ") + what; };
  if (std::abs(claimed.profit_usd - replayed.profit_usd) > kReproduceProfitTolUsd) {
    add("profit " + money(claimed.profit_usd) + " claimed, the replay earns " + money(replayed.profit_usd));
  }
  char buf[160];
  if (std::abs(claimed.score_points - replayed.score.points) > kReproduceScoreTolPoints) {
    std::snprintf(buf, sizeof buf, "score %.3f claimed, the replay scores %.3f", claimed.score_points,
                  replayed.score.points);
    add(buf);
  }
  if (std::abs(claimed.slo_attainment - replayed.slo_attainment) > kReproduceSloTol) {
    std::snprintf(buf, sizeof buf, "SLO attainment %.4f%% claimed, the replay reaches %.4f%%",
                  100 * claimed.slo_attainment, 100 * replayed.slo_attainment);
    add(buf);
  }
  if (!out.empty()) {
    out = "its commands do not reproduce its summary: " + out +
          " (edited by hand, or made by another build of the game: submit the save again with this one)";
  }
  return out;
}

// Ranks 1..n by `key`, larger first, a finished game above one handed in unfinished whatever their
// figures (as in the standings: hours nobody played are not compared with a whole game's, and a
// game handed in at hour 0 served nobody, whatever its SLO reads); ties broken by score, then
// profit, then name (stable order).
template <class Key>
void assign_ranks(std::vector<CheckedSubmission>& v, Key key, int CheckedSubmission::*rank) {
  std::vector<std::size_t> order(v.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto finished = [&](std::size_t i) { return v[i].summary.score.played_share >= 1; };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (finished(a) != finished(b)) return finished(a);
    return key(v[a]) > key(v[b]);
  });
  for (std::size_t r = 0; r < order.size(); ++r) v[order[r]].*rank = static_cast<int>(r + 1);
}

}  // namespace

ClassBenchmarks play_class_benchmarks(const ClassWorld& world, const data::Catalog& catalog) {
  ClassBenchmarks out;
  out.priced_model = priced_model_of(world.scenario);
  // Doing nothing and the level's reference, on the class's seed and length; their profits also
  // complete every student's score.
  auto probe = world.new_game(catalog);
  auto plays =
      game::counterfactual_plays(probe->scenario(), probe->state(), catalog, world.options.windows, probe->advisor());
  std::vector<std::vector<double>> play_prices(plays.size());
  for (std::size_t i = 0; i < plays.size(); ++i) {
    while (!plays[i].game->finished()) {
      plays[i].step();  // applies the hour's commands, then simulates it: the prices now are the hour's
      play_prices[i].push_back(output_price(plays[i].game->state().company.prices, out.priced_model));
      if (i == 0 && world.scenario.reference_prices.count(out.priced_model)) {
        out.market_output_price_usd_per_mtok.push_back(
            game::market_prices_now(plays[i].game->scenario(), plays[i].game->state(), out.priced_model)
                .output_usd_per_mtok);
      }
    }
  }
  out.counterfactuals = game::collect(plays);
  for (std::size_t i = 0; i < plays.size(); ++i) {
    BenchmarkRun b;
    b.id = plays[i].id;
    b.name = plays[i].name;
    b.description = plays[i].description;
    b.summary = game::summarize(*plays[i].game, &out.counterfactuals);
    b.output_price_usd_per_mtok = std::move(play_prices[i]);
    b.gpus_rented = plays[i].game->state().history[game::Series::kGpusRented];
    double sum = 0;
    for (double p : plays[i].game->state().history[game::Series::kProfitUsd])
      b.cumulative_profit_usd.push_back(sum += p);
    out.runs.push_back(std::move(b));
  }
  return out;
}

std::string replay_submission(const ClassWorld& world, const data::Catalog& catalog, const ClassBenchmarks& benchmarks,
                              const std::vector<game::LoggedCommand>& commands, const ClaimedResult* claimed,
                              CheckedSubmission& c, std::optional<std::int64_t> stopped_at_hour) {
  std::vector<game::RefusedCommand> refused;
  auto g = play_class_game(world, catalog, commands, &refused);
  std::optional<game::GameState> at_stop;
  if (stopped_at_hour && *stopped_at_hour < g->state().hour) at_stop = state_at_stop(world, *g, *stopped_at_hour);
  c.summary = game::summarize(*g, &benchmarks.counterfactuals, stopped_at_hour, at_stop ? &*at_stop : nullptr);
  c.stopped_at_hour = stopped_at_hour;
  if (claimed) {
    if (auto why = not_reproduced(*claimed, c.summary); !why.empty()) return why;
  }
  c.num_commands = commands.size();
  c.num_refused = refused.size();
  c.output_price_usd_per_mtok =
      price_by_hour(g->scenario(), benchmarks.priced_model, g->state().end_hour, commands, refused);
  fill_series(c, g->state());
  c.advice_calls = advice_calls_of(*g);
  return {};
}

namespace {

// The report's class, scenario and benchmarks, before any submission.
ClassReport report_header(const ClassWorld& world, const ClassBenchmarks& benchmarks) {
  ClassReport report;
  report.spec = world.spec;
  report.scenario_name = world.scenario.name;
  report.question = world.scenario.question;
  report.lesson = world.scenario.lesson;
  report.locked_levers = world.scenario.locked_levers;
  report.priced_model = benchmarks.priced_model;
  report.benchmarks = benchmarks.runs;
  report.market_output_price_usd_per_mtok = benchmarks.market_output_price_usd_per_mtok;
  return report;
}

void rank_and_pick(ClassReport& report);

}  // namespace

ClassReport class_report_of(const ClassWorld& world, const ClassBenchmarks& benchmarks,
                            std::vector<CheckedSubmission> valid) {
  auto report = report_header(world, benchmarks);
  report.valid = std::move(valid);
  for (auto& c : report.valid) c.valid = true;
  rank_and_pick(report);
  return report;
}

ClassReport build_class_report(const ClassWorld& world, const data::Catalog& catalog,
                               const std::vector<std::filesystem::path>& files, const Roster* roster) {
  auto benchmarks = play_class_benchmarks(world, catalog);
  auto report = report_header(world, benchmarks);

  std::map<std::string, std::string> seen_students;  // student_name_key -> file
  for (const auto& path : files) {
    CheckedSubmission c;
    c.file = path.filename().string();
    auto reject = [&](std::string why) {
      c.valid = false;
      c.reason = std::move(why);
      report.rejected.push_back(c);
    };
    Submission s;
    try {
      // Read once, as a regular file in the folder (a link is refused by name, never followed).
      const std::string text = core::read_input_file(path, core::kSubmissionInput, core::Links::kRefuse);
      const auto j = data::parse_json_text(text, path.string());
      // The report's own JSON, written beside the HTML in the same folder by default, is not a
      // submission: passed over, not rejected.
      if (is_class_report(j)) continue;
      s = submission_from_json(j, path.string());
    } catch (const core::FileReadError& e) {
      reject(e.file() + ": " + e.reason());
      continue;
    } catch (const data::LoadError& e) {
      reject(e.file() + ": " + (e.pointer().empty() ? "/" : e.pointer()) + ": " + without_quotes(e.reason()));
      continue;
    }
    c.student = s.student;
    if (auto why = mismatch(s, world.spec); !why.empty()) {
      reject(why);
      continue;
    }
    // The roster before anything else about the student: a forged name is no first submission.
    if (roster) {
      if (auto why = roster_problem(*roster, s.student, s.student_code); !why.empty()) {
        reject(why);
        continue;
      }
    }
    const std::string student_key = student_name_key(s.student);
    if (auto it = seen_students.find(student_key); it != seen_students.end()) {
      reject("a second submission from '" + s.student + "' (the first, " + it->second +
             ", counts; names are compared without case, extra spaces, invisible or look-alike characters)");
      continue;
    }
    if (auto why = replay_submission(world, catalog, benchmarks, s.commands, &s.claimed, c, s.stopped_at_hour);
        !why.empty()) {
      reject(why);
      continue;
    }
    seen_students.emplace(student_key, c.file);
    c.valid = true;
    report.valid.push_back(std::move(c));
  }
  rank_and_pick(report);
  return report;
}

namespace {

// Ranks the valid submissions and picks the three runs to discuss.
void rank_and_pick(ClassReport& report) {
  auto& v = report.valid;
  // Standings: as a class server ranks attempts (ranks_before: a finished game above one handed
  // in unfinished, then score, then profit), then by name; the other two rankings by their own figure.
  auto figures = [](const CheckedSubmission& c) {
    return AttemptFigures{0, c.summary.score.points, c.summary.profit_usd, c.summary.score.played_share >= 1};
  };
  std::stable_sort(v.begin(), v.end(), [&](const CheckedSubmission& a, const CheckedSubmission& b) {
    if (ranks_before(figures(a), figures(b))) return true;
    if (ranks_before(figures(b), figures(a))) return false;
    return a.student < b.student;
  });
  for (std::size_t i = 0; i < v.size(); ++i) v[i].rank_score = static_cast<int>(i + 1);
  assign_ranks(
      v, [](const CheckedSubmission& c) { return c.summary.profit_usd; }, &CheckedSubmission::rank_profit);
  assign_ranks(
      v, [](const CheckedSubmission& c) { return c.summary.slo_attainment; }, &CheckedSubmission::rank_slo);

  // The instructive runs: the best and the worst by score, and the one that improved most from the
  // first half of the game to the second among the others (a run cannot stand for two lessons).
  if (!v.empty()) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "the highest score (%.1f), profit %s, SLO %.1f%%", v.front().summary.score.points,
                  money(v.front().summary.profit_usd).c_str(), 100 * v.front().summary.slo_attainment);
    report.instructive.push_back({"best", 0, buf});
    if (v.size() >= 2) {
      // The lowest-scoring game played to the end (finished games rank above unfinished ones
      // whatever their scores); a game handed in unfinished only when none other was finished.
      std::size_t worst = v.size() - 1;
      while (worst > 1 && v[worst].stopped_at_hour) --worst;
      if (v[worst].stopped_at_hour) worst = v.size() - 1;
      const auto& w = v[worst];
      if (w.stopped_at_hour) {
        std::snprintf(buf, sizeof buf,
                      "ranked last, handed in unfinished at hour %lld (score %.1f for the share played)",
                      static_cast<long long>(*w.stopped_at_hour), w.summary.score.points);
      } else {
        std::snprintf(buf, sizeof buf, "the lowest score of a finished game (%.1f), profit %s, SLO %.1f%%",
                      w.summary.score.points, money(w.summary.profit_usd).c_str(), 100 * w.summary.slo_attainment);
      }
      report.instructive.push_back({"worst", worst, buf});
    }
    // Among the other finished games (an unfinished one's second half was played by nobody).
    std::optional<std::size_t> improved;
    for (std::size_t i = 1; i < v.size(); ++i) {
      if (report.instructive.back().index == i || v[i].stopped_at_hour) continue;
      if (!improved || v[i].improvement_usd_per_hour() > v[*improved].improvement_usd_per_hour()) improved = i;
    }
    if (v.size() >= 3 && improved) {
      const std::size_t best = *improved;
      std::snprintf(buf, sizeof buf,
                    "the largest gain from the first half of the game to the second: %s an hour (%s, then %s)",
                    money(v[best].improvement_usd_per_hour()).c_str(), money(v[best].first_half_profit_usd).c_str(),
                    money(v[best].second_half_profit_usd).c_str());
      report.instructive.push_back({"most_improved", best, buf});
    }
  }
}

}  // namespace

nlohmann::json to_json(const AdviceCall& a) {
  return {{"advice_id", a.advice_id},
          {"posted_at_hour", a.posted_at_hour},
          {"proposal", a.proposal},
          {"claimed_speedup", a.claimed_speedup},
          {"decision", a.decision},
          {"checks", a.checks},
          {"verified", a.verified()},
          {"decided_at_hour", a.decided_at_hour ? nlohmann::json(*a.decided_at_hour) : nlohmann::json(nullptr)},
          {"true_speedup", a.true_speedup},
          {"reputation_hit", a.reputation_hit},
          {"truth", a.truth},
          {"right_call", a.right_call},
          {"checks_usd", a.checks_usd},
          {"estimated_value_usd", a.value_usd}};
}

nlohmann::json to_json(const ClassReport& r) {
  auto calls = [](const CheckedSubmission& c) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& a : c.advice_calls) out.push_back(to_json(a));
    return out;
  };
  auto row = [&calls](const CheckedSubmission& c) {
    return nlohmann::json{
        {"file", c.file},
        {"student", c.student},
        {"rank_score", c.rank_score},
        {"rank_profit", c.rank_profit},
        {"rank_slo", c.rank_slo},
        {"score", c.summary.score.points},
        {"stars", c.summary.score.stars},
        {"passed", c.summary.score.passed},
        {"profit_usd", c.summary.profit_usd},
        {"revenue_usd", c.summary.revenue_usd},
        {"slo_attainment", c.summary.slo_attainment},
        {"bankrupt", c.summary.bankrupt},
        {"stopped_at_hour", c.stopped_at_hour ? nlohmann::json(*c.stopped_at_hour) : nlohmann::json(nullptr)},
        {"gpu_hours_rented", c.summary.gpu_hours_rented},
        {"commands", c.num_commands},
        {"commands_refused", c.num_refused},
        {"first_half_profit_usd", c.first_half_profit_usd},
        {"second_half_profit_usd", c.second_half_profit_usd},
        {"improvement_usd_per_hour", c.improvement_usd_per_hour()},
        {"advice_calls", calls(c)}};
  };
  nlohmann::json valid = nlohmann::json::array(), rejected = nlohmann::json::array(),
                 benchmarks = nlohmann::json::array(), instructive = nlohmann::json::array();
  for (const auto& c : r.valid) valid.push_back(row(c));
  for (const auto& c : r.rejected) rejected.push_back({{"file", c.file}, {"student", c.student}, {"reason", c.reason}});
  for (const auto& b : r.benchmarks) {
    benchmarks.push_back({{"id", b.id},
                          {"name", b.name},
                          {"score", b.summary.score.points},
                          {"profit_usd", b.summary.profit_usd},
                          {"slo_attainment", b.summary.slo_attainment},
                          {"bankrupt", b.summary.bankrupt}});
  }
  for (const auto& i : r.instructive) {
    instructive.push_back({{"kind", i.kind}, {"student", r.valid[i.index].student}, {"why", i.why}});
  }
  // "written_by": which program wrote the report (informative; the reader below does not need it).
  return {{"format", kClassReportFormat},
          {"version", kClassReportVersion},
          {std::string(core::kWrittenByKey), core::build_json()},
          {"class", to_json(r.spec)},
          {"scenario_name", r.scenario_name},
          {"standings", valid},
          {"rejected", rejected},
          {"benchmarks", benchmarks},
          {"instructive", instructive}};
}

const ReportStanding* ClassReportView::find(std::string_view student) const {
  for (const auto& s : standings) {
    if (s.student == student) return &s;
  }
  return nullptr;
}

ClassReportView class_report_view_from_json(const nlohmann::json& j, const std::string& file) {
  if (!j.is_object()) throw data::LoadError(file, "", "a class report is a JSON object");
  data::ObjectReader in(j, file, "");
  if (!in.has("format") || !in.raw("format").is_string() || in.raw("format").get<std::string>() != kClassReportFormat) {
    in.fail("format", "not a class report (expected \"" + std::string(kClassReportFormat) +
                          "\": `tycoon class report` writes it beside the HTML)");
  }
  const auto version = in.integer("version");
  if (version != kClassReportVersion) {
    in.fail("version", "version " + std::to_string(version) + " is not supported (this build reads version " +
                           std::to_string(kClassReportVersion) + ")");
  }
  ClassReportView v;
  v.spec = class_from_json(in.raw("class"), file);
  v.scenario_name = in.string("scenario_name");
  // Rows are read for what the screen shows; the rest of each row (series, calls) is the HTML's.
  auto rows = in.array("standings");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    auto r = rows.object(i);
    ReportStanding s;
    s.student = r.string("student");
    s.rank_score = static_cast<int>(r.integer("rank_score", data::Bound::kPositive));
    s.rank_profit = static_cast<int>(r.integer("rank_profit", data::Bound::kPositive));
    s.rank_slo = static_cast<int>(r.integer("rank_slo", data::Bound::kPositive));
    s.score = r.number("score");
    s.stars = static_cast<int>(r.integer("stars", data::Bound::kNonNegative));
    s.profit_usd = r.number("profit_usd");
    s.slo_attainment = r.number("slo_attainment", data::Bound::kNonNegative);
    s.bankrupt = r.boolean("bankrupt");
    s.stopped_at_hour = r.optional_integer("stopped_at_hour", data::Bound::kNonNegative);  // older reports: finished
    s.commands = r.integer("commands", data::Bound::kNonNegative);
    const auto& calls = r.raw("advice_calls");
    if (!calls.is_array()) r.fail("advice_calls", "must be an array");
    s.advice_calls = static_cast<std::int64_t>(calls.size());
    for (const auto& c : calls) s.right_calls += c.is_object() && c.value("right_call", false);
    v.standings.push_back(std::move(s));
  }
  auto benches = in.array("benchmarks");
  for (std::size_t i = 0; i < benches.size(); ++i) {
    auto b = benches.object(i);
    v.benchmarks.push_back({b.string("id"), b.string("name"), b.number("score"), b.number("profit_usd"),
                            b.number("slo_attainment", data::Bound::kNonNegative)});
  }
  auto picks = in.array("instructive");
  for (std::size_t i = 0; i < picks.size(); ++i) {
    auto p = picks.object(i);
    v.instructive.push_back({p.string("kind"), p.string("student"), p.string("why")});
  }
  auto rej = in.array("rejected");
  for (std::size_t i = 0; i < rej.size(); ++i) {
    auto p = rej.object(i);
    v.rejected.push_back({p.string("file"), p.string("student"), p.string("reason")});
  }
  return v;
}

ClassReportView load_class_report_view(const std::filesystem::path& path) {
  return class_report_view_from_json(data::parse_json_file(path, core::kClassReportInput), path.string());
}

}  // namespace tycoon::classroom
