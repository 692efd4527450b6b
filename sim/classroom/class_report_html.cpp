// The class report as one self-contained HTML page: standings, the class beside the benchmarks,
// prices and fleets over time, the three instructive runs, and the rejected submissions.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "sim/analysis/svg_chart.h"
#include "sim/classroom/class_charts.h"
#include "sim/classroom/class_report.h"
#include "sim/core/version.h"

namespace tycoon::classroom {

namespace {

using analysis::xml_escape;

std::string usd_text(double usd) {
  char buf[48];
  const double a = std::abs(usd);
  if (a >= 1e6) {
    std::snprintf(buf, sizeof buf, "%s$%.2fM", usd < 0 ? "−" : "", a / 1e6);
  } else {
    std::snprintf(buf, sizeof buf, "%s$%.0f", usd < 0 ? "−" : "", a);
  }
  return buf;
}

std::string fixed(double x, int digits) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

std::string percent(double share) { return fixed(100 * share, 1) + "%"; }

std::string stars(int n) {
  std::string s;
  for (int i = 0; i < 3; ++i) s += i < n ? "★" : "☆";
  return s;
}

// The value at quantile q (0..1) of `sorted` (linear between ranks).
double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

const BenchmarkRun* find_benchmark(const ClassReport& r, const std::string& id) {
  for (const auto& b : r.benchmarks) {
    if (b.id == id) return &b;
  }
  return nullptr;
}

void standings_table(std::ostringstream& o, const ClassReport& r) {
  o << "<table><tr><th>#</th><th>Student</th><th>Score</th><th></th><th>Profit</th><th>#profit</th>"
       "<th>SLO attainment</th><th>#SLO</th><th>GPU-hours</th><th>Commands (refused)</th><th>File</th></tr>\n";
  for (const auto& c : r.valid) {
    const auto& s = c.summary;
    // An unfinished game is named as the charts name it: where it stopped (scored on the share played).
    const std::string name = c.stopped_at_hour
                                 ? c.student + " (unfinished: stopped at h" + std::to_string(*c.stopped_at_hour) + ")"
                                 : c.student;
    o << "<tr><td>" << c.rank_score << "</td><td>" << xml_escape(name) << "</td><td class=n>"
      << fixed(s.score.points, 1) << "</td><td>" << stars(s.score.stars) << "</td><td class=n>"
      << usd_text(s.profit_usd) << (s.bankrupt ? " (bankrupt)" : "") << "</td><td class=n>" << c.rank_profit
      << "</td><td class=n>" << percent(s.slo_attainment) << "</td><td class=n>" << c.rank_slo << "</td><td class=n>"
      << fixed(s.gpu_hours_rented, 0) << "</td><td class=n>" << c.num_commands << " (" << c.num_refused << ")</td><td>"
      << xml_escape(c.file) << "</td></tr>\n";
  }
  o << "</table>\n";
}

// A compact ranking by one figure.
template <class Value>
void ranking_table(std::ostringstream& o, const ClassReport& r, const char* title, int CheckedSubmission::*rank,
                   Value value) {
  std::vector<const CheckedSubmission*> order;
  for (const auto& c : r.valid) order.push_back(&c);
  std::sort(order.begin(), order.end(), [&](auto* a, auto* b) { return a->*rank < b->*rank; });
  o << "<div class=col><h3>" << title << "</h3><table><tr><th>#</th><th>Student</th><th>" << title << "</th></tr>\n";
  for (const auto* c : order) {
    o << "<tr><td>" << c->*rank << "</td><td>" << xml_escape(c->student) << "</td><td class=n>" << value(*c)
      << "</td></tr>\n";
  }
  o << "</table></div>\n";
}

void distribution(std::ostringstream& o, const ClassReport& r, const ClassCharts& charts) {
  std::vector<double> profits, scores;
  for (const auto& c : r.valid) {
    profits.push_back(c.summary.profit_usd);
    scores.push_back(c.summary.score.points);
  }
  std::sort(profits.begin(), profits.end());
  std::sort(scores.begin(), scores.end());
  o << "<table><tr><th>Run</th><th>Score</th><th>Profit</th><th>SLO attainment</th><th>What it did</th></tr>\n";
  for (const auto& b : r.benchmarks) {
    o << "<tr class=bench><td>" << xml_escape(b.name) << "</td><td class=n>" << fixed(b.summary.score.points, 1)
      << "</td><td class=n>" << usd_text(b.summary.profit_usd) << "</td><td class=n>"
      << percent(b.summary.slo_attainment) << "</td><td>" << xml_escape(b.description) << "</td></tr>\n";
  }
  if (!profits.empty()) {
    o << "<tr><td>The class: median (quartiles)</td><td class=n>" << fixed(quantile(scores, 0.5), 1) << " ("
      << fixed(quantile(scores, 0.25), 1) << "–" << fixed(quantile(scores, 0.75), 1) << ")</td><td class=n>"
      << usd_text(quantile(profits, 0.5)) << " (" << usd_text(quantile(profits, 0.25)) << "–"
      << usd_text(quantile(profits, 0.75)) << ")</td><td></td><td>" << r.valid.size() << " students</td></tr>\n";
  }
  o << "</table>\n";
  auto beat = [&](const char* id) {
    const auto* b = find_benchmark(r, id);
    if (!b) return std::string();
    const auto n = std::count_if(r.valid.begin(), r.valid.end(), [&](const CheckedSubmission& c) {
      return c.summary.profit_usd > b->summary.profit_usd;
    });
    return std::to_string(n) + " of " + std::to_string(r.valid.size()) + " earned more than " +
           (std::string(id) == "do_nothing" ? "doing nothing" : "the reference strategy");
  };
  o << "<p>" << xml_escape(beat("do_nothing"));
  if (find_benchmark(r, "reference")) o << "; " << xml_escape(beat("reference"));
  o << ".</p>\n";

  // The scatter, first of the class's charts (class_charts.h).
  o << analysis::render_svg(charts.charts.front(), /*standalone=*/false) << "\n";
}

// The class's charts over the game's hours, and the ones its locks leave out (with why).
void over_time(std::ostringstream& o, ClassCharts charts) {
  charts.charts.erase(charts.charts.begin());  // the scatter is drawn beside the benchmarks' table
  o << class_charts_html(charts);
}

void instructive(std::ostringstream& o, const ClassReport& r, const ClassChartData& data) {
  for (const auto& i : r.instructive) {
    const auto& c = r.valid[i.index];
    const char* title = i.kind == "best" ? "Best" : i.kind == "worst" ? "Worst" : "Most improved";
    o << "<div class=card><h3>" << title << ": " << xml_escape(c.student) << "</h3><p>" << xml_escape(i.why)
      << ".</p>\n<table><tr><th>Score component</th><th>Points</th><th>How</th></tr>\n";
    for (const auto& comp : c.summary.score.components) {
      o << "<tr><td>" << xml_escape(comp.name) << "</td><td class=n>"
        << (comp.known ? fixed(comp.points, 1) : std::string("?")) << " / " << fixed(comp.max_points, 0) << "</td><td>"
        << xml_escape(comp.detail) << "</td></tr>\n";
    }
    o << "</table>\n";
    if (!c.summary.what_to_try.empty()) {
      o << "<p>What to try next:</p><ul>";
      for (const auto& line : c.summary.what_to_try) o << "<li>" << xml_escape(line) << "</li>";
      o << "</ul>\n";
    }
    o << analysis::render_svg(student_profit_chart(data, i.index), /*standalone=*/false) << "</div>\n";
  }
}

// Every student's calls on the advisor's proposals beside what each proposal really did.
void advice_calls(std::ostringstream& o, const ClassReport& r) {
  o << "<table class=advice><tr><th>Student</th><th>Proposal</th><th>Posted</th><th>What it proposed</th>"
       "<th>Claimed</th><th>The student's call</th><th>The truth</th><th>True speed-up</th><th>Call</th>"
       "<th>Checks</th><th>Value (est.)</th></tr>\n";
  for (const auto& c : r.valid) {
    if (c.advice_calls.empty()) {
      o << "<tr><td>" << xml_escape(c.student) << "</td><td colspan=10 class=muted>no proposals</td></tr>\n";
      continue;
    }
    for (const auto& a : c.advice_calls) {
      o << "<tr><td>" << xml_escape(c.student) << "</td><td>" << xml_escape(a.advice_id) << "</td><td class=n>h"
        << a.posted_at_hour << "</td><td>" << xml_escape(a.proposal) << "</td><td class=n>×"
        << fixed(a.claimed_speedup, 3) << "</td><td>" << xml_escape(a.decision_text())
        << (a.decided_at_hour ? " at h" + std::to_string(*a.decided_at_hour) : std::string()) << "</td><td>"
        << xml_escape(a.truth) << "</td><td class=n>×" << fixed(a.true_speedup, 3) << "</td><td>"
        << (a.decision == "undecided" ? "—"
            : a.right_call            ? "right"
                                      : "<b>wrong</b>")
        << "</td><td class=n>" << usd_text(a.checks_usd) << "</td><td class=n>" << usd_text(a.value_usd)
        << "</td></tr>\n";
    }
  }
  o << "</table>\n";
}

}  // namespace

std::string report_html(const ClassReport& r) {
  std::ostringstream o;
  const std::string title = r.spec.title.empty() ? "Class " + r.spec.class_id : r.spec.title;
  o << "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8><title>" << xml_escape(title)
    << " — class report</title>\n<style>\n"
       "body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}\n"
       "table{border-collapse:collapse;margin:.5em 0 1em}th,td{border-bottom:1px solid #ddd;padding:3px 8px;"
       "text-align:left;vertical-align:top}td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
       "tr.bench{background:#f3f6fa}.col{display:inline-block;vertical-align:top;margin-right:2em}\n"
       ".card{border:1px solid #ccd;border-radius:6px;padding:.5em 1em;margin:1em 0}\n"
       ".muted{color:#666}.rejected td:last-child{color:#a40000}svg{max-width:100%;height:auto}\n"
       "</style></head><body>\n";
  o << "<h1>" << xml_escape(title) << "</h1>\n<p class=muted>Class <b>" << xml_escape(r.spec.class_id)
    << "</b>: " << xml_escape(r.scenario_name) << " (" << xml_escape(r.spec.scenario) << "), seed " << r.spec.seed
    << ", " << r.spec.days << " day" << (r.spec.days == 1 ? "" : "s") << ", locked: "
    << (r.locked_levers.empty() ? std::string("nothing") : [&] {
         std::string s;
         for (const auto& l : r.locked_levers) s += (s.empty() ? "" : ", ") + l;
         return xml_escape(s);
       }())
    << "; advisor " << (r.spec.advisor ? "on" : "off") << ". " << r.valid.size() << " submissions ranked, "
    << r.rejected.size() << " rejected.</p>\n";
  if (!r.question.empty()) o << "<p><b>The question.</b> " << xml_escape(r.question) << "</p>\n";
  if (!r.lesson.empty()) o << "<p><b>The lesson.</b> " << xml_escape(r.lesson) << "</p>\n";

  o << "<h2>Standings</h2>\n<p class=muted>By score (ties: profit). Every run was replayed from its commands on "
       "the class's world; the score is the game's own (profit against doing nothing and the reference, service, "
       "solvency, advice calls).</p>\n";
  standings_table(o, r);
  ranking_table(o, r, "Profit", &CheckedSubmission::rank_profit,
                [](const CheckedSubmission& c) { return usd_text(c.summary.profit_usd); });
  ranking_table(o, r, "SLO attainment", &CheckedSubmission::rank_slo,
                [](const CheckedSubmission& c) { return percent(c.summary.slo_attainment); });

  const auto data = chart_data(r);
  const auto charts = class_charts(data);
  o << "<h2>The class beside doing nothing and the reference</h2>\n";
  distribution(o, r, charts);
  o << "<h2>Profit, prices and fleets over time</h2>\n";
  over_time(o, charts);
  o << "<h2>Three runs to discuss</h2>\n<p class=muted>Best and worst by score; most improved: the largest rise "
       "in profit per hour from the first half of the game to the second, among the others.</p>\n";
  instructive(o, r, data);

  if (r.spec.advisor) {
    o << "<h2>Advice calls against the truth</h2>\n<p class=muted>Every proposal the advisor made in each "
         "student's game, the student's call (verified: checks paid for first) and what the proposal really did, "
         "revealed now that the games are over. Right: accepted a real gain or rejected a bad change.</p>\n";
    advice_calls(o, r);
  }
  o << "<h2>Rejected submissions</h2>\n";
  if (r.rejected.empty()) {
    o << "<p>None.</p>\n";
  } else {
    o << "<table class=rejected><tr><th>File</th><th>Student</th><th>Why</th></tr>\n";
    for (const auto& c : r.rejected) {
      o << "<tr><td>" << xml_escape(c.file) << "</td><td>" << xml_escape(c.student) << "</td><td>"
        << xml_escape(c.reason) << "</td></tr>\n";
    }
    o << "</table>\n";
  }
  char tol[200];
  std::snprintf(tol, sizeof tol,
                "A submission counts when its commands, replayed, give its profit within $%.2f, its score within "
                "%.3f points and its SLO attainment within %g.",
                kReproduceProfitTolUsd, kReproduceScoreTolPoints, kReproduceSloTol);
  o << "<p class=muted>" << tol << "</p>\n<p class=muted>Written by Inference Tycoon "
    << xml_escape(core::version_line()) << ".</p>\n</body></html>\n";
  return o.str();
}

}  // namespace tycoon::classroom
