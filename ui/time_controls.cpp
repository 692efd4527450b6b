// The top bar: who and when, the headline numbers, and the clock's controls.
#include <algorithm>
#include <string>

#include "ui/concepts.h"
#include "ui/format.h"
#include "ui/panels.h"
#include "ui/theme.h"
#include "ui/widgets.h"

namespace tycoon::ui {

namespace {

void speed_button(const char* label, const char* tag_name, Speed speed, const GameView& game, ViewState& view,
                  CommandQueue& out, const char* tooltip) {
  const bool active = game.speed == speed;
  if (active) ImGui::PushStyleColor(ImGuiCol_Button, theme::vec4(theme::kAccent));
  if (active) ImGui::PushStyleColor(ImGuiCol_Text, theme::vec4(IM_COL32(10, 20, 24, 255)));
  if (ImGui::Button(label, ImVec2(44, 0))) out.request(SetSpeed{speed});
  if (active) ImGui::PopStyleColor(2);
  tag(view.tags, tag_name);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tooltip);
}

void stat(const char* label, const std::string& value, ImU32 color, const char* tooltip) {
  ImGui::BeginGroup();
  ImGui::TextDisabled("%s", label);
  ImGui::PushFont(theme::font_bold());
  theme::text_colored(color, value);
  ImGui::PopFont();
  ImGui::EndGroup();
  wrapped_tooltip(tooltip);
}

}  // namespace

void draw_time_controls(const GameView& game, ViewState& view, CommandQueue& out) {
  const auto& s = game.state;
  const auto& h = s.history;

  // Who and when.
  ImGui::BeginGroup();
  ImGui::PushFont(theme::font_bold());
  ImGui::TextUnformatted(elide(game.scenario.name, 270).c_str());
  ImGui::PopFont();
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", game.scenario.name.c_str());
  std::string when = fmt_game_time(s.hour) + "  ·  " + std::string(game::to_string(game.scenario.kind));
  if (!game.label.empty()) when += "  ·  " + game.label;
  ImGui::TextDisabled("%s", elide(when, 270).c_str());
  float progress = s.end_hour > 0 ? static_cast<float>(s.hour) / static_cast<float>(s.end_hour) : 0.f;
  char overlay[64];
  std::snprintf(overlay, sizeof overlay, "%lld of %lld h", static_cast<long long>(s.hour),
                static_cast<long long>(s.end_hour));
  ImGui::PushStyleColor(ImGuiCol_PlotHistogram, theme::vec4(theme::kAccent));
  ImGui::ProgressBar(progress, ImVec2(230, 6), "");
  ImGui::PopStyleColor();
  ImGui::EndGroup();
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s into the game", overlay);

  // Headline numbers.
  ImGui::SameLine(300);
  const double revenue = sum_last(h, game::Series::kRevenueUsd, 24);
  const double gpu_cost = sum_last(h, game::Series::kGpuCostUsd, 24);
  const double profit = sum_last(h, game::Series::kProfitUsd, 24);
  stat("Cash", fmt_usd(s.company.cash_usd), s.company.cash_usd >= 0 ? theme::kCash : theme::kCost,
       "Cash in the bank. Below minus the credit line the company is bankrupt and the game ends.");
  ImGui::SameLine(0, 26);
  stat("Profit, last 24 h", fmt_usd_signed(profit), profit >= 0 ? theme::kRevenue : theme::kCost,
       "Revenue minus GPU rent minus fixed costs over the last 24 game hours.");
  ImGui::SameLine(0, 26);
  std::string margin = revenue > 0 ? fmt_pct((revenue - gpu_cost) / revenue) : "—";
  stat("Gross margin, 24 h", margin, revenue > gpu_cost ? theme::kRevenue : theme::kWarn,
       std::string(concept_sentence(Concept::kGrossMargin)).c_str());
  ImGui::SameLine(0, 26);
  double offered = sum_last(h, game::Series::kRequestsOffered, 24);
  double slo = 1.0;
  if (offered > 0) {
    double within = 0;
    const auto& att = h[game::Series::kSloAttainment];
    const auto& off = h[game::Series::kRequestsOffered];
    for (std::size_t i = att.size() > 24 ? att.size() - 24 : 0; i < att.size(); ++i) within += att[i] * off[i];
    slo = within / offered;
  }
  stat("SLO met, 24 h", offered > 0 ? fmt_pct(slo) : "—", slo >= 0.9 ? theme::kRevenue : slo >= 0.7 ? theme::kWarn : theme::kCost,
       std::string(concept_sentence(Concept::kSlo)).c_str());

  // Clock controls, right-aligned.
  const float controls_w = 44 * 4 + 58 + 66 + 8 * 6 + 150;
  ImGui::SameLine(std::max(ImGui::GetCursorPosX() + 20, ImGui::GetWindowContentRegionMax().x - controls_w));
  ImGui::BeginGroup();
  ImGui::TextDisabled(s.finished ? "Game over" : game.sim_busy ? "Simulating…" : "Time");
  if (s.finished) ImGui::BeginDisabled();
  speed_button("||", "time.pause", Speed::kPaused, game, view, out, "Pause (Space)");
  ImGui::SameLine();
  speed_button("1×", "time.1x", Speed::k1x, game, view, out, "One game hour per second");
  ImGui::SameLine();
  speed_button("4×", "time.4x", Speed::k4x, game, view, out, "Four game hours per second");
  ImGui::SameLine();
  speed_button("16×", "time.16x", Speed::k16x, game, view, out,
               "Sixteen game hours per second (slows down if the simulation cannot keep up)");
  ImGui::SameLine();
  if (ImGui::Button("+1 h", ImVec2(58, 0))) out.push(game::Advance{1});
  tag(view.tags, "time.step");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Simulate one game hour, then stop");
  ImGui::SameLine();
  if (ImGui::Button("+1 day", ImVec2(66, 0))) out.push(game::Advance{24});
  tag(view.tags, "time.day");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Simulate 24 game hours, one at a time");
  if (s.finished) ImGui::EndDisabled();
  ImGui::SameLine(0, 16);
  if (ImGui::Button("Save / load")) view.save_popup_requested = true;
  tag(view.tags, "topbar.save");
  ImGui::SameLine();
  if (ImGui::Button("Menu")) out.request(ToMenu{});
  tag(view.tags, "topbar.menu");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Back to the start screen (a game in progress is saved first as autosave-<scenario>.json)");
  ImGui::EndGroup();
}

}  // namespace tycoon::ui
