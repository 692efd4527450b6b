// The debrief: how the game went — score and goals, the money over time, where revenue came from
// and where it went, and the advisor scorecard.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/classroom/answer_key.h"
#include "sim/game/last_hours.h"
#include "sim/game/scoring.h"
#include "sim/game/tallies.h"
#include "ui/chart.h"
#include "ui/format.h"
#include "ui/panels.h"
#include "ui/theme.h"
#include "ui/widgets.h"

namespace tycoon::ui {

// Every proposal beside its truth, once the game is over: the call made, the evidence it was made
// on, whether it was right and what the proposal really does, in words. Full width, as tall as its
// rows (the page scrolls, not the table), sortable by any column.
static void draw_advisor_truth(const nlohmann::json& d, ViewState& view) {
  ImGui::Spacing();
  theme::heading("The advisor's claims against the truth");
  const auto& rows = d.value("proposals", nlohmann::json::array());
  const int incidents = d.value("quality_incidents", 0), regressions = d.value("regressions", 0);
  auto count = [](int n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); };
  text_wrapped(std::to_string(d.value("right_calls", 0)) + " of " + std::to_string(rows.size()) + " calls right; " +
               count(incidents, "quality incident", "quality incidents") + " and " +
               count(regressions, "regression", "regressions") + " from what you accepted; checks cost " +
               fmt_usd(d.value("checks_usd", 0.0)) + ".");
  muted_wrapped(d.value("right_call_rule", std::string()));
  tag(view.tags, "debrief.truth");
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH |
                                ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_Sortable;
  if (!ImGui::BeginTable("##truth", 6, flags)) return;
  ImGui::TableSetupColumn("Proposal", ImGuiTableColumnFlags_WidthStretch | ImGuiTableColumnFlags_DefaultSort, 2.2f);
  ImGui::TableSetupColumn("Claimed", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("True", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("Your call", ImGuiTableColumnFlags_WidthStretch, 1.3f);
  ImGui::TableSetupColumn("Right?", ImGuiTableColumnFlags_WidthStretch, 1.6f);
  ImGui::TableSetupColumn("What it really does", ImGuiTableColumnFlags_WidthStretch, 3.0f);
  ImGui::TableHeadersRow();
  // Row order: by the sorted column (posting order by default).
  std::vector<std::size_t> order(rows.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (const ImGuiTableSortSpecs* spec = ImGui::TableGetSortSpecs(); spec && spec->SpecsCount > 0) {
    const int col = spec->Specs[0].ColumnIndex;
    const bool asc = spec->Specs[0].SortDirection != ImGuiSortDirection_Descending;
    auto key = [&](std::size_t i) -> double {
      const auto& r = rows[i];
      switch (col) {
        case 1:
          return r.value("claimed_speedup", 1.0);
        case 2:
          return r.contains("truth") ? r["truth"].value("speedup", 1.0) : 1.0;
        case 4:
          return r.value("right_call", false) ? 1.0 : 0.0;
        default:
          return static_cast<double>(i);
      }
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return asc ? key(a) < key(b) : key(a) > key(b); });
  }
  for (std::size_t i : order) {
    const auto& r = rows[i];
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    text_wrapped(r.value("id", std::string()) + ": " + r.value("title", std::string()));
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(fmt_factor(r.value("claimed_speedup", 1.0)).c_str());
    ImGui::TableNextColumn();
    const auto& truth = r.contains("truth") ? r["truth"] : nlohmann::json::object();
    const double true_speedup = truth.value("speedup", 1.0);
    const bool incident = truth.value("incident", false);
    theme::text_colored(truth.value("good", false) ? theme::kRevenue : theme::kCost,
                        fmt_factor(true_speedup) + (incident ? " + incident" : ""));
    ImGui::TableNextColumn();
    std::string call = r.value("decision", std::string());
    if (call == "pending") call = "undecided";
    const auto& evidence = r.contains("evidence") ? r["evidence"] : nlohmann::json(nullptr);
    if (evidence.is_string()) {
      std::string e = evidence.get<std::string>();
      std::replace(e.begin(), e.end(), '_', ' ');
      call += ", after a check: " + e;
    } else {
      call += ", unchecked";
    }
    text_wrapped(call);
    ImGui::TableNextColumn();
    const bool judged = r.value("judged", true);
    const bool right = r.value("right_call", false);
    const ImU32 colour = !judged ? theme::kMuted : right ? theme::kRevenue : theme::kCost;
    ImGui::PushStyleColor(ImGuiCol_Text, colour);
    text_wrapped(r.value("verdict", std::string()));
    ImGui::PopStyleColor();
    ImGui::TableNextColumn();
    text_wrapped(r.value("truth_text", std::string()));
  }
  ImGui::EndTable();
}

// Below this content width the debrief's paired sections stack instead of sitting side by side.
constexpr float kSideBySideWidth = 1100;

// You beside the two runs on the same customers, and where the gap to the reference came from.
// `you`: the player's figures (game::figures_of the finished game).
static void draw_counterfactuals(const game::GameSummary& f, const game::OutcomeFigures& you, ViewState& view) {
  ImGui::Spacing();
  theme::heading("On the same customers: you, doing nothing, and the reference strategy");
  const auto& cf = *f.counterfactuals;
  const bool wide = ImGui::GetContentRegionAvail().x >= kSideBySideWidth;
  const float half = wide ? (ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ItemSpacing.x) / 2
                          : ImGui::GetContentRegionAvail().x;
  ImGui::BeginGroup();
  if (ImGui::BeginTable("##cf", 5,
                        ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_BordersInnerH,
                        ImVec2(half, 0))) {
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("Profit", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("SLO met", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("Idle GPU-h", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("GPU rent", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableHeadersRow();
    auto row = [](const std::string& name, const game::OutcomeFigures& o, const std::string& tip) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(name.c_str());
      if (!tip.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip.c_str());
      ImGui::TableNextColumn();
      theme::text_colored(money_color(game::money_standing(o.profit_usd), theme::kRevenue),
                          fmt_usd_signed(o.profit_usd) + (o.bankrupt ? " (bankrupt)" : ""));
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(fmt_pct(o.slo_attainment).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(fmt_count(o.idle_gpu_hours()).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(fmt_usd(o.gpu_cost_usd).c_str());
    };
    row("You", you, "");
    row(cf.do_nothing.name, cf.do_nothing.figures, cf.do_nothing.description);
    if (cf.reference) row(cf.reference->name, cf.reference->figures, cf.reference->description);
    ImGui::EndTable();
  }
  if (cf.reference && !cf.reference->description.empty()) {
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + half);
    ImGui::TextDisabled("The reference: %s", cf.reference->description.c_str());
    ImGui::PopTextWrapPos();
  }
  ImGui::EndGroup();
  tag(view.tags, "debrief.counterfactuals");
  if (!cf.reference) return;
  if (wide) ImGui::SameLine();
  ImGui::BeginGroup();
  // The comparison by the score (sim: game::reference_comparison), then where the profit differed.
  text_wrapped(f.reference_comparison +
               (f.gap_to_reference.empty() ? "." : ". Where the profit differed (red: what it cost you):"));
  if (f.answer_key_hidden) muted_wrapped(std::string(classroom::kAnswerKeyHiddenNote));
  if (!f.gap_to_reference.empty() &&
      ImGui::BeginTable("##gap", 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch);
    for (const auto& g : f.gap_to_reference) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(g.name.c_str());
      ImGui::TableNextColumn();
      // Positive: profit left there (a cost to you); negative: where you did better.
      const int sign = game::profit_difference_sign(g.usd);
      theme::text_colored(sign > 0 ? theme::kCost : sign < 0 ? theme::kRevenue : theme::kMuted, fmt_usd_signed(-g.usd));
      ImGui::TableNextColumn();
      ImGui::PushTextWrapPos(0);
      ImGui::TextDisabled("%s", g.detail.c_str());
      ImGui::PopTextWrapPos();
    }
    ImGui::EndTable();
  }
  if (!f.what_to_try.empty()) {
    theme::text_colored(theme::kAccent, "What to try next");
    for (const auto& line : f.what_to_try) text_wrapped("• " + line);
  }
  ImGui::EndGroup();
  tag(view.tags, "debrief.gap");
}

void draw_debrief_panel(const GameView& game, ViewState& view, CommandQueue& out) {
  view.debrief_opened = true;
  const auto& s = game.state;
  const auto goals = game::evaluate_goals(game.scenario, s);
  // The complete score once the comparison runs are in; until then the components known so far.
  const auto score = game.final_summary ? game.final_summary->score : game::score(game.scenario, s, goals);

  // Verdict.
  ImGui::PushFont(theme::font_title());
  // Nothing shown as final before it is: no stars while the comparison runs are computing.
  std::string stars;
  if (score.final) {
    for (int i = 0; i < game::kMaxStars; ++i) stars += i < score.stars ? "★" : "☆";
  } else {
    stars = "···";
  }
  theme::text_colored(score.final && game::unlocks_next_level(score.stars) ? theme::kWarn : theme::kMuted, stars);
  ImGui::PopFont();
  ImGui::SameLine(0, 18);
  ImGui::BeginGroup();
  ImGui::PushFont(theme::font_bold());
  if (s.company.bankrupt) {
    theme::text_colored(theme::kCost, "Bankrupt at " + fmt_game_time(s.company.bankrupt_at_hour.value_or(s.hour)));
  } else if (!s.finished) {
    ImGui::TextUnformatted("The debrief so far (the game is still running)");
  } else {
    theme::text_colored(score.passed ? theme::kRevenue : theme::kWarn,
                        score.passed ? "Scenario passed" : "Scenario not passed");
  }
  ImGui::PopFont();
  if (score.final) {
    ImGui::Text("%.0f of %.0f points · %s · %.1f of %d days played", score.points, score.max_points,
                game.scenario.name.c_str(), static_cast<double>(s.hour) / 24.0, game.scenario.days);
  } else {
    ImGui::Text("Score: %s · %s · %.1f of %d days played",
                s.finished ? "computing the comparison runs…" : "known at the end", game.scenario.name.c_str(),
                static_cast<double>(s.hour) / 24.0, game.scenario.days);
  }
  ImGui::EndGroup();
  tag(view.tags, "debrief.score");
  ImGui::SameLine(ImGui::GetContentRegionAvail().x - 260);
  if (ImGui::Button("Play again")) out.request(StartGame{game.scenario.file, s.seed, game.label});
  tag(view.tags, "debrief.again");
  ImGui::SameLine();
  if (ImGui::Button("Back to menu")) out.request(ToMenu{});
  tag(view.tags, "debrief.menu");

  // The level's question, answered once the game is over (in a class, once the key is shown).
  if (game.scenario.answer_shown(s.finished, game.answer_key_hidden)) {
    ImGui::Spacing();
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("The question: %s", game.scenario.question.c_str());
    theme::text_colored(theme::kAccent, "The answer: " + game.scenario.lesson);
    ImGui::PopTextWrapPos();
    tag(view.tags, "debrief.answer");
  }

  // The score's components beside the goals, and the rules.
  ImGui::Spacing();
  // Side by side when there is room, else one under the other.
  const bool wide = ImGui::GetContentRegionAvail().x >= kSideBySideWidth;
  const float half = wide ? (ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ItemSpacing.x) / 2
                          : ImGui::GetContentRegionAvail().x;
  ImGui::BeginGroup();
  if (ImGui::BeginTable("score", 3,
                        ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_BordersInnerH,
                        ImVec2(half, 0))) {
    // Fixed widths from the widest content (an auto-fit column keeps the width of its first frame,
    // before the judgement row exists).
    ImGui::TableSetupColumn("Score", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("Advice calls").x + 2);
    ImGui::TableSetupColumn("Points", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("-20.0 / 50").x + 2);
    ImGui::TableSetupColumn("How", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableHeadersRow();
    for (const auto& c : score.components) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(c.name.c_str());
      ImGui::TableNextColumn();
      if (c.known) {
        ImGui::Text("%.1f / %.0f", c.points, c.max_points);
      } else {
        ImGui::TextDisabled("? / %.0f", c.max_points);
      }
      ImGui::TableNextColumn();
      ImGui::PushTextWrapPos(0);
      ImGui::TextUnformatted(c.detail.c_str());
      ImGui::PopTextWrapPos();
    }
    ImGui::EndTable();
  }
  tag(view.tags, "debrief.components");
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + half);
  ImGui::TextDisabled("%s", game::score_rules().c_str());
  ImGui::PopTextWrapPos();
  ImGui::EndGroup();
  if (wide) ImGui::SameLine();
  if (ImGui::BeginTable("goals", 3,
                        ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_BordersInnerH)) {
    ImGui::TableSetupColumn("Goal", ImGuiTableColumnFlags_WidthStretch, 2.5f);
    ImGui::TableSetupColumn("Achieved", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch, 0.4f);
    ImGui::TableHeadersRow();
    for (const auto& g : goals) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(g.description.c_str());
      ImGui::TableNextColumn();
      switch (g.goal.kind) {
        case game::GoalKind::kProfitUsd:
        case game::GoalKind::kCashUsd:
          ImGui::TextUnformatted(fmt_usd(g.achieved).c_str());
          break;
        case game::GoalKind::kGrossMargin:
        case game::GoalKind::kSloAttainment:
          ImGui::TextUnformatted(fmt_pct(g.achieved).c_str());
          break;
        case game::GoalKind::kOutputTokens:
          ImGui::TextUnformatted(fmt_tokens(g.achieved).c_str());
          break;
        case game::GoalKind::kSurvive:
          ImGui::TextUnformatted(g.achieved > 0 ? "alive" : "bankrupt");
          break;
        case game::GoalKind::kTutorialComplete:
          ImGui::TextUnformatted((fmt_pct(g.achieved) + " of the steps").c_str());
          break;
      }
      ImGui::TableNextColumn();
      theme::text_colored(g.met ? theme::kRevenue : theme::kCost, g.met ? "✔" : "✘");
    }
    ImGui::EndTable();
  }

  if (game.final_summary && game.final_summary->counterfactuals)
    draw_counterfactuals(*game.final_summary, game::figures_of(s), view);
  if (game.revealed_debrief) draw_advisor_truth(*game.revealed_debrief, view);

  // Money over time.
  const auto& h = s.history;
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  const float third = (ImGui::GetContentRegionAvail().x - 2 * gap) / 3;
  chart::Axis x{"game time", chart::Unit::kGameHour};
  x.min = 0;
  x.max = static_cast<double>(std::max<std::int64_t>(24, s.hour));
  chart::Line cash{"cash", h[game::Series::kCashUsd], theme::kCash, 1, 1, true};
  chart::Axis cash_axis{"cash", chart::Unit::kUsd};
  cash_axis.include_zero = false;
  chart::time_series("##dcash", std::span(&cash, 1), x, cash_axis, ImVec2(third, 180));
  ImGui::SameLine();
  const auto cum_rev = game::running_total(h, {game::Series::kRevenueUsd});
  const auto cum_cost = game::running_total(h, {game::Series::kGpuCostUsd, game::Series::kFixedCostUsd});
  chart::Line cum[] = {{"revenue", cum_rev, theme::kRevenue, 1, 1}, {"costs", cum_cost, theme::kCost, 1, 1}};
  chart::time_series("##dcum", cum, x, {"cumulative", chart::Unit::kUsd}, ImVec2(third, 180));
  ImGui::SameLine();
  chart::Line slo{"SLO met", h[game::Series::kSloAttainment], theme::kRevenue, 0, 1};
  chart::Axis share{"SLO met", chart::Unit::kShare};
  share.min = 0;
  share.max = 1.05;
  chart::time_series("##dslo", std::span(&slo, 1), x, share, ImVec2(third, 180));

  // Where the money came from and went, day by day, and the advisor scorecard.
  ImGui::Spacing();
  const float col = (ImGui::GetContentRegionAvail().x - 2 * gap) / 3;
  const float row_h = std::max(200.0f, ImGui::GetContentRegionAvail().y - 4);
  ImGui::BeginChild("##money", ImVec2(col, row_h), false);
  theme::heading("Revenue and costs");
  const auto& t = s.ledger.totals();
  if (ImGui::BeginTable("money", 2, ImGuiTableFlags_SizingStretchProp)) {
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch, 1.6f);
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    auto row = [](const std::string& name, const std::string& value, ImU32 color, const std::string& tip) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(name.c_str());
      if (!tip.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip.c_str());
      ImGui::TableNextColumn();
      theme::text_colored(color, value);
    };
    for (const auto& [model, mr] : s.ledger.by_model()) {
      row(model_name(game.catalog, model), fmt_usd(mr.revenue_usd), theme::kRevenue,
          fmt_tokens(mr.tokens.output_tokens) + " out, " + fmt_tokens(mr.tokens.input_tokens) + " in (" +
              fmt_tokens(mr.tokens.cached_input_tokens) + " cached)");
    }
    for (std::size_t i = 0; i < kContractNames.size(); ++i) {
      double v = s.ledger.gpu_cost_by_contract()[i];
      if (v > 0) row("GPU rent, " + std::string(kContractNames[i]), fmt_usd(-v), theme::kCost, "");
    }
    if (t.fixed_cost_usd > 0) row("Fixed costs", fmt_usd(-t.fixed_cost_usd), theme::kFixedCost, "");
    row("Profit", fmt_usd_signed(t.profit_usd()), money_color(game::money_standing(t.profit_usd()), theme::kRevenue),
        "");
    auto margin = t.gross_margin();
    row("Gross margin", margin ? fmt_pct(*margin) : "—", theme::kText, "");
    row("GPU-hours rented", fmt_count(s.service.gpu_hours_rented), theme::kText, "");
    row("GPU-hours serving", fmt_count(s.service.gpu_hours_serving), theme::kText,
        "Rented GPU-hours that ran a replica; the rest sat idle and still cost rent.");
    if (s.service.spot_interruptions > 0)
      row("Spot interruptions", std::to_string(s.service.spot_interruptions), theme::kWarn, "");
    ImGui::EndTable();
  }
  ImGui::EndChild();
  ImGui::SameLine();
  {
    // Costs drawn below zero.
    std::vector<chart::BarLayer> layers = {
        {"revenue", game::daily_sums(h, game::Series::kRevenueUsd), theme::kRevenue},
        {"GPU rent", game::daily_sums(h, game::Series::kGpuCostUsd), theme::kCost},
        {"fixed", game::daily_sums(h, game::Series::kFixedCostUsd), theme::kFixedCost}};
    for (auto& v : layers[1].values) v = -v;
    for (auto& v : layers[2].values) v = -v;
    const std::size_t days = layers[0].values.size();
    std::vector<std::string> cats;
    for (std::size_t d = 0; d < days; ++d) cats.push_back("day " + std::to_string(d + 1));
    chart::stacked_bars("##dpnl", cats, layers, {"per day", chart::Unit::kUsd}, ImVec2(col, row_h), true);
  }
  ImGui::SameLine();

  // Advisor scorecard.
  ImGui::BeginChild("##scorecard", ImVec2(0, row_h), false);
  theme::heading("Advisor scorecard");
  const game::AdviceTally tally = game::advice_tally(s.inbox);
  if (s.inbox.empty()) {
    muted_wrapped("The advisor posted no proposals in this game.");
  } else {
    char line[160];
    std::snprintf(line, sizeof line, "%zu proposals: %d accepted, %d rejected, %d undecided", s.inbox.size(),
                  tally.num_accepted, tally.num_rejected, tally.num_pending);
    text_wrapped(line);
    std::snprintf(line, sizeof line, "Claimed gain of what you accepted: %s",
                  fmt_factor(tally.claimed_speedup).c_str());
    text_wrapped(line);
    // What the player was promised per deployment; what the changes really do only once revealed.
    for (const auto& d : s.company.deployments) {
      const auto claimed = game::claimed_code_changes(s.inbox, d.id);
      if (claimed.num_changes == 0 && !(game.revealed_debrief && d.speedup != 1.0)) continue;
      char speedup_line[128];
      if (game.revealed_debrief) {
        std::snprintf(speedup_line, sizeof speedup_line, "#%lld runs code %s faster (claimed %s)",
                      static_cast<long long>(d.id), fmt_factor(d.speedup).c_str(),
                      fmt_factor(claimed.claimed_speedup).c_str());
      } else {
        std::snprintf(speedup_line, sizeof speedup_line, "#%lld: code changes claimed %s faster",
                      static_cast<long long>(d.id), fmt_factor(claimed.claimed_speedup).c_str());
      }
      muted_wrapped(speedup_line);
    }
    if (!game.revealed_debrief) {
      muted_wrapped("The truth behind each claim is revealed here when the game is over.");
    }
  }
  ImGui::EndChild();
}

}  // namespace tycoon::ui
