// The status strip: the outcome of each command and each alarm, refusals in red with their
// reason, along the bottom of the window in a strip the layout keeps free (it covers nothing).
// Fresh messages show in full for a few seconds (never more than two lines in all: longer ones are
// cut to a line each, in full on hover); then the newest stays, dimmed, on one line. Tutorial
// instructions show in the tutorial's colour, not as errors.
#include <algorithm>
#include <vector>

#include "ui/format.h"
#include "ui/panels.h"
#include "ui/theme.h"
#include "ui/widgets.h"

namespace tycoon::ui {

namespace {

constexpr double kShowSeconds = 7.0;
constexpr int kMaxFresh = 2;  // the news feed keeps them all
constexpr float kPadX = 10, kPadY = 5, kMarkW = 4, kMarkGap = 8;

struct Shown {
  const Message* message;
  bool fresh;
};

// Fresh messages, oldest first; or the newest one (dimmed) when none is fresh.
std::vector<Shown> shown_messages(const ViewState& view) {
  std::vector<Shown> out;
  // This game's messages only (the ones before it belong to another game).
  const auto first =
      view.messages.begin() + static_cast<std::ptrdiff_t>(std::min(view.first_message_of_game, view.messages.size()));
  for (auto it = view.messages.rbegin(); it.base() != first && static_cast<int>(out.size()) < kMaxFresh; ++it) {
    if (view.time_s - it->shown_at_s > kShowSeconds) break;
    out.push_back({&*it, true});
  }
  std::reverse(out.begin(), out.end());
  if (out.empty() && first != view.messages.end()) out.push_back({&view.messages.back(), false});
  return out;
}

float text_width(float width, float right_inset) {
  return std::max(40.0f, width - right_inset - 2 * kPadX - kMarkW - kMarkGap);
}

constexpr std::size_t kMaxLines = 2;

// Whether the fresh messages need more than kMaxLines wrapped: then each gets one line.
bool compact(const std::vector<Shown>& shown, float tw) {
  std::size_t lines = 0;
  for (const auto& s : shown) lines += s.fresh ? wrap_lines(s.message->text, tw).size() : 1;
  return lines > kMaxLines;
}

}  // namespace

float messages_strip_height(const ViewState& view, float width, float right_inset) {
  const float tw = text_width(width, right_inset);
  const auto shown = shown_messages(view);
  std::size_t lines = 0;
  if (compact(shown, tw)) {
    lines = shown.size();
  } else {
    for (const auto& s : shown) lines += s.fresh ? wrap_lines(s.message->text, tw).size() : 1;
  }
  lines = std::clamp<std::size_t>(lines, 1, kMaxLines);
  const auto n = static_cast<float>(lines);
  const float gaps = static_cast<float>(std::max<std::size_t>(1, shown_messages(view).size()) - 1);
  return 2 * kPadY + n * ImGui::GetTextLineHeight() + gaps * ImGui::GetStyle().ItemSpacing.y;
}

void draw_messages(ViewState& view, float right_inset) {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float h = messages_strip_height(view, vp->Size.x, right_inset);
  const float tw = text_width(vp->Size.x, right_inset);
  ImGui::SetNextWindowPos(ImVec2(vp->Pos.x, vp->Pos.y + vp->Size.y - h));
  ImGui::SetNextWindowSize(ImVec2(vp->Size.x - right_inset, h));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(kPadX, kPadY));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 0.0f);
  ImGui::PushStyleColor(ImGuiCol_WindowBg, theme::kPanelRaised);
  ImGui::Begin("##status", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                   ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoFocusOnAppearing |
                   ImGuiWindowFlags_NoNav);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const auto shown = shown_messages(view);
  const bool one_line_each = compact(shown, tw);
  for (const auto& s : shown) {
    const Message& m = *s.message;
    const ImU32 mark = m.guide ? theme::kAccent : m.ok ? theme::kRevenue : theme::kCost;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImGui::SetCursorPosX(ImGui::GetCursorPosX() + kMarkW + kMarkGap);
    ImGui::BeginGroup();
    if (s.fresh) {
      ImGui::PushStyleColor(ImGuiCol_Text, m.ok || m.guide ? theme::kText : IM_COL32(255, 185, 185, 255));
      if (one_line_each) {
        ImGui::TextUnformatted(elide(m.text, tw).c_str());
        if (ImGui::IsItemHovered()) wrapped_tooltip(m.text.c_str());
      } else {
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + tw);
        text_wrapped(m.text);
        ImGui::PopTextWrapPos();
      }
      ImGui::PopStyleColor();
    } else {
      ImGui::TextDisabled("%s", elide(m.text, tw).c_str());
      if (ImGui::IsItemHovered()) wrapped_tooltip(m.text.c_str());
    }
    ImGui::EndGroup();
    const float bottom = ImGui::GetItemRectMax().y;
    dl->AddRectFilled(p, ImVec2(p.x + kMarkW, bottom), s.fresh ? mark : theme::with_alpha(mark, 0.4f), 2);
    tag(view.tags, "status.message");
  }
  ImGui::End();
  ImGui::PopStyleColor();
  ImGui::PopStyleVar(2);
}

}  // namespace tycoon::ui
