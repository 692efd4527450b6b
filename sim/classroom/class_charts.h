// The class's charts, one set drawn by the class report's HTML page and by the class server's live
// instructor page: the class on profit against SLO attainment, profit over the game, the price
// each student set beside the market's, and the fleet. Which charts, which lines and how each is
// told apart are decided here; the pages only draw the SVG (sim/analysis/svg_chart.h).
//
// Made for a projector: every student keeps one strong colour in every chart (never black, never
// a grey: those are the benchmarks'), the benchmarks are dark and dashed, identical lines are
// drawn so that both show and are labelled together, every line is named at its end (not only in
// a tooltip), the hour axis ends at the game's own last hour, and a chart whose lines the class's
// locks make one flat value is left out with the reason.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/analysis/chart_model.h"

namespace tycoon::classroom {

struct BenchmarkRun;
struct CheckedSubmission;
struct ClassReport;

// One run on the charts: a student's counted game or a benchmark.
struct ClassChartRun {
  std::string name;
  double profit_usd = 0;
  double slo_attainment = 0;  // share of requests within the SLO, 0..1
  double score_points = 0;
  bool finished = true;
  std::vector<double> output_price_usd_per_mtok;  // per game hour
  std::vector<double> gpus_rented;                // per game hour
  std::vector<double> cumulative_profit_usd;      // at the end of each game hour
  std::int64_t stopped_at_hour = 0;               // an unfinished game: the hour it was handed in at
};

// A run's name on the charts: an unfinished game's says where it stopped ("Cy (stopped at h6)").
std::string chart_name(const ClassChartRun& run);

struct ClassChartData {
  std::int64_t end_hour = 0;  // the game's length in hours
  std::vector<std::string> locked_levers;
  std::string priced_model;
  // The market's list output price of `priced_model` per hour (the same in every run: competitors
  // move on the scenario's schedule); empty when the scenario gives none.
  std::vector<double> market_output_price_usd_per_mtok;
  std::vector<ClassChartRun> benchmarks;  // doing nothing, then the reference
  std::vector<ClassChartRun> students;    // in standings order
};

struct OmittedChart {
  std::string title;
  std::string why;
};

struct ClassCharts {
  std::vector<analysis::Chart> charts;
  std::vector<OmittedChart> omitted;
};

// The chart data of a class report (its valid submissions and benchmarks).
ClassChartData chart_data(const ClassReport& report);
// The charts' frame, students still to add (chart_run): the game's length, the locks, the model
// whose price is followed, the market's price and the benchmark runs. The report's and the class
// server's charts are both made from it.
ClassChartData chart_frame(std::int64_t end_hour, std::vector<std::string> locked_levers, std::string priced_model,
                           std::vector<double> market_output_price_usd_per_mtok,
                           const std::vector<BenchmarkRun>& benchmarks);
// A student's run on the charts, from its replay: the replay plays on to the game's end, and an
// unfinished game's lines are cut at the hour it stopped (the chart shows where the student left).
ClassChartRun chart_run(const std::string& student, const CheckedSubmission& c);

// Student i's colour (0xRRGGBBAA) on every chart: a strong hue of a palette without black or grey,
// with lightness kept high-contrast on white.
std::uint32_t student_color(std::size_t i);

// Whether a chart of these lines would tell the class anything: false when every value of every
// line is the same number (relative tolerance 1e-9).
bool lines_vary(const std::vector<std::vector<double>>& lines);

// The class's charts: the scatter of profit against SLO attainment (benchmarks as marked lines),
// profit so far, the output price beside the market's (left out when prices are locked and every
// line is flat), GPUs rented (left out when every line is one flat value, as with a locked fleet).
ClassCharts class_charts(const ClassChartData& data);

// Student `i`'s profit so far beside the benchmarks (the report's card for one run).
analysis::Chart student_profit_chart(const ClassChartData& data, std::size_t i);

// The charts as HTML: each SVG inline, then one line per omitted chart saying why.
std::string class_charts_html(const ClassCharts& charts);

}  // namespace tycoon::classroom
