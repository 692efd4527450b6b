// Toasts: the outcome of each command for a few seconds, refusals in red with their reason.
#include <algorithm>

#include "ui/format.h"
#include "ui/panels.h"
#include "ui/theme.h"

namespace tycoon::ui {

namespace {
constexpr double kShowSeconds = 7.0;
constexpr int kMaxShown = 4;
constexpr float kWidth = 470;
}  // namespace

void draw_messages(ViewState& view) {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImDrawList* dl = ImGui::GetForegroundDrawList();
  ImFont* font = ImGui::GetFont();
  const float size = ImGui::GetFontSize();
  float y = vp->Pos.y + vp->Size.y - 12;
  int shown = 0;
  for (auto it = view.messages.rbegin(); it != view.messages.rend() && shown < kMaxShown; ++it) {
    const double age = view.time_s - it->shown_at_s;
    if (age > kShowSeconds) break;
    const float alpha = static_cast<float>(std::clamp(kShowSeconds - age, 0.0, 1.0));
    const ImU32 color = it->ok ? theme::kRevenue : theme::kCost;
    const float wrap = kWidth - 34;
    ImVec2 ts = font->CalcTextSizeA(size, FLT_MAX, wrap, it->text.c_str());
    const float h = ts.y + 16;
    y -= h;
    const ImVec2 a(vp->Pos.x + vp->Size.x - kWidth - 12, y), b(a.x + kWidth, y + h);
    dl->AddRectFilled(a, b, theme::with_alpha(theme::kPanelRaised, 0.97f * alpha), 6);
    dl->AddRectFilled(a, ImVec2(a.x + 5, b.y), theme::with_alpha(color, alpha), 6, ImDrawFlags_RoundCornersLeft);
    dl->AddRect(a, b, theme::with_alpha(color, 0.8f * alpha), 6);
    dl->AddText(font, size, ImVec2(a.x + 16, a.y + 8),
                theme::with_alpha(it->ok ? theme::kText : IM_COL32(255, 185, 185, 255), alpha), it->text.c_str(), nullptr,
                wrap);
    y -= 8;
    ++shown;
  }
}

}  // namespace tycoon::ui
