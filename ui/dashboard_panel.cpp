// Dashboard: cash, revenue, GPU cost, margin, tokens and SLO — now and over time.
#include <algorithm>
#include <cmath>

#include "sim/game/last_hours.h"
#include "ui/chart.h"
#include "ui/concepts.h"
#include "ui/format.h"
#include "ui/panels.h"
#include "ui/theme.h"
#include "ui/widgets.h"

namespace tycoon::ui {

namespace {

// A cost's daily sums (game::daily_sums), drawn below zero.
std::vector<double> below_zero(std::vector<double> v) {
  for (auto& x : v) x = -x;
  return v;
}

// An hourly series with the days before play (GameState::past) in front of it: index 0 is hour
// −past_hours. Empty past: the series as it is.
std::vector<double> with_past(const game::GameState& s, game::Series k) {
  std::vector<double> out = s.past.series[k];
  const auto& now = s.history[k];
  out.insert(out.end(), now.begin(), now.end());
  return out;
}

}  // namespace

void draw_dashboard_panel(const GameView& game, ViewState& view, CommandQueue& /*out*/) {
  const auto& s = game.state;
  const auto& h = s.history;

  // Headline cards: six in a row, or two rows of three when a card would be narrower than its
  // widest label and value.
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  const float avail = ImGui::GetContentRegionAvail().x;
  ImGui::PushFont(theme::font_big());
  const float value_w = ImGui::CalcTextSize("$888,888").x;
  ImGui::PopFont();
  const float min_card_w = std::max({ImGui::CalcTextSize("Output tokens, 24 h").x,
                                     ImGui::CalcTextSize("100.0% of requests failed").x, value_w}) +
                           2 * ImGui::GetStyle().WindowPadding.x + 4;
  const int per_row = (avail - gap * 5) / 6 >= min_card_w ? 6 : (avail - gap * 2) / 3 >= min_card_w ? 3 : 2;
  const float card_w = (avail - gap * static_cast<float>(per_row - 1)) / static_cast<float>(per_row);
  int card = 0;
  auto next_card = [&] {
    if (++card % per_row != 0) ImGui::SameLine();
  };
  const game::LastHours day = game::last_hours(h, 24);
  const double revenue24 = day.money.revenue_usd;
  const double gpu24 = day.money.gpu_cost_usd;
  const double fixed24 = day.money.fixed_cost_usd;
  const auto& totals = s.ledger.totals();
  const double cash_change = game::cash_change_usd(h, s.company.cash_usd, game.scenario.company.starting_cash_usd, 24);

  kpi_card("kpi.cash", "Cash", fmt_usd(s.company.cash_usd), fmt_usd_signed(cash_change) + " in 24 h",
           money_color(game::money_standing(cash_change), theme::kRevenue), card_w,
           "Cash now, and how it moved over the last 24 game hours.");
  tag(view.tags, "dashboard.cash");
  next_card();
  kpi_card("kpi.revenue", "Revenue, 24 h", fmt_usd(revenue24), "total " + fmt_usd(totals.revenue_usd), theme::kMuted,
           card_w, "Tokens sold × your prices: input, cached input and output tokens.");
  next_card();
  kpi_card("kpi.gpu", "GPU cost, 24 h", fmt_usd(gpu24), "total " + fmt_usd(totals.gpu_cost_usd), theme::kMuted, card_w,
           "Rent for every GPU under contract (serving or idle) over the last 24 game hours. The total "
           "also holds what was charged at a command: early-release fees and the GPU hours of paid benchmarks.");
  next_card();
  const auto margin24 = day.money.gross_margin();
  std::string margin = margin24 ? fmt_pct(*margin24) : "—";
  auto total_margin = totals.gross_margin();
  kpi_card("kpi.margin", "Gross margin, 24 h", margin,
           "game " + (total_margin ? fmt_pct(*total_margin) : std::string("—")),
           money_color(game::margin_standing(margin24), theme::kRevenue), card_w,
           std::string(concept_sentence(Concept::kGrossMargin)).c_str());
  next_card();
  kpi_card("kpi.tokens", "Output tokens, 24 h", fmt_tokens(day.output_tokens),
           "total " + fmt_tokens(s.service.tokens.output_tokens), theme::kMuted, card_w,
           "Tokens generated for customers (input tokens are billed too, see Pricing).");
  next_card();
  const double slo24 = day.slo_attainment;
  const bool offered24 = day.requests_offered > 0;
  kpi_card("kpi.slo", "SLO met, 24 h", offered24 ? fmt_pct(slo24) : "—",
           offered24 ? fmt_pct(day.failed_share()) + " of requests failed" : std::string("no requests yet"),
           slo_color(slo24, game.scenario), card_w, std::string(concept_sentence(Concept::kSlo)).c_str());

  ImGui::Spacing();
  const float half = (ImGui::GetContentRegionAvail().x - gap) / 2;
  const float chart_h = std::max(170.0f, (ImGui::GetContentRegionAvail().y - 110) / 2);

  // The days before play, when the scenario has them, come first on the time charts, shaded.
  const double past_hours = static_cast<double>(s.past.num_hours());
  const auto time_axis = [&] {
    chart::Axis x{"game time", chart::Unit::kGameHour};
    x.min = -past_hours;
    x.max = static_cast<double>(std::max<std::int64_t>(24, s.hour));
    if (past_hours > 0) x.history_before = 0;
    return x;
  };
  const auto cash_v = with_past(s, game::Series::kCashUsd), slo_v = with_past(s, game::Series::kSloAttainment),
             rep_v = with_past(s, game::Series::kReputation), out_v = with_past(s, game::Series::kOutputTokens),
             in_v = with_past(s, game::Series::kInputTokens), cached_v = with_past(s, game::Series::kCachedInputTokens);
  // Cash over time, and the daily profit and loss.
  {
    chart::Line cash{"cash", cash_v, theme::kCash, 1 - past_hours, 1, true};
    chart::Axis x = time_axis();
    chart::Axis cash_axis{"cash", chart::Unit::kUsd};
    cash_axis.include_zero = false;  // movements matter more than the distance from zero
    chart::time_series("##cash", std::span(&cash, 1), x, cash_axis, ImVec2(half, chart_h));
    ImGui::SameLine();
    std::vector<chart::BarLayer> layers = {
        {"revenue", game::daily_sums(h, game::Series::kRevenueUsd), theme::kRevenue},
        {"GPU rent", below_zero(game::daily_sums(h, game::Series::kGpuCostUsd)), theme::kCost},
        {"fixed", below_zero(game::daily_sums(h, game::Series::kFixedCostUsd)), theme::kFixedCost}};
    std::vector<std::string> days;
    for (std::size_t d = 0; d < layers[0].values.size(); ++d) days.push_back("day " + std::to_string(d + 1));
    chart::stacked_bars("##pnl", days, layers, {"profit and loss per day", chart::Unit::kUsd}, ImVec2(half, chart_h),
                        true);
  }
  // Service quality and volume.
  {
    chart::Axis x = time_axis();
    chart::Line quality[] = {{"SLO met", slo_v, theme::kRevenue, -past_hours, 1},
                             {"reputation", rep_v, theme::kPurple, -past_hours, 1}};
    chart::Axis share{"service", chart::Unit::kShare};
    share.min = 0;
    share.max = 1.05;
    chart::time_series("##quality", quality, x, share, ImVec2(half, chart_h));
    ImGui::SameLine();
    chart::Line tokens[] = {{"output", out_v, theme::kAccent, -past_hours, 1, true},
                            {"input (cached incl.)", in_v, theme::series_color(0), -past_hours, 1},
                            {"cached input", cached_v, theme::series_color(3), -past_hours, 1}};
    chart::time_series("##tokens", tokens, x, {"tokens per hour", chart::Unit::kTokens}, ImVec2(half, chart_h));
  }

  // The margin lesson, with the player's own numbers.
  ImGui::Spacing();
  theme::heading("Why speed matters");
  if (revenue24 > 0) {
    const double profit = day.money.profit_usd();
    const double faster = day.money.served_faster(econ::kLessonSpeedup).profit_usd();
    const auto change = day.money.profit_change_served_faster(econ::kLessonSpeedup);
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "Last 24 h: revenue %s, GPU rent %s, fixed %s, profit %s. Serving the same tokens %s faster needs "
                  "1/%.1f of the GPUs: profit would be %s (%s). The thinner the margin, the more a speedup is worth.",
                  fmt_usd(revenue24).c_str(), fmt_usd(gpu24).c_str(), fmt_usd(fixed24).c_str(), fmt_usd(profit).c_str(),
                  fmt_pct(econ::kLessonSpeedup - 1, 0).c_str(), econ::kLessonSpeedup, fmt_usd(faster).c_str(),
                  change ? fmt_pct_signed(*change, 0).c_str() : "new profit");
    muted_wrapped(buf);
  } else if (!s.company.deployments.empty() && s.hour == 0) {
    muted_wrapped("No revenue yet: your deployments start earning once the clock runs (press 1x, or +1 h).");
  } else if (!s.company.deployments.empty()) {
    muted_wrapped(
        "No revenue in the last 24 h although models are deployed: see Deployments (do they have GPUs, do "
        "they serve?) and Pricing.");
  } else {
    muted_wrapped(
        "No revenue yet. Rent GPUs in the market, deploy a model for a customer segment, then run the clock.");
  }
}

}  // namespace tycoon::ui
