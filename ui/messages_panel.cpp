// The status strip: the outcome of each command and each alarm, refusals in red with their
// reason, along the bottom of the window in a strip the layout keeps free (it covers nothing).
// Fresh messages show in full for a few seconds; then the newest stays, dimmed, on one line.
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
  for (auto it = view.messages.rbegin(); it != view.messages.rend() && static_cast<int>(out.size()) < kMaxFresh; ++it) {
    if (view.time_s - it->shown_at_s > kShowSeconds) break;
    out.push_back({&*it, true});
  }
  std::reverse(out.begin(), out.end());
  if (out.empty() && !view.messages.empty()) out.push_back({&view.messages.back(), false});
  return out;
}

float text_width(float width, float right_inset) {
  return std::max(40.0f, width - right_inset - 2 * kPadX - kMarkW - kMarkGap);
}

}  // namespace

float messages_strip_height(const ViewState& view, float width, float right_inset) {
  const float tw = text_width(width, right_inset);
  std::size_t lines = 0;
  for (const auto& s : shown_messages(view)) lines += s.fresh ? wrap_lines(s.message->text, tw).size() : 1;
  lines = std::max<std::size_t>(1, lines);
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
  for (const auto& s : shown_messages(view)) {
    const Message& m = *s.message;
    const ImU32 mark = m.ok ? theme::kRevenue : theme::kCost;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImGui::SetCursorPosX(ImGui::GetCursorPosX() + kMarkW + kMarkGap);
    ImGui::BeginGroup();
    if (s.fresh) {
      ImGui::PushStyleColor(ImGuiCol_Text, m.ok ? theme::kText : IM_COL32(255, 185, 185, 255));
      ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + tw);
      text_wrapped(m.text);
      ImGui::PopTextWrapPos();
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
