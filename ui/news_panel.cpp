// News and events: the tutorial's current hint on top, then everything that happened, newest first.
#include <algorithm>

#include "ui/format.h"
#include "ui/panels.h"
#include "ui/theme.h"
#include "ui/widgets.h"

namespace tycoon::ui {

namespace {

ImU32 news_color(game::NewsTone tone) {
  switch (tone) {
    case game::NewsTone::kLoss:
      return theme::kCost;
    case game::NewsTone::kWarning:
      return theme::kWarn;
    case game::NewsTone::kAdvice:
      return theme::kPurple;
    case game::NewsTone::kInfo:
      break;
  }
  return theme::kText;
}

}  // namespace

namespace {
constexpr std::array<const char*, game::kAlarmKindNames.size()> kPauseLabels = {
    "SLO drops", "reputation drops", "cash running out", "new proposals", "checks ready", "tutorial steps"};
}  // namespace

void draw_news_panel(const GameView& game, ViewState& view, CommandQueue& out) {
  const auto& s = game.state;
  const auto& hints = game.scenario.hints;
  // The latest hint shown so far.
  const game::TutorialHint* hint = game::current_hint(hints, s);
  const std::string& lesson = game.scenario.lesson_in_play();
  // A tutorial's current step replaces the hints: what to do, where, and whether the clock waits.
  const auto& steps = game.scenario.tutorial_steps;
  std::string step_title, step_text, step_clock;
  if (!steps.empty()) {
    const std::size_t i = s.world.tutorial_step;
    if (const game::TutorialStep* step = game::current_step(steps, s)) {
      step_title = "Tutorial · step " + std::to_string(i + 1) + " of " + std::to_string(steps.size());
      step_text = step->text;
      step_clock = step->holds_clock() ? "The clock waits until you have done this (the highlighted control)."
                                       : "Run the clock: this step needs game time to pass.";
    } else {
      step_title = i >= steps.size() ? "Tutorial complete" : "Tutorial not finished";
      step_text = i >= steps.size() ? "You did every step." : "The game ended before every step was done.";
    }
  }
  if (!step_title.empty() || hint || !lesson.empty()) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->ChannelsSplit(2);
    dl->ChannelsSetCurrent(1);
    const ImVec2 start = ImGui::GetCursorScreenPos();
    const float width = ImGui::GetContentRegionAvail().x;
    ImGui::SetCursorScreenPos(ImVec2(start.x + 8, start.y + 6));
    ImGui::BeginGroup();
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width - 16);
    ImGui::PushFont(theme::font_bold());
    theme::text_colored(theme::kAccent, !step_title.empty()              ? step_title.c_str()
                                        : hint                           ? "Next step"
                                        : game.scenario.question.empty() ? "Lesson"
                                                                         : "Your question");
    ImGui::PopFont();
    ImGui::TextUnformatted(!step_title.empty() ? step_text.c_str() : hint ? hint->text.c_str() : lesson.c_str());
    if (!step_clock.empty()) {
      ImGui::PushStyleColor(ImGuiCol_Text, theme::kWarn);
      ImGui::TextUnformatted(step_clock.c_str());
      ImGui::PopStyleColor();
    }
    if ((hint || !step_title.empty()) && !lesson.empty()) {
      ImGui::PushStyleColor(ImGuiCol_Text, theme::kMuted);
      ImGui::TextUnformatted(lesson.c_str());
      ImGui::PopStyleColor();
    }
    ImGui::PopTextWrapPos();
    ImGui::EndGroup();
    const ImVec2 end(start.x + width, ImGui::GetItemRectMax().y + 6);
    dl->ChannelsSetCurrent(0);
    dl->AddRectFilled(start, end, theme::with_alpha(theme::kAccent, 0.12f), 6);
    dl->AddRect(start, end, theme::with_alpha(theme::kAccent, 0.6f), 6);
    dl->ChannelsMerge();
    ImGui::SetCursorScreenPos(ImVec2(start.x, end.y + 6));
    ImGui::Dummy(ImVec2(width, 0));
    tag(view.tags, "news.hint");
  }

  // The player's auto-pause, per kind of alarm.
  if (ImGui::TreeNode("Pause the clock on…")) {
    for (std::size_t k = 0; k < kPauseLabels.size(); ++k) {
      bool on = view.pause_on[k];
      if (ImGui::Checkbox(kPauseLabels[k], &on)) view.pause_on[k] = on;
      tag(view.tags, "news.pause." + std::string(game::kAlarmKindNames[k]));
    }
    ImGui::TreePop();
  }
  tag(view.tags, "news.pauses");
  theme::heading("News & events");
  ImGui::BeginChild("##feed", ImVec2(0, 0), false);
  for (auto it = s.news.rbegin(); it != s.news.rend(); ++it) {
    ImGui::TextDisabled("%s", fmt_hour_short(it->at_hour).c_str());
    ImGui::PushStyleColor(ImGuiCol_Text, news_color(it->tone));
    text_wrapped(it->text);
    ImGui::PopStyleColor();
    // An alarm that names an accepted proposal as its likely cause offers to undo it (while it is live).
    if (it->advice_id) {
      const auto a = std::find_if(s.inbox.begin(), s.inbox.end(), [&](const game::Advice& x) {
        return x.id == *it->advice_id && !game::revert_refusal(s, x);
      });
      if (a != s.inbox.end()) {
        ImGui::PushID(static_cast<int>(std::distance(it, s.news.rend())));
        const bool locked = game.scenario.command_locked(game::RevertAdvice{});
        if (locked) ImGui::BeginDisabled();
        if (ImGui::SmallButton(("Undo " + a->id).c_str())) out.push(game::RevertAdvice{a->id});
        if (locked) ImGui::EndDisabled();
        tag(view.tags, "news.undo." + a->id);
        ImGui::PopID();
      }
    }
    ImGui::Spacing();
  }
  if (s.news.empty()) ImGui::TextDisabled("Nothing has happened yet.");
  ImGui::EndChild();
}

}  // namespace tycoon::ui
