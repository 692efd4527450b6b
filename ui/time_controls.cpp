// The top bar: who and when, the headline numbers, and the clock's controls.
#include <algorithm>
#include <array>
#include <string>

#include "sim/game/last_hours.h"
#include "sim/game/save.h"
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

constexpr float kSpeedButtonW = 44, kStepHourW = 58, kStepDayW = 66;
constexpr float kLeftMaxW = 270, kLeftMinW = 150;
constexpr float kGap = 20;  // between the bar's blocks
constexpr std::array<const char*, 4> kStatLabels = {"Cash", "Profit, last 24 h", "Gross margin, 24 h", "SLO met, 24 h"};
constexpr std::array<const char*, 4> kStatShortLabels = {"Cash", "Profit 24 h", "Margin 24 h", "SLO 24 h"};

// How the bar is laid out at a window width.
struct BarLayout {
  bool short_labels = false;
  bool two_rows = false;
  float left_w = kLeftMaxW;  // the scenario name and clock
  float stat_gap = 26;
  std::array<float, 4> stat_w{};
  float controls_w = 0;
};

float button_w(const char* label) { return ImGui::CalcTextSize(label).x + 2 * ImGui::GetStyle().FramePadding.x; }

float stats_width(const BarLayout& l) {
  float w = 0;
  for (float x : l.stat_w) w += x;
  return w + 3 * l.stat_gap;
}

BarLayout bar_layout(float window_width) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const float avail = window_width - 2 * st.WindowPadding.x;
  BarLayout l;
  const float sp = st.ItemSpacing.x;
  l.controls_w =
      4 * kSpeedButtonW + kStepHourW + kStepDayW + 5 * sp + 16 + button_w("Save / load") + sp + button_w("Menu");
  ImGui::PushFont(theme::font_bold());
  const float value_w = ImGui::CalcTextSize("-$88,888").x;
  ImGui::PopFont();
  auto measure = [&](bool short_labels) {
    const auto& labels = short_labels ? kStatShortLabels : kStatLabels;
    for (std::size_t i = 0; i < labels.size(); ++i) l.stat_w[i] = std::max(ImGui::CalcTextSize(labels[i]).x, value_w);
  };
  measure(false);
  float left = avail - stats_width(l) - l.controls_w - 2 * kGap;
  if (left >= kLeftMaxW * 0.75f) {
    l.left_w = std::min(kLeftMaxW, left);
    return l;
  }
  l.short_labels = true;
  l.stat_gap = 16;
  measure(true);
  left = avail - stats_width(l) - l.controls_w - 2 * kGap;
  if (left >= kLeftMinW) {
    l.left_w = std::min(kLeftMaxW, left);
    return l;
  }
  // Two rows: name and clock with the controls, then the numbers.
  l.two_rows = true;
  l.short_labels = false;
  l.stat_gap = 26;
  measure(false);
  l.left_w = std::clamp(avail - l.controls_w - kGap, 80.0f, kLeftMaxW);
  return l;
}

void draw_menu_confirmation(const GameView& game, ViewState& view, CommandQueue& out) {
  if (!ImGui::BeginPopupModal("Leave this game?", nullptr,
                              ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings)) {
    return;
  }
  const std::string file = game::autosave_file_name(game.state.scenario_id, game.class_id, game.student);
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 26);
  text_wrapped("Your game is saved first as " + file +
               ": continue it from the start screen under \"Continue a saved game\".");
  ImGui::PopTextWrapPos();
  ImGui::Spacing();
  if (ImGui::Button("Save and leave")) {
    out.request(ToMenu{});
    ImGui::CloseCurrentPopup();
  }
  tag(view.tags, "menu.leave");
  ImGui::SameLine();
  if (ImGui::Button("Keep playing") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false)) {
    ImGui::CloseCurrentPopup();
  }
  tag(view.tags, "menu.stay");
  ImGui::EndPopup();
}

}  // namespace

float top_bar_height(float window_width) {
  const ImGuiStyle& st = ImGui::GetStyle();
  // Name, clock and progress bar (or the numbers' two lines with the controls), plus padding.
  const float row = ImGui::GetTextLineHeight() * 2 + st.ItemSpacing.y * 2 + 6;
  const float one = std::max(74.0f, row + 2 * st.WindowPadding.y);
  return bar_layout(window_width).two_rows ? one + ImGui::GetTextLineHeight() * 2 + st.ItemSpacing.y * 2 : one;
}

void draw_time_controls(const GameView& game, ViewState& view, CommandQueue& out) {
  const auto& s = game.state;
  const auto& h = s.history;
  const BarLayout layout = bar_layout(ImGui::GetWindowWidth());
  const float x0 = ImGui::GetCursorPosX();

  // Who and when.
  ImGui::BeginGroup();
  ImGui::PushFont(theme::font_bold());
  ImGui::TextUnformatted(elide(game.scenario.name, layout.left_w).c_str());
  ImGui::PopFont();
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", game.scenario.name.c_str());
  std::string when = fmt_game_time(s.hour) + "  ·  " + std::string(game::to_string(game.scenario.kind));
  if (!game.label.empty()) when += "  ·  " + game.label;
  ImGui::TextDisabled("%s", elide(when, layout.left_w).c_str());
  float progress = s.end_hour > 0 ? static_cast<float>(s.hour) / static_cast<float>(s.end_hour) : 0.f;
  char overlay[64];
  std::snprintf(overlay, sizeof overlay, "%lld of %lld h", static_cast<long long>(s.hour),
                static_cast<long long>(s.end_hour));
  ImGui::PushStyleColor(ImGuiCol_PlotHistogram, theme::vec4(theme::kAccent));
  ImGui::ProgressBar(progress, ImVec2(std::min(230.0f, layout.left_w), 6), "");
  ImGui::PopStyleColor();
  ImGui::EndGroup();
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s into the game", overlay);
  const float row2_y = ImGui::GetCursorPosY();

  // Clock controls, right-aligned (on the first row in both layouts).
  ImGui::SameLine(std::max(x0 + layout.left_w + kGap, ImGui::GetWindowContentRegionMax().x - layout.controls_w));
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
  if (ImGui::Button("+1 h", ImVec2(kStepHourW, 0))) out.push(game::Advance{1});
  tag(view.tags, "time.step");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Simulate one game hour, then stop");
  ImGui::SameLine();
  if (ImGui::Button("+1 day", ImVec2(kStepDayW, 0))) out.push(game::Advance{24});
  tag(view.tags, "time.day");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Simulate 24 game hours, one at a time");
  if (s.finished) ImGui::EndDisabled();
  ImGui::SameLine(0, 16);
  if (ImGui::Button("Save / load")) view.save_popup_requested = true;
  tag(view.tags, "topbar.save");
  ImGui::SameLine();
  // Leaving a finished game loses nothing; one in progress is saved first, after a confirmation.
  if (ImGui::Button("Menu")) {
    if (s.finished) {
      out.request(ToMenu{});
    } else {
      ImGui::OpenPopup("Leave this game?");
    }
  }
  tag(view.tags, "topbar.menu");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Back to the start screen (a game in progress is saved first as autosave-<scenario>.json)");
  draw_menu_confirmation(game, view, out);
  ImGui::EndGroup();

  // Headline numbers: between the name and the controls, or on a row of their own.
  // Each in a slot as wide as its widest value, so that the bar does not move as numbers change.
  float x = layout.two_rows ? x0 : x0 + layout.left_w + kGap;
  ImGui::SetCursorPos(ImVec2(x, layout.two_rows ? row2_y : ImGui::GetStyle().WindowPadding.y));
  auto next_slot = [&](std::size_t i) {
    x += layout.stat_w[i] + layout.stat_gap;
    ImGui::SameLine(x);
  };
  const auto& labels = layout.short_labels ? kStatShortLabels : kStatLabels;
  const game::LastHours day = game::last_hours(h, 24);
  const double profit = day.money.profit_usd();
  stat(labels[0], fmt_usd(s.company.cash_usd), money_color(game::cash_standing(s.company.cash_usd), theme::kCash),
       "Cash in the bank. Below minus the credit line the company is bankrupt and the game ends.");
  next_slot(0);
  stat(labels[1], fmt_usd_signed(profit), money_color(game::money_standing(profit), theme::kRevenue),
       "Revenue minus GPU rent minus fixed costs over the last 24 game hours.");
  next_slot(1);
  const auto margin = day.money.gross_margin();
  stat(labels[2], margin ? fmt_pct(*margin) : "—", money_color(game::margin_standing(margin), theme::kRevenue),
       std::string(concept_sentence(Concept::kGrossMargin)).c_str());
  next_slot(2);
  const double slo = day.slo_attainment;
  stat(labels[3], day.requests_offered > 0 ? fmt_pct(slo) : "—", slo_color(slo, game.scenario),
       std::string(concept_sentence(Concept::kSlo)).c_str());
}

}  // namespace tycoon::ui
